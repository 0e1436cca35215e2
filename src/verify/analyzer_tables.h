// The analyzer's name tables (docs/rules.md): banned qualified-name prefixes, builtins with a rule
// of their own, modules re-exported under other names, and the globals Triton's CPU interpreter
// fills into a kernel's module; then the shorter word lists the rule families match against.
// Internal to the analyzer_*.cpp files; src/verify/tools/list_reexports.py prints what the
// installed triton and torch re-export and inject (re-run it when they are upgraded).
#pragma once

#include <string_view>

namespace tritonrl::verify::analyzer_tables {

struct Prefix {
  std::string_view prefix;
  std::string_view rule;
};

// Qualified-name prefixes banned anywhere in the file, first match wins (docs/rules.md).
inline constexpr Prefix kBannedPrefixes[] = {
    {"threading", "func.concurrency"},
    {"_thread", "func.concurrency"},
    {"multiprocessing", "func.concurrency"},
    {"concurrent", "func.concurrency"},
    {"asyncio", "func.concurrency"},
    {"torch.multiprocessing", "func.concurrency"},
    {"torch.cuda.Stream", "func.cuda_stream"},
    {"torch.cuda.stream", "func.cuda_stream"},
    {"torch.cuda.streams", "func.cuda_stream"},
    {"torch.cuda.Event", "func.cuda_stream"},
    {"torch.cuda.ExternalStream", "func.cuda_stream"},
    {"torch.cuda.current_stream", "func.cuda_stream"},
    {"torch.cuda.default_stream", "func.cuda_stream"},
    {"torch.cuda.set_stream", "func.cuda_stream"},
    {"torch.cuda.CUDAGraph", "func.cuda_stream"},
    {"torch.cuda.graph", "func.cuda_stream"},
    {"torch.cuda.graphs", "func.cuda_stream"},
    {"torch.cuda.make_graphed_callables", "func.cuda_stream"},
    {"torch.Stream", "func.cuda_stream"},
    {"torch.Event", "func.cuda_stream"},
    {"torch.cuda.memory", "func.cuda_stream"},
    {"torch.cuda.caching_allocator_alloc", "func.cuda_stream"},
    {"torch.compile", "func.torch_compile"},
    {"torch._dynamo", "func.torch_compile"},
    {"torch._inductor", "func.torch_compile"},
    {"torch.jit", "func.torch_compile"},
    {"torch.fx", "func.torch_compile"},
    {"torch.export", "func.torch_compile"},
    {"torch._higher_order_ops", "func.torch_compile"},
    {"torch.cuda.jiterator", "func.native_code"},
    {"ctypes", "func.native_code"},
    {"cffi", "func.native_code"},
    {"_ctypes", "func.native_code"},
    {"torch.utils.cpp_extension", "func.native_code"},
    {"cupy", "func.native_code"},
    {"pycuda", "func.native_code"},
    {"numba", "func.native_code"},
    {"cuda", "func.native_code"},
    {"torch.library", "func.native_code"},
    {"torch.ops", "func.native_code"},
    {"torch._C", "func.native_code"},
    {"triton._C", "func.native_code"},
    {"mmap", "func.native_code"},
    {"importlib", "func.dynamic_code"},
    {"runpy", "func.dynamic_code"},
    {"builtins", "func.dynamic_code"},
    {"code", "func.dynamic_code"},
    {"codeop", "func.dynamic_code"},
    {"marshal", "func.dynamic_code"},
    {"pickle", "func.dynamic_code"},
    {"types", "func.dynamic_code"},
    {"gc", "func.introspection"},
    {"inspect", "func.introspection"},
    {"traceback", "func.introspection"},
    {"sys._getframe", "func.introspection"},
    {"sys.modules", "func.introspection"},
    {"sys._current_frames", "func.introspection"},
    {"sys.settrace", "func.introspection"},
    {"sys.setprofile", "func.introspection"},
    {"weakref", "func.introspection"},
    {"os", "func.io_access"},
    {"subprocess", "func.io_access"},
    {"socket", "func.io_access"},
    {"shutil", "func.io_access"},
    {"pathlib", "func.io_access"},
    {"io", "func.io_access"},
    {"tempfile", "func.io_access"},
    {"urllib", "func.io_access"},
    {"http", "func.io_access"},
    {"requests", "func.io_access"},
    {"glob", "func.io_access"},
    {"signal", "func.io_access"},
    {"resource", "func.io_access"},
    {"sys.exit", "func.io_access"},
    {"sys.stdout", "func.io_access"},
    {"sys.stderr", "func.io_access"},
    {"fcntl", "func.io_access"},
    {"posix", "func.io_access"},
    {"torch.backends", "func.global_flags"},
    {"torch.set_", "func.global_flags"},
    {"torch.use_deterministic_algorithms", "func.global_flags"},
    {"torch.manual_seed", "func.global_flags"},
    {"torch.seed", "func.global_flags"},
    {"torch.set_rng_state", "func.global_flags"},
    {"torch.cuda.manual_seed", "func.global_flags"},
    {"torch.random", "func.global_flags"},
    {"torch.overrides", "func.tensor_subclass"},
    {"torch.utils._python_dispatch", "func.tensor_subclass"},
    {"torch._subclasses", "func.tensor_subclass"},
    {"torch.Tensor._make_subclass", "func.tensor_subclass"},
    {"torch.Tensor._make_wrapper_subclass", "func.tensor_subclass"},
};

struct BuiltinRule {
  std::string_view name;
  std::string_view rule;
};
inline constexpr BuiltinRule kBuiltinRules[] = {
    {"exec", "func.dynamic_code"},       {"eval", "func.dynamic_code"},
    {"compile", "func.dynamic_code"},    {"__import__", "func.dynamic_code"},
    {"breakpoint", "func.dynamic_code"}, {"globals", "func.introspection"},
    {"locals", "func.introspection"},    {"vars", "func.introspection"},
    {"open", "func.io_access"},          {"input", "func.io_access"},
    {"exit", "func.io_access"},          {"quit", "func.io_access"},
};

// Modules that torch, triton and the allowed standard modules re-export under their own names
// (`triton.runtime.jit.threading` is `threading`, `torch.nn.init.torch` is `torch`): an attribute
// chain that reaches one of these names is that module, whatever it went through. The list is the
// banned or not-allowed part of what src/verify/tools/list_reexports.py reports for triton 3.6 and
// torch 2.11; allowed modules re-exported elsewhere (math, functools, typing) need no entry.
struct Reexport {
  std::string_view attr;
  std::string_view module;
};
inline constexpr Reexport kReexports[] = {
    {"torch", "torch"},
    {"triton", "triton"},
    {"numpy", "numpy"},
    {"np", "numpy"},
    {"threading", "threading"},
    {"_thread", "_thread"},
    {"multiprocessing", "multiprocessing"},
    {"mp", "multiprocessing"},
    {"concurrent", "concurrent"},
    {"inspect", "inspect"},
    {"gc", "gc"},
    {"traceback", "traceback"},
    {"weakref", "weakref"},
    {"ctypes", "ctypes"},
    {"importlib", "importlib"},
    {"builtins", "builtins"},
    {"pickle", "pickle"},
    {"marshal", "marshal"},
    {"runpy", "runpy"},
    {"types", "types"},
    {"os", "os"},
    {"_osp", "os.path"},
    {"sys", "sys"},
    {"subprocess", "subprocess"},
    {"io", "io"},
    {"pathlib", "pathlib"},
    {"shutil", "shutil"},
    {"signal", "signal"},
    {"socket", "socket"},
    {"tempfile", "tempfile"},
    {"time", "time"},
    {"random", "random"},
    {"ast", "ast"},
    {"dis", "dis"},
    {"linecache", "linecache"},
    {"logging", "logging"},
    {"hashlib", "hashlib"},
    {"uuid", "uuid"},
    {"platform", "platform"},
    {"atexit", "atexit"},
    {"copyreg", "copyreg"},
    {"sysconfig", "sysconfig"},
    {"pkgutil", "pkgutil"},
    {"tarfile", "tarfile"},
    {"zipfile", "zipfile"},
    {"gzip", "gzip"},
    {"base64", "base64"},
    {"textwrap", "textwrap"},
    {"statistics", "statistics"},
    {"queue", "queue"},
    {"unittest", "unittest"},
};
// Real submodules whose last name is one of the above (torch.random is torch's, not Python's).
inline constexpr std::string_view kGenuineSubmodules[] = {
    "torch._library.triton", "torch.cuda.random", "torch.fx.traceback",
    "torch.multiprocessing", "torch.random",      "torch.signal",
    "torch.types",           "torch.xpu.random",  "triton.language.random"};

// Globals the Triton CPU interpreter copies into a kernel's module (list_reexports.py prints
// them): a file can use these names without binding them. Typing names are left out (harmless).
struct Injected {
  std::string_view name;
  std::string_view qualified;
};
inline constexpr Injected kInterpreterGlobals[] = {
    {"np", "numpy"},
    {"np_erf_fp32", "numpy._erf"},
    {"np_erf_fp64", "numpy._erf"},
    {"np_umulhi_u64", "numpy._umulhi_64"},
    {"inspect", "inspect"},
    {"ast", "ast"},
    {"math", "math"},
    {"textwrap", "textwrap"},
    {"dataclasses", "dataclasses"},
    {"dataclass", "dataclasses.dataclass"},
    {"partial", "functools.partial"},
    {"triton", "triton"},
    {"tl", "triton.language"},
    {"_interpreter", "triton._C.libtriton.interpreter"},
    {"_ir", "triton._C.libtriton.ir"},
    {"ASTTransformer", "triton.runtime.interpreter.ASTTransformer"},
    {"BlockPointerHandle", "triton.runtime.interpreter.BlockPointerHandle"},
    {"ExtraFunctions", "triton.runtime.interpreter.ExtraFunctions"},
    {"FunctionRewriter", "triton.runtime.interpreter.FunctionRewriter"},
    {"GridExecutor", "triton.runtime.interpreter.GridExecutor"},
    {"InterpretedFunction", "triton.runtime.interpreter.InterpretedFunction"},
    {"InterpreterBuilder", "triton.runtime.interpreter.InterpreterBuilder"},
    {"InterpreterError", "triton.runtime.errors.InterpreterError"},
    {"InterpreterOptions", "triton.runtime.interpreter.InterpreterOptions"},
    {"KernelInterface", "triton.runtime.jit.KernelInterface"},
    {"ReduceOps", "triton.runtime.interpreter.ReduceOps"},
    {"ReduceScanOpInterface", "triton.runtime.interpreter.ReduceScanOpInterface"},
    {"ScanOps", "triton.runtime.interpreter.ScanOps"},
    {"TensorDescHandle", "triton.runtime.interpreter.TensorDescHandle"},
    {"TensorDescriptor", "triton.tools.tensor_descriptor.TensorDescriptor"},
    {"TensorHandle", "triton.runtime.interpreter.TensorHandle"},
    {"TritonSemantic", "triton.language.semantic.TritonSemantic"},
    {"interpreter_builder", "triton.runtime.interpreter.interpreter_builder"},
    {"interpreter_semantic", "triton.runtime.interpreter.interpreter_semantic"},
    {"_patch_lang", "triton.runtime.interpreter._patch_lang"},
    {"_patch_attr", "triton.runtime.interpreter._patch_attr"},
    {"_patch_builtin", "triton.runtime.interpreter._patch_builtin"},
    {"_patch_lang_core", "triton.runtime.interpreter._patch_lang_core"},
    {"_patch_lang_tensor", "triton.runtime.interpreter._patch_lang_tensor"},
    {"_patch_reduce_scan", "triton.runtime.interpreter._patch_reduce_scan"},
    {"_unwrap_tensor", "triton.runtime.interpreter._unwrap_tensor"},
    {"_rewrap_tensor", "triton.runtime.interpreter._rewrap_tensor"},
};

// ---- the rule families' word lists ------------------------------------------------------------

// Decorators (and calls) that make a function a Triton kernel.
inline constexpr std::string_view kTritonDecorators[] = {"triton.jit",
                                                         "triton.autotune",
                                                         "triton.heuristics",
                                                         "triton.runtime.jit",
                                                         "triton.runtime.autotune",
                                                         "triton.runtime.heuristics",
                                                         "triton.runtime.jit.jit",
                                                         "triton.language.core.jit"};
// Module-level definitions copied from the task file: skipped by the rules on module names.
inline constexpr std::string_view kReferenceCopies[] = {"Model", "get_inputs", "get_init_inputs"};
// Frame, traceback and code-object attributes (func.introspection).
inline constexpr std::string_view kFrameAttrs[] = {
    "f_back",   "f_globals", "f_locals", "f_code",  "f_builtins", "gi_frame",
    "tb_frame", "cr_frame",  "ag_frame", "tb_next", "co_code",    "co_consts"};
// Dunder attributes that are not introspection.
inline constexpr std::string_view kAllowedDunders[] = {"__init__", "__name__", "__qualname__",
                                                       "__doc__", "__version__"};
// Builtins that reach an attribute by a name given as a value (func.dynamic_attr).
inline constexpr std::string_view kAttrBuiltins[] = {"getattr", "setattr", "delattr", "hasattr"};
// Attributes whose test makes a branch a device-guarded fallback (func.torch_fallback).
inline constexpr std::string_view kDeviceGuardAttrs[] = {"is_cuda", "is_cpu", "device",
                                                         "is_available", "type"};
// Bases that make a class a Tensor subclass (func.tensor_subclass).
inline constexpr std::string_view kTensorBases[] = {"torch.Tensor", "torch._C.TensorBase",
                                                    "torch._C._TensorBase", "torch.nn.Parameter",
                                                    "torch.nn.parameter.Parameter"};
// Classes whose members are tensor methods: torch.Tensor.add(a, b) is a + b.
inline constexpr std::string_view kTensorClasses[] = {"torch.Tensor", "torch.nn.Parameter",
                                                      "torch.nn.parameter.Parameter"};
// Tensor-method names left out of tensor_compute_methods because they collide with Python
// containers; as members of torch.Tensor they are compute all the same.
inline constexpr std::string_view kCollidingComputeMethods[] = {"add", "sort", "values", "index",
                                                                "type"};
// Keyword arguments through which Triton calls back into Python at launch time.
inline constexpr std::string_view kLaunchHookKeywords[] = {
    "pre_hook", "post_hook", "do_bench", "prune_configs_by", "early_config_prune", "perf_model"};
// Builtins whose result iterates over their argument: a loop over zip(kernels, grids) binds
// kernels in its tuple target.
inline constexpr std::string_view kKernelIterators[] = {"zip",  "enumerate", "reversed",
                                                        "list", "tuple",     "sorted"};
// Methods that materialise a copy of their receiver (data movement, not a view).
inline constexpr std::string_view kMaterializingMethods[] = {"contiguous", "clone"};
// Importing these has effects of its own (native loaders, compiler configuration): reported even
// when the import is never used. Other banned modules are reported where they are used.
inline constexpr std::string_view kImportRules[] = {"func.native_code", "func.dynamic_code",
                                                    "func.torch_compile"};

}  // namespace tritonrl::verify::analyzer_tables
