// The tables of the candidate subset (docs/rules.md, "The candidate subset"): what candidate code
// may import, name and define. Internal to subset.cpp and subset_names.cpp. Everything a table
// does not list is out; the tables are the one home of these decisions.
#pragma once

#include <algorithm>
#include <iterator>
#include <string_view>

namespace tritonrl::verify::subset {

template <typename Range>
bool Listed(const Range& range, std::string_view s) {
  return std::find(std::begin(range), std::end(range), s) != std::end(range);
}

// Modules a candidate may import (exactly these paths; `from X import name` alike).
constexpr std::string_view kImportableModules[] = {
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "triton",
    "triton.language",
    "triton.language.math",
    "triton.language.extra",
    "triton.language.extra.libdevice",
    "triton.language.extra.cuda",
    "triton.language.extra.cuda.libdevice",
    "math",
    "functools",
    "operator",
    "itertools",
    "collections",
    "typing",
    "dataclasses",
    "__future__",
};

// Members of the Python standard-library modules above that a candidate may name. torch and
// triton members are left to the functionality rules (allowlist.json), except private ones.
struct ModuleMembers {
  std::string_view module;
  std::string_view members;  // space-separated, with a space at each end
};
constexpr ModuleMembers kStdlibMembers[] = {
    // Not fsum, hypot, dist or sumprod: over a tensor's unbind() they add up values in C, one
    // .item() at a time, where the ATen audit sees only reads.
    {"math",
     " ceil floor trunc fabs sqrt isqrt exp exp2 expm1 log log1p log2 log10 pow prod gcd lcm pi e"
     " inf nan tau isfinite isinf isnan isclose erf erfc tanh sin cos tan atan atan2 copysign"
     " ldexp frexp comb factorial radians degrees "},
    // Not cached_property, singledispatch, total_ordering or wraps: each defines methods or
    // attributes that run where the candidate does not call them.
    {"functools", " partial reduce lru_cache cache "},
    // Arithmetic only: attrgetter, methodcaller, itemgetter and call reach attributes named in
    // strings, or call from C.
    {"operator",
     " add sub mul truediv floordiv mod neg pos and_ or_ xor lt le gt ge eq ne not_ index "},
    // Not accumulate or starmap: they call a function from C on each element.
    {"itertools", " product chain islice repeat count zip_longest combinations permutations "},
    // Not namedtuple, UserDict, UserList or ChainMap: subclasses of builtin containers. Not
    // defaultdict: its reads insert keys, so a read writes (len(d) after d[i] counts a loop).
    {"collections", " OrderedDict deque "},
    // Not NamedTuple or TypedDict (builtin subclasses), get_type_hints or ForwardRef (they
    // evaluate strings).
    {"typing",
     " Any Callable Dict Final Iterable List Literal Mapping Optional Sequence Set Tuple Type"
     " Union TYPE_CHECKING "},
    {"dataclasses", " dataclass field "},
    {"__future__", " annotations "},
};

// Builtins a candidate may name. Out, among others: getattr's siblings setattr, delattr, vars,
// dir, globals, locals, type, id; iter, next, map, filter (calls from C); format, str, repr,
// print, bytes, bytearray, memoryview, chr, ord (formatting and byte views of tensors); open,
// input, exec, eval, compile, __import__, breakpoint, exit, quit.
constexpr std::string_view kAllowedBuiltins[] = {
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "divmod",
    "enumerate",
    "float",
    "frozenset",
    "getattr",
    "hasattr",
    "int",
    "isinstance",
    "len",
    "list",
    "max",
    "min",
    "object",
    "pow",
    "range",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "sum",
    "tuple",
    "zip",
    "super",
    "staticmethod",
    "classmethod",
    "property",
    "NotImplemented",
    "Ellipsis",
    "Exception",
    "ValueError",
    "TypeError",
    "RuntimeError",
    "NotImplementedError",
    "AssertionError",
    "IndexError",
    "KeyError",
    "ZeroDivisionError",
    "ArithmeticError",
    "__name__",
};

// Builtin types whose class attributes are out (int.from_bytes, object.__setattr__,
// dict.__setitem__, tuple.__new__).
constexpr std::string_view kBuiltinTypes[] = {
    "int",   "float",  "bool",  "dict",     "list",         "tuple",       "set",  "frozenset",
    "slice", "object", "range", "property", "staticmethod", "classmethod", "super"};

// Every name of Python 3.12's builtins module: binding one at module or class level makes a
// later failed lookup fall back to the builtin, so such bindings are out.
constexpr std::string_view kPythonBuiltins[] = {
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
};

// Globals Triton's CPU interpreter copies into a kernel's module when the name is missing there
// (the names of kInterpreterGlobals in analyzer_tables.h that are not private). An import may bind
// one only to the value the interpreter would put there.
struct InjectedName {
  std::string_view name;
  std::string_view value;  // empty: no import may bind it
};
constexpr InjectedName kInjectedNames[] = {
    {"np", ""},
    {"np_erf_fp32", ""},
    {"np_erf_fp64", ""},
    {"np_umulhi_u64", ""},
    {"inspect", ""},
    {"ast", ""},
    {"math", "math"},
    {"textwrap", ""},
    {"dataclasses", "dataclasses"},
    {"dataclass", "dataclasses.dataclass"},
    {"partial", "functools.partial"},
    {"triton", "triton"},
    {"tl", "triton.language"},
};

// Decorators a candidate may write (qualified; a call of one is the same decorator).
constexpr std::string_view kAllowedDecorators[] = {
    "triton.jit",          "triton.autotune",      "triton.heuristics",
    "staticmethod",        "classmethod",          "property",
    "functools.lru_cache", "functools.cache",      "dataclasses.dataclass",
    "torch.no_grad",       "torch.inference_mode",
};

// Class bases a candidate may write, besides classes the file defines.
constexpr std::string_view kAllowedBases[] = {"torch.nn.Module", "object"};

// Dunder methods a class may define: nn.Module subclasses only __init__, helper classes also the
// call and dataclass hooks. Everything else (__iter__, __getitem__, __getattr__, __index__,
// __float__, __format__, __torch_function__, __set_name__, ...) runs candidate code when trusted
// code touches the object.
constexpr std::string_view kModuleDunders[] = {"__init__"};
constexpr std::string_view kHelperDunders[] = {"__init__", "__call__", "__post_init__"};

// Dunder attributes a candidate may read (super().__init__, fn.__name__).
constexpr std::string_view kReadableDunders[] = {"__init__", "__name__", "__qualname__", "__doc__",
                                                 "__version__"};

// Attributes of frames, generators, coroutines, tracebacks, code objects and closure cells.
constexpr std::string_view kFrameAttributes[] = {
    "cell_contents", "f_back",      "f_globals",   "f_locals",    "f_code",         "f_builtins",
    "f_lasti",       "f_lineno",    "f_trace",     "gi_frame",    "gi_code",        "gi_yieldfrom",
    "gi_running",    "cr_frame",    "cr_code",     "cr_await",    "ag_frame",       "ag_code",
    "tb_frame",      "tb_next",     "tb_lineno",   "co_code",     "co_consts",      "co_names",
    "co_varnames",   "co_freevars", "co_cellvars", "co_filename", "with_traceback",
};

// nn.Module's attributes (dir(nn.Module) and a fresh instance's __dict__, torch 2.11). A
// candidate's nn.Module subclass defines none of them but __init__ and forward, and no code
// writes one as an attribute: the evaluator calls train(), named_modules(), reads
// _forward_hooks, ... on the candidate's module.
constexpr std::string_view kModuleAttributes[] = {
    "T_destination",
    "_apply",
    "_backward_hooks",
    "_backward_pre_hooks",
    "_buffers",
    "_call_impl",
    "_compiled_call_impl",
    "_forward_hooks",
    "_forward_hooks_always_called",
    "_forward_hooks_with_kwargs",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_get_backward_hooks",
    "_get_backward_pre_hooks",
    "_get_name",
    "_is_full_backward_hook",
    "_load_from_state_dict",
    "_load_state_dict_post_hooks",
    "_load_state_dict_pre_hooks",
    "_maybe_warn_non_full_backward_hook",
    "_modules",
    "_named_members",
    "_non_persistent_buffers_set",
    "_parameters",
    "_register_load_state_dict_pre_hook",
    "_register_state_dict_hook",
    "_replicate_for_data_parallel",
    "_save_to_state_dict",
    "_slow_forward",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_version",
    "_wrapped_call_impl",
    "add_module",
    "apply",
    "bfloat16",
    "buffers",
    "call_super_init",
    "children",
    "compile",
    "cpu",
    "cuda",
    "double",
    "dump_patches",
    "eval",
    "extra_repr",
    "float",
    "forward",
    "get_buffer",
    "get_extra_state",
    "get_parameter",
    "get_submodule",
    "half",
    "ipu",
    "load_state_dict",
    "modules",
    "mtia",
    "named_buffers",
    "named_children",
    "named_modules",
    "named_parameters",
    "parameters",
    "register_backward_hook",
    "register_buffer",
    "register_forward_hook",
    "register_forward_pre_hook",
    "register_full_backward_hook",
    "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook",
    "register_load_state_dict_pre_hook",
    "register_module",
    "register_parameter",
    "register_state_dict_post_hook",
    "register_state_dict_pre_hook",
    "requires_grad_",
    "set_extra_state",
    "set_submodule",
    "share_memory",
    "state_dict",
    "to",
    "to_empty",
    "train",
    "training",
    "type",
    "xpu",
    "zero_grad",
};

// The decorators (and call forms, `triton.jit(fn)`) that make a function a Triton kernel.
constexpr std::string_view kJitDecorators[] = {
    "triton.jit",
    "triton.autotune",
    "triton.heuristics",
    "triton.runtime.jit",
    "triton.runtime.jit.jit",
    "triton.runtime.autotune",
    "triton.runtime.heuristics",
};

// What a @triton.jit body may name besides its own locals, jit functions, modules, triton.language
// members and tl.constexpr globals (func.subset_kernel_reference), after Triton 3.6's compiler:
// the builtins of CodeGenerator.builtin_namespace (any other builtin is "not defined" on the GPU)
// and the JITCallable members of `triton` (ConstexprFunction) a kernel may import by name.
constexpr std::string_view kKernelBuiltins[] = {"len",   "list",       "range",   "float",
                                                "int",   "isinstance", "getattr", "hasattr",
                                                "print", "min",        "max"};
constexpr std::string_view kKernelTritonMembers[] = {"triton.cdiv", "triton.next_power_of_2"};
// tl.constexpr(...) at module level: the one global value form the compiler reads as a constant.
constexpr std::string_view kConstexprCallees[] = {"triton.language.constexpr",
                                                  "triton.language.core.constexpr"};

// What a dataclass field's default_factory may be: an empty container's type.
constexpr std::string_view kDefaultFactories[] = {
    "list", "dict", "set", "tuple", "frozenset", "collections.OrderedDict", "collections.deque"};

}  // namespace tritonrl::verify::subset
