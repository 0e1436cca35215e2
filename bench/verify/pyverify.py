"""The static verifier's rules written in Python over the `ast` module.

Written for the benchmark only (bench/verify/run_bench.py compares its throughput with the C++
verifier in src/verify/); it applies the same rules, rule ids and allowlist (src/verify/allowlist.json)
as the C++ code, and tests/python/test_verify_parity.py checks that both give the same verdicts on the
corpora. It is not part of the product.
"""
import ast
import json
import pathlib
import re

ALLOWLIST_PATH = pathlib.Path(__file__).resolve().parents[2] / "src" / "verify" / "allowlist.json"

# Qualified-name prefixes mapped to the rule that bans them anywhere in the file.
BANNED_PREFIXES = [
    ("threading", "func.concurrency"), ("_thread", "func.concurrency"),
    ("multiprocessing", "func.concurrency"), ("concurrent", "func.concurrency"),
    ("asyncio", "func.concurrency"), ("torch.multiprocessing", "func.concurrency"),
    ("torch.cuda.Stream", "func.cuda_stream"), ("torch.cuda.stream", "func.cuda_stream"),
    ("torch.cuda.streams", "func.cuda_stream"), ("torch.cuda.Event", "func.cuda_stream"),
    ("torch.cuda.ExternalStream", "func.cuda_stream"), ("torch.cuda.current_stream", "func.cuda_stream"),
    ("torch.cuda.default_stream", "func.cuda_stream"), ("torch.cuda.set_stream", "func.cuda_stream"),
    ("torch.cuda.CUDAGraph", "func.cuda_stream"), ("torch.cuda.graph", "func.cuda_stream"),
    ("torch.cuda.graphs", "func.cuda_stream"), ("torch.cuda.make_graphed_callables", "func.cuda_stream"),
    ("torch.Stream", "func.cuda_stream"), ("torch.Event", "func.cuda_stream"),
    ("torch.cuda.memory", "func.cuda_stream"), ("torch.cuda.caching_allocator_alloc", "func.cuda_stream"),
    ("torch.compile", "func.torch_compile"), ("torch._dynamo", "func.torch_compile"),
    ("torch._inductor", "func.torch_compile"), ("torch.jit", "func.torch_compile"),
    ("torch.fx", "func.torch_compile"), ("torch.export", "func.torch_compile"),
    ("torch._higher_order_ops", "func.torch_compile"), ("torch.cuda.jiterator", "func.native_code"),
    ("ctypes", "func.native_code"), ("cffi", "func.native_code"), ("_ctypes", "func.native_code"),
    ("torch.utils.cpp_extension", "func.native_code"), ("cupy", "func.native_code"),
    ("pycuda", "func.native_code"), ("numba", "func.native_code"), ("cuda", "func.native_code"),
    ("torch.library", "func.native_code"), ("torch.ops", "func.native_code"),
    ("torch._C", "func.native_code"), ("triton._C", "func.native_code"), ("mmap", "func.native_code"),
    ("importlib", "func.dynamic_code"), ("runpy", "func.dynamic_code"), ("builtins", "func.dynamic_code"),
    ("code", "func.dynamic_code"), ("codeop", "func.dynamic_code"), ("marshal", "func.dynamic_code"),
    ("pickle", "func.dynamic_code"), ("types", "func.dynamic_code"),
    ("gc", "func.introspection"), ("inspect", "func.introspection"), ("traceback", "func.introspection"),
    ("sys._getframe", "func.introspection"), ("sys.modules", "func.introspection"),
    ("sys._current_frames", "func.introspection"), ("sys.settrace", "func.introspection"),
    ("sys.setprofile", "func.introspection"), ("weakref", "func.introspection"),
    ("os", "func.io_access"), ("subprocess", "func.io_access"), ("socket", "func.io_access"),
    ("shutil", "func.io_access"), ("pathlib", "func.io_access"), ("io", "func.io_access"),
    ("tempfile", "func.io_access"), ("urllib", "func.io_access"), ("http", "func.io_access"),
    ("requests", "func.io_access"), ("glob", "func.io_access"), ("signal", "func.io_access"),
    ("resource", "func.io_access"), ("sys.exit", "func.io_access"), ("sys.stdout", "func.io_access"),
    ("sys.stderr", "func.io_access"), ("fcntl", "func.io_access"), ("posix", "func.io_access"),
    ("torch.backends", "func.global_flags"), ("torch.set_", "func.global_flags"),
    ("torch.use_deterministic_algorithms", "func.global_flags"), ("torch.manual_seed", "func.global_flags"),
    ("torch.seed", "func.global_flags"), ("torch.set_rng_state", "func.global_flags"),
    ("torch.cuda.manual_seed", "func.global_flags"), ("torch.random", "func.global_flags"),
    ("torch.overrides", "func.tensor_subclass"), ("torch.utils._python_dispatch", "func.tensor_subclass"),
    ("torch._subclasses", "func.tensor_subclass"), ("torch.Tensor._make_subclass", "func.tensor_subclass"),
    ("torch.Tensor._make_wrapper_subclass", "func.tensor_subclass"),
]

_PREFIX_RULES = {}
for _p, _r in BANNED_PREFIXES:
    _PREFIX_RULES.setdefault(_p, _r)
_OPEN_PREFIXES = [(p, r) for p, r in BANNED_PREFIXES if p.endswith("_")]  # torch.set_*

# Re-exported modules: an attribute chain reaching one of these names is that module (see the C++
# kReexports and src/verify/tools/list_reexports.py).
REEXPORTS = {n: n for n in (
    "torch triton numpy threading _thread multiprocessing concurrent inspect gc traceback weakref ctypes "
    "importlib builtins pickle marshal runpy types os sys subprocess io pathlib shutil signal socket "
    "tempfile time random ast dis linecache logging hashlib uuid platform atexit copyreg sysconfig pkgutil "
    "tarfile zipfile gzip base64 textwrap statistics queue unittest").split()}
REEXPORTS.update({"np": "numpy", "mp": "multiprocessing", "_osp": "os.path"})
GENUINE_SUBMODULES = {"torch._library.triton", "torch.cuda.random", "torch.fx.traceback", "torch.multiprocessing",
                      "torch.random", "torch.signal", "torch.types", "torch.xpu.random", "triton.language.random"}
_INTERP = "triton.runtime.interpreter."
INTERPRETER_GLOBALS = {
    "np": "numpy", "np_erf_fp32": "numpy._erf", "np_erf_fp64": "numpy._erf", "np_umulhi_u64": "numpy._umulhi_64",
    "inspect": "inspect", "ast": "ast", "math": "math", "textwrap": "textwrap", "dataclasses": "dataclasses",
    "dataclass": "dataclasses.dataclass", "partial": "functools.partial", "triton": "triton",
    "tl": "triton.language", "_interpreter": "triton._C.libtriton.interpreter", "_ir": "triton._C.libtriton.ir",
    "InterpreterError": "triton.runtime.errors.InterpreterError", "KernelInterface": "triton.runtime.jit.KernelInterface",
    "TensorDescriptor": "triton.tools.tensor_descriptor.TensorDescriptor",
    "TritonSemantic": "triton.language.semantic.TritonSemantic",
}
INTERPRETER_GLOBALS.update({n: _INTERP + n for n in (
    "ASTTransformer BlockPointerHandle ExtraFunctions FunctionRewriter GridExecutor InterpretedFunction "
    "InterpreterBuilder InterpreterOptions ReduceOps ReduceScanOpInterface ScanOps TensorDescHandle TensorHandle "
    "interpreter_builder interpreter_semantic _patch_lang _patch_attr _patch_builtin _patch_lang_core "
    "_patch_lang_tensor _patch_reduce_scan _unwrap_tensor _rewrap_tensor").split()})
TENSOR_CLASSES = {"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"}
COLLIDING_COMPUTE_METHODS = {"add", "sort", "values", "index", "type"}
LAUNCH_HOOK_KEYWORDS = {"pre_hook", "post_hook", "do_bench", "prune_configs_by", "early_config_prune", "perf_model"}
MATERIALIZING_METHODS = {"contiguous", "clone"}


def step(base, attr):
    full = base + "." + attr
    if attr in REEXPORTS and full not in GENUINE_SUBMODULES:
        return REEXPORTS[attr]
    return full


def canonical(dotted):
    parts = dotted.split(".")
    q = parts[0]
    for p in parts[1:]:
        q = step(q, p)
    return q


def rooted_at(q, root):
    return q == root or q.startswith(root + ".")


def const_getattr(node):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return node.args[0], node.args[1].value
    return None, ""


def is_load_ref(n):
    if isinstance(n, (ast.Name, ast.Attribute)):
        return isinstance(n.ctx, ast.Load)
    return const_getattr(n)[0] is not None


def is_main_guard(n):
    return isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and len(n.test.comparators) == 1 \
        and isinstance(n.test.left, ast.Name) and n.test.left.id == "__name__" \
        and isinstance(n.test.comparators[0], ast.Constant) and n.test.comparators[0].value == "__main__"


def params_of(fn):
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return names


BUILTIN_RULES = {
    "exec": "func.dynamic_code", "eval": "func.dynamic_code", "compile": "func.dynamic_code",
    "__import__": "func.dynamic_code", "breakpoint": "func.dynamic_code",
    "globals": "func.introspection", "locals": "func.introspection", "vars": "func.introspection",
    "open": "func.io_access", "input": "func.io_access", "exit": "func.io_access", "quit": "func.io_access",
}
FRAME_ATTRS = {"f_back", "f_globals", "f_locals", "f_code", "f_builtins", "gi_frame", "tb_frame", "cr_frame",
               "ag_frame", "tb_next", "co_code", "co_consts"}
ALLOWED_DUNDERS = {"__init__", "__name__", "__qualname__", "__doc__", "__version__"}
ATTR_BUILTINS = {"getattr", "setattr", "delattr", "hasattr"}
MUTATING_METHODS = {"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear",
                    "add", "remove", "discard", "__setitem__", "appendleft"}
DEVICE_GUARD_ATTRS = {"is_cuda", "is_cpu", "device", "is_available", "type"}
TRITON_DECORATORS = {"triton.jit", "triton.autotune", "triton.heuristics", "triton.runtime.jit",
                     "triton.runtime.autotune", "triton.runtime.heuristics", "triton.runtime.jit.jit",
                     "triton.language.core.jit"}
REFERENCE_COPIES = {"Model", "get_inputs", "get_init_inputs"}
LOAD_FUNCS = {"triton.language.load"}
STORE_FUNCS = {"triton.language.store"}

STRICT_ONLY = {"func.torch_fallback", "func.instance_state", "func.try_except_outside"}
WARN_ONLY = {"func.copy_only_kernel"}

MESSAGES = {
    "syntax.parse_error": "the code does not parse",
    "syntax.no_code": "no code found in the output",
    "syntax.no_triton_kernel": "no @triton.jit kernel is defined",
    "syntax.no_modelnew": "no class ModelNew is defined",
    "syntax.modelnew_not_module": "ModelNew does not subclass torch.nn.Module",
    "syntax.no_forward": "ModelNew has no forward method",
    "syntax.kernel_not_launched": "forward never launches one of the file's Triton kernels",
    "func.torch_compute": "PyTorch compute reachable from forward",
    "func.nn_layer_call": "an nn layer is called from forward",
    "func.try_except": "try/except on the kernel path",
    "func.try_except_outside": "try/except outside the kernel path",
    "func.concurrency": "threads, processes or asyncio",
    "func.cuda_stream": "CUDA streams, events, graphs or allocator control",
    "func.torch_compile": "torch.compile, dynamo, inductor, jit or fx",
    "func.native_code": "native code or extension loading",
    "func.dynamic_code": "dynamic code execution or import",
    "func.dynamic_attr": "getattr/setattr/delattr/hasattr with a computed or dunder name",
    "func.introspection": "frame, object or interpreter introspection",
    "func.io_access": "file, process, network or interpreter-exit access",
    "func.global_flags": "writes global torch flags or RNG state",
    "func.monkeypatch": "assigns an attribute of an imported module or class",
    "func.tensor_subclass": "Tensor subclass or torch function/dispatch override",
    "func.global_state": "module-level or class-level state written from forward",
    "func.instance_state": "instance attribute written from forward",
    "func.module_not_allowed": "use of a module outside the allowlist",
    "func.reference_model": "ModelNew uses, wraps or subclasses the reference Model",
    "func.torch_fallback": "PyTorch compute in a device-guarded fallback branch",
    "func.copy_only_kernel": "kernel only copies or fills memory (no arithmetic on loaded data)",
}


def load_allowlist(path=ALLOWLIST_PATH):
    data = json.loads(pathlib.Path(path).read_text())
    return {k: set(v) for k, v in data.items() if isinstance(v, list)}


class Finding:
    __slots__ = ("rule", "line", "col", "detail")

    def __init__(self, rule, node, detail=""):
        self.rule = rule
        self.line = getattr(node, "lineno", 0)
        self.col = getattr(node, "col_offset", -1) + 1
        self.detail = detail

    def key(self):
        return (self.rule, self.line, self.col)


class Analyzer:
    def __init__(self, tree, allow):
        self.tree = tree
        self.allow = allow
        self.imports = {}          # local name -> qualified module path (module scope)
        self.module_values = {}    # module-level name -> qualified name (aliases like T = torch)
        self.module_vars = set()   # module-level assigned names
        self.module_assigns = {}   # module-level name -> assigned value nodes
        self.bound = set()         # every name bound anywhere in the file
        self.reference_names = set()
        self.functions = {}        # module-level function name -> FunctionDef
        self.classes = {}          # class name -> ClassDef
        self.kernels = {}          # module-level kernel name -> FunctionDef
        self.kernel_nodes = set()  # ids of kernel functions
        self.kernel_defs = []      # (name, FunctionDef), each kernel once
        self.findings = []
        self.parents = {}
        self.skip_nodes = set()    # nodes inside reference copies
        self.on_path_try = set()
        self.seen = set()
        self.held_seen = set()
        self.fns = []
        self._attrs_cache = {}
        self._walk_cache = {}
        self._scope_cache = {}
        self._chain_cache = {}

    def nodes(self, root):
        """ast.walk(root) as a list, computed once per subtree (the rules walk the same trees often)."""
        cached = self._walk_cache.get(id(root))
        if cached is None:
            cached = self._walk_cache[id(root)] = list(ast.walk(root))
        return cached

    # ---- name resolution -------------------------------------------------------------------
    def resolve(self, node, scope=None):
        if isinstance(node, ast.Name):
            if scope is not None and node.id in scope:
                return scope[node.id]
            if node.id in self.imports:
                return self.imports[node.id]
            if node.id in self.module_values:
                return self.module_values[node.id]
            if node.id not in self.bound:
                return INTERPRETER_GLOBALS.get(node.id, "")
            return ""
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value, scope)
            return step(base, node.attr) if base else ""
        recv, literal = const_getattr(node)
        if recv is not None:
            base = self.resolve(recv, scope)
            return step(base, literal) if base else ""
        return ""

    def _bind_import(self, stmt, table):
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.asname:
                    table[a.asname] = canonical(a.name)
                else:
                    root = a.name.split(".")[0]
                    table[root] = root
        elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            for a in stmt.names:
                if a.name != "*":
                    table[a.asname or a.name] = canonical(stmt.module + "." + a.name)

    def kernel_from_call(self, v):
        if not isinstance(v, ast.Call) or not v.args:
            return None
        callee = v.func.func if isinstance(v.func, ast.Call) else v.func
        if self.resolve(callee) not in TRITON_DECORATORS:
            return None
        a = v.args[0]
        if isinstance(a, ast.Name):
            f = self.functions.get(a.id)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return f
        return self.kernel_from_call(a)

    def add_kernel(self, name, fn):
        if id(fn) not in self.kernel_nodes:
            self.kernel_nodes.add(id(fn))
            self.kernel_defs.append((fn.name, fn))
        if name:
            self.kernels[name] = fn

    def collect(self):
        for node in self.nodes(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        # Imports anywhere (inside functions too) count as module bindings for resolution.
        for node in self.nodes(self.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._bind_import(node, self.imports)
                if isinstance(node, ast.ImportFrom):
                    root = (node.module or "").split(".")[0]
                    for a in node.names:
                        if a.name == "Model" and root not in ("torch", "triton"):
                            self.reference_names.add(a.asname or a.name)
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self.bound.add(node.id)
            elif isinstance(node, ast.arg):
                self.bound.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound.add(node.name)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.bound.add(node.name)
        self.bound.update(self.imports)
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[stmt.name] = stmt
            elif isinstance(stmt, ast.ClassDef):
                self.classes[stmt.name] = stmt
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda):
                    for t in stmt.targets:
                        if isinstance(t, ast.Name):
                            self.functions[t.id] = stmt.value
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    for n in self.nodes(t):
                        if isinstance(n, ast.Name):
                            self.module_vars.add(n.id)
                    if isinstance(t, ast.Name) and stmt.value is not None:
                        self.module_assigns.setdefault(t.id, []).append(stmt.value)
        if "Model" in self.classes:
            self.reference_names.add("Model")

        def scan(body, module_level):
            for stmt in body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._is_kernel(stmt):
                    self.add_kernel(stmt.name if module_level else "", stmt)
                elif isinstance(stmt, ast.Assign):
                    fn = self.kernel_from_call(stmt.value)
                    if fn is not None:
                        for t in stmt.targets:
                            self.add_kernel(t.id if module_level and isinstance(t, ast.Name) else "", fn)
        scan(self.tree.body, True)
        for c in self.classes.values():
            scan(c.body, False)
        # Kernels in nested scopes (a factory function, __init__, a class inside a class), known by
        # their def name wherever it is read.
        self.file_class_names = set()
        for n in self.nodes(self.tree):
            if isinstance(n, ast.ClassDef):
                self.file_class_names.add(n.name)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(n) not in self.kernel_nodes \
                    and self._is_kernel(n):
                self.add_kernel(n.name, n)
        for _ in range(4):  # aliases of aliases
            for stmt in self.tree.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], ast.Name) and stmt.value is not None:
                    q = self.resolve(stmt.value)
                    if q:
                        self.module_values[stmt.targets[0].id] = q
                    elif isinstance(stmt.value, ast.Name):
                        if stmt.value.id in self.kernels:
                            self.kernels[stmt.targets[0].id] = self.kernels[stmt.value.id]
                        if stmt.value.id in self.reference_names:
                            self.reference_names.add(stmt.targets[0].id)
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.ClassDef, ast.FunctionDef)) and stmt.name in REFERENCE_COPIES \
                    and stmt.name != "ModelNew":
                for n in self.nodes(stmt):
                    self.skip_nodes.add(n)

    def _is_kernel(self, fn):
        for d in fn.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            if self.resolve(target) in TRITON_DECORATORS:
                return True
        return False

    def is_kernel_node(self, fn):
        return id(fn) in self.kernel_nodes

    def is_reference_ref(self, n, scope=None):
        if isinstance(n, ast.Name):
            if not isinstance(n.ctx, ast.Load):
                return False
            if n.id in self.reference_names:
                return True
            if n.id not in self.imports:
                return False
        elif isinstance(n, ast.Attribute):
            if n.attr != "Model" or not isinstance(n.ctx, ast.Load):
                return False
        elif const_getattr(n)[1] != "Model":
            return False
        q = self.resolve(n, scope)
        return len(q) > 6 and q.endswith(".Model") and not rooted_at(q, "torch") and not rooted_at(q, "triton")

    def local_scope(self, fn):
        """Flow-insensitive aliases inside a function: x = torch.matmul, import ... as ...."""
        cached = self._scope_cache.get(id(fn))
        if cached is not None:
            return cached
        scope = self._scope_cache[id(fn)] = {}
        for node in self.nodes(fn):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._bind_import(node, scope)
        for node in self.nodes(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                q = self.resolve(node.value, scope)
                if q:
                    scope[node.targets[0].id] = q
        return scope

    def add(self, rule, node, detail=""):
        self.findings.append(Finding(rule, node, detail))

    # ---- class structure -------------------------------------------------------------------
    def class_chain(self, cls):
        """The class and its local bases (not the reference), nearest first."""
        cached = self._chain_cache.get(id(cls))
        if cached is not None:
            return cached
        chain, seen = [], set()
        self._chain_cache[id(cls)] = chain
        todo = [cls]
        while todo:
            c = todo.pop(0)
            if c.name in seen:
                continue
            seen.add(c.name)
            chain.append(c)
            for b in c.bases:
                if isinstance(b, ast.Name) and b.id in self.classes and b.id not in self.reference_names:
                    todo.append(self.classes[b.id])
        return chain

    def method(self, cls, name):
        for c in self.class_chain(cls):
            for stmt in c.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                    return stmt
        return None

    def self_attrs(self, cls):
        """self.X = value anywhere in the class (and local bases): X -> list of value nodes."""
        cached = self._attrs_cache.get(id(cls))
        if cached is not None:
            return cached
        attrs = self._attrs_cache[id(cls)] = {}
        for c in self.class_chain(cls):
            for node in self.nodes(c):
                targets = []
                if isinstance(node, ast.Assign):
                    targets = [(t, node.value) for t in node.targets]
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    targets = [(node.target, node.value)]
                for t, v in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        attrs.setdefault(t.attr, []).append(v)
                    if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple):
                        for te, ve in zip(t.elts, v.elts):
                            if isinstance(te, ast.Attribute) and isinstance(te.value, ast.Name) \
                                    and te.value.id == "self":
                                attrs.setdefault(te.attr, []).append(ve)
            for stmt in c.body:  # class attributes
                if isinstance(stmt, ast.Assign):
                    for t in stmt.targets:
                        if isinstance(t, ast.Name):
                            attrs.setdefault(t.id, []).append(stmt.value)
        return attrs

    def local_class(self, n):
        if isinstance(n, ast.Name) and n.id in self.classes and n.id not in self.reference_names:
            return self.classes[n.id]
        return None

    # ---- the analysis ----------------------------------------------------------------------
    def run(self):
        self.collect()
        if not self.kernel_nodes:
            self.add("syntax.no_triton_kernel", self.tree)
        model_new = self.classes.get("ModelNew")
        if model_new is None:
            self.add("syntax.no_modelnew", self.tree)
        else:
            self.check_model_new(model_new)
        self.import_time_and_kernels()
        self.file_wide()
        self.kernel_shapes()

    def check_model_new(self, cls):
        is_module = False
        for c in self.class_chain(cls):
            for b in c.bases:
                if self.is_reference_ref(b):
                    self.add("func.reference_model", b, "ModelNew subclasses Model")
                    is_module = True
                elif self.resolve(b) in ("torch.nn.Module", "torch.nn.modules.module.Module"):
                    is_module = True
        if not is_module:
            self.add("syntax.modelnew_not_module", cls)
        forward = self.method(cls, "forward")
        if forward is None:
            self.add("syntax.no_forward", cls)
            return
        for c in self.class_chain(cls):
            for stmt in c.body:
                for n in self.nodes(stmt):
                    if any(b is n for b in c.bases):
                        continue
                    if self.is_reference_ref(n):
                        self.add("func.reference_model", n, "ModelNew references Model")
        self.reachable(cls, forward)

    def _callable_targets(self, node, owner, scope):
        """Local functions/methods that a call target or function reference may denote."""
        out = []
        if isinstance(node, ast.Name):
            if scope is not None and node.id in scope:
                return out
            if node.id in self.functions:
                out.append((self.functions[node.id], None))
            elif self.local_class(node) is not None:
                c = self.classes[node.id]
                # every special method a helper may define (src/verify/subset_tables.h), then forward
                for m in ("__init__", "__call__", "__post_init__", "forward"):
                    f = self.method(c, m)
                    if f is not None:
                        out.append((f, c))
        elif isinstance(node, ast.Attribute):
            v = node.value
            if isinstance(v, ast.Name) and v.id in ("self", "cls") and owner is not None:
                f = self.method(owner, node.attr)
                if f is not None:
                    out.append((f, owner))
                else:
                    for val in self.self_attrs(owner).get(node.attr, []):
                        target = val.func if isinstance(val, ast.Call) else val
                        if isinstance(val, ast.Lambda):
                            out.append((val, owner))
                        elif self.local_class(target) is not None:
                            c = self.classes[target.id]
                            for m in ("__call__", "forward"):
                                f = self.method(c, m)
                                if f is not None:
                                    out.append((f, c))
                        elif isinstance(target, ast.Name) and target.id in self.functions:
                            out.append((self.functions[target.id], None))
            elif self.local_class(v) is not None:
                f = self.method(self.classes[v.id], node.attr)
                if f is not None:
                    out.append((f, self.classes[v.id]))
            elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super" \
                    and owner is not None:
                for c in self.class_chain(owner)[1:]:
                    f = self.method(c, node.attr)
                    if f is not None:
                        out.append((f, c))
                        break
            elif not self.resolve(v, scope):
                # obj.method on an unknown receiver: any local class method of that name.
                for c in self.classes.values():
                    if c.name in self.reference_names:
                        continue
                    for stmt in c.body:
                        if isinstance(stmt, ast.FunctionDef) and stmt.name == node.attr:
                            out.append((stmt, c))
        return out

    # ---- kernel values ---------------------------------------------------------------------
    def is_kernel_value(self, v, owner, local, depth=0):
        if v is None or depth > 6:
            return False
        if isinstance(v, ast.Name):
            if v.id in self.kernels or (local is not None and v.id in local):
                return True
            return any(not isinstance(val, ast.Name) and self.is_kernel_value(val, None, None, depth + 1)
                       for val in self.module_assigns.get(v.id, []))
        if isinstance(v, ast.Attribute):
            if v.attr in self.kernels and self.rooted_at_file_class(v.value):
                return True
            if not isinstance(v.value, ast.Name):
                return False
            if v.value.id in ("self", "cls") and owner is not None:
                cls = owner
            else:
                cls = self.local_class(v.value)
            if cls is None:
                return False
            m = self.method(cls, v.attr)
            if m is not None:
                return self.is_kernel_node(m)
            return any(self.is_kernel_value(val, cls, None, depth + 1)
                       for val in self.self_attrs(cls).get(v.attr, []))
        if isinstance(v, ast.IfExp):
            return self.is_kernel_value(v.body, owner, local, depth + 1) or \
                self.is_kernel_value(v.orelse, owner, local, depth + 1)
        if isinstance(v, ast.Subscript):
            return self.is_kernel_value(v.value, owner, local, depth + 1)
        if isinstance(v, ast.Dict):
            return any(self.is_kernel_value(x, owner, local, depth + 1) for x in v.values)
        if isinstance(v, (ast.List, ast.Tuple)):
            return any(self.is_kernel_value(x, owner, local, depth + 1) for x in v.elts)
        return self.kernel_from_call(v) is not None or self.returns_kernel(v, depth)

    def rooted_at_file_class(self, n):
        while isinstance(n, ast.Attribute):
            n = n.value
        return isinstance(n, ast.Name) and (n.id in ("self", "cls") or n.id in self.file_class_names)

    def returns_kernel(self, v, depth):
        """make_kernel(): a call of a module function that returns a kernel value."""
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)):
            return False
        f = self.functions.get(v.func.id)
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) or self.is_kernel_node(f):
            return False
        return any(isinstance(n, ast.Return) and self.is_kernel_value(n.value, None, None, depth + 1)
                   for n in self.nodes(f))

    def iterates_kernels(self, v, owner, local):
        """zip(...), enumerate(...) and the like over a kernel value."""
        return isinstance(v, ast.Call) and isinstance(v.func, ast.Name) \
            and v.func.id in ("zip", "enumerate", "reversed", "list", "tuple", "sorted") \
            and any(self.is_kernel_value(a, owner, local) for a in v.args)

    def is_partial_of_launcher(self, v, owner, local):
        return isinstance(v, ast.Call) and self.resolve(v.func) == "functools.partial" and bool(v.args) \
            and isinstance(v.args[0], ast.Subscript) and self.is_kernel_value(v.args[0], owner, local)

    def find_launches(self, fn, owner, facts):
        local, launchers = set(), set()
        params = set(params_of(fn))
        for _ in range(2):
            for n in self.nodes(fn):
                if isinstance(n, ast.Assign) and len(n.targets) == 1:
                    target, value = n.targets[0], n.value
                elif isinstance(n, ast.For):
                    target, value = n.target, n.iter
                else:
                    continue
                if isinstance(target, ast.Tuple) and isinstance(n, ast.For) \
                        and (self.is_kernel_value(value, owner, local) or self.iterates_kernels(value, owner, local)):
                    local.update(e.id for e in ast.walk(target) if isinstance(e, ast.Name))
                if isinstance(target, ast.Name) and isinstance(n, ast.Assign) \
                        and self.is_partial_of_launcher(value, owner, local):
                    launchers.add(target.id)
                if isinstance(target, ast.Name) and self.is_kernel_value(value, owner, local):
                    local.add(target.id)
                    if isinstance(value, ast.Subscript) and isinstance(n, ast.Assign):
                        launchers.add(target.id)
        for n in self.nodes(fn):
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            if isinstance(f, ast.Subscript):
                if self.is_kernel_value(f.value, owner, local):
                    facts["direct"] = True
                if self.holds_param(f.value, owner, params):
                    facts["through_param"] = True
            elif isinstance(f, ast.Name) and f.id in launchers:
                facts["direct"] = True
            elif isinstance(f, ast.Attribute) and f.attr == "run" and self.is_kernel_value(f.value, owner, local):
                if any(k.arg == "grid" for k in n.keywords):
                    facts["direct"] = True
            if any(self.is_kernel_value(a, owner, local) for a in n.args) or \
                    any(self.is_kernel_value(k.value, owner, local) for k in n.keywords):
                facts["kernel_passed"] = True

    def holds_param(self, v, owner, params):
        if isinstance(v, ast.Name):
            return v.id in params
        if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) \
                and v.value.id not in ("self", "cls") and v.value.id not in self.imports \
                and v.value.id not in self.module_vars and v.value.id not in self.file_class_names:
            return True  # o.k[grid](...): an object handed a kernel (a dataclass field)
        if not (isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self") \
                or owner is None:
            return False
        return any(isinstance(val, ast.Name) and val.id not in self.kernels and val.id not in self.module_vars
                   and val.id not in self.imports for val in self.self_attrs(owner).get(v.attr, []))

    def kernels_passed_in(self, val, owner, facts):
        for n in self.nodes(val):
            if isinstance(n, ast.Call) and (any(self.is_kernel_value(a, owner, None) for a in n.args) or
                                            any(self.is_kernel_value(k.value, owner, None) for k in n.keywords)):
                facts["kernel_passed"] = True

    # ---- reachability ----------------------------------------------------------------------
    def traverse(self, work, facts):
        while work:
            fn, owner = work.pop()
            if id(fn) in self.seen:
                continue
            self.seen.add(id(fn))
            if self.is_kernel_node(fn):
                self.kernel_callees(fn, work)
                continue
            self.fns.append((fn, owner))
            if facts is not None:
                self.find_launches(fn, owner, facts)
            scope = self.local_scope(fn)
            for n in self.nodes(fn):
                if not is_load_ref(n):
                    continue
                for t in self._callable_targets(n, owner, scope):
                    if t[0] is not fn:
                        work.append(t)
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
                        and n.value.id in ("self", "cls") and owner is not None \
                        and self.method(owner, n.attr) is None:
                    for val in self.self_attrs(owner).get(n.attr, []):
                        self.held_value(val, owner, work)
                        if facts is not None:
                            self.kernels_passed_in(val, owner, facts)

    def held_value(self, val, owner, work):
        if id(val) in self.held_seen:
            return
        self.held_seen.add(id(val))
        self.check_compute(val, val, owner, {}, False, False)
        for n in self.nodes(val):
            if isinstance(n, ast.Lambda):
                work.append((n, owner))
            elif is_load_ref(n):
                work.extend(self._callable_targets(n, owner, None))

    def kernel_callees(self, kernel, work):
        for n in self.nodes(kernel):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in self.functions \
                    and not self.is_kernel_node(self.functions[n.func.id]):
                work.append((self.functions[n.func.id], None))

    def reachable(self, model_new, forward):
        facts = {"direct": False, "through_param": False, "kernel_passed": False}
        self.traverse([(forward, model_new)], facts)
        launched = facts["direct"] or (facts["through_param"] and facts["kernel_passed"])
        if self.kernel_nodes and not launched:
            self.add("syntax.kernel_not_launched", forward)
        self.check_movement_answer(forward)

    def import_time_and_kernels(self):
        work = []

        def root(n, owner):
            self.check_compute(n, n, owner, {}, False, True)
            for sub in self.nodes(n):
                if isinstance(sub, ast.Lambda):
                    work.append((sub, owner))
                if is_load_ref(sub):
                    work.extend(self._callable_targets(sub, owner, None))

        def body(stmts, owner):
            for stmt in stmts:
                if stmt in self.skip_nodes:
                    continue
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for d in stmt.decorator_list:
                        root(d, owner)
                    for d in stmt.args.defaults:
                        root(d, owner)
                    for d in stmt.args.kw_defaults:
                        if d is not None:
                            root(d, owner)
                elif isinstance(stmt, ast.ClassDef):
                    for b in stmt.bases:
                        root(b, owner)
                    for k in stmt.keywords:
                        root(k.value, owner)
                    for d in stmt.decorator_list:
                        root(d, owner)
                    body(stmt.body, stmt)
                elif is_main_guard(stmt):
                    body(stmt.orelse, owner)
                else:
                    root(stmt, owner)
        body(self.tree.body, None)
        for _, kernel in self.kernel_defs:
            self.check_compute(kernel, kernel, None, self.local_scope(kernel), True, True)
            self.kernel_callees(kernel, work)
        for n in self.nodes(self.tree):
            if not isinstance(n, ast.Call) or n in self.skip_nodes:
                continue
            if isinstance(n.func, ast.Attribute) and n.func.attr == "add_pre_run_hook":
                for a in n.args:
                    self.held_value(a, None, work)
            for k in n.keywords:
                if k.arg in LAUNCH_HOOK_KEYWORDS:
                    self.held_value(k.value, None, work)
        self.traverse(work, None)
        for fn, owner in self.fns:
            self.check_reachable_fn(fn, owner)

    def _in_device_guard(self, node, fn):
        """True if node lies in a branch of an `if` whose test checks the device."""
        cur = node
        while cur is not None and cur is not fn:
            parent = self.parents.get(cur)
            if isinstance(parent, (ast.If, ast.IfExp)) and cur is not parent.test:
                for n in self.nodes(parent.test):
                    if isinstance(n, ast.Attribute) and n.attr in DEVICE_GUARD_ATTRS:
                        return True
            cur = parent
        return False

    def check_compute(self, root, fn, owner, scope, kernel, calls):
        for node in self.nodes(root):
            if calls and not kernel:
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                    self._compute(node, fn, "the @ operator")
                if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.MatMult):
                    self._compute(node, fn, "the @= operator")
            if calls and isinstance(node, ast.Call):
                self._check_call(node, fn, owner, scope, kernel)
            if kernel and isinstance(node, ast.Attribute) and node.attr == "handle":
                self.add("func.introspection", node, "interpreter internals (.handle) in a kernel body")
            if kernel and const_getattr(node)[1] == "handle":
                self.add("func.introspection", node, "interpreter internals (getattr .handle) in a kernel body")
            if not is_load_ref(node):
                continue
            parent = self.parents.get(node) if node is not root else None
            if isinstance(parent, ast.Attribute) or (isinstance(parent, ast.Call) and parent.func is node):
                continue
            if not kernel:
                self._check_compute_method_value(node, fn, owner, scope)
            q = self.resolve(node, scope)
            if q.startswith("torch.") and self._torch_banned(q) and not self._banned_rule(q):
                self._compute(node, fn, q)

    def _check_compute_method_value(self, node, fn, owner, scope):
        """A tensor compute method taken as a value, not called where it is written."""
        if isinstance(node, ast.Attribute):
            recv, method = node.value, node.attr
        else:
            recv, method = const_getattr(node)
        if recv is None or method not in self.allow["tensor_compute_methods"] or self.resolve(recv, scope):
            return
        if isinstance(recv, ast.Name) and recv.id in ("self", "cls"):
            return
        root = recv
        while isinstance(root, ast.Attribute):
            root = root.value
        if self.local_class(root) is not None or self._callable_targets(node, owner, scope):
            return
        self._compute(node, fn, "." + method + " taken as a value")

    def check_reachable_fn(self, fn, owner):
        scope = self.local_scope(fn)
        local_names = set()
        for node in self.nodes(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                local_names.add(node.id)
            elif isinstance(node, ast.arg):
                local_names.add(node.arg)
        globals_declared = set()
        for node in self.nodes(fn):
            if isinstance(node, ast.Global):
                globals_declared.update(node.names)
                self.add("func.global_state", node, "global statement")
            if isinstance(node, (ast.Try, ast.TryStar)):
                self.add("func.try_except", node)
                self.on_path_try.add(node)
            # Writes to module-level or class-level state.
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for t in targets:
                    self._check_store_target(t, fn, local_names, globals_declared)
            if self.is_reference_ref(node, scope):
                self.add("func.reference_model", node, "forward reaches Model")
        self.check_compute(fn, fn, owner, scope, False, True)

    def _check_store_target(self, t, fn, local_names, globals_declared):
        base = t
        while isinstance(base, (ast.Subscript, ast.Attribute)):
            if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) \
                    and base.value.id == "self":
                if getattr(fn, "name", "") != "__init__":
                    self.add("func.instance_state", t, "self." + base.attr)
                return
            base = base.value
        if isinstance(base, ast.Name):
            name = base.id
            if t is base:
                if name in globals_declared:
                    self.add("func.global_state", t, name)
                return
            if name in self.classes or (name in self.module_vars and name not in local_names) \
                    or name in globals_declared:
                self.add("func.global_state", t, name)

    def _torch_banned(self, q):
        allowed = self.allow["torch_functions"]
        if q in allowed:
            return False
        prefix, dot, member = q.rpartition(".")
        if not dot or prefix not in allowed:
            return True
        if member in self.allow["tensor_methods"]:
            return False
        if prefix in TENSOR_CLASSES:
            return True
        return member in self.allow["tensor_compute_methods"] or member in COLLIDING_COMPUTE_METHODS

    def _compute(self, node, fn, detail, rule="func.torch_compute"):
        if self._in_device_guard(node, fn):
            self.add("func.torch_fallback", node, detail)
        else:
            self.add(rule, node, detail)

    def _check_call(self, node, fn, owner, scope, kernel):
        func = node.func
        q = self.resolve(func, scope)
        if q:
            if q.startswith("torch.") and self._torch_banned(q) and not self._banned_rule(q):
                last = q.rsplit(".", 1)[-1]
                if q.startswith("torch.nn.") and not q.startswith("torch.nn.functional") and last[:1].isupper():
                    self._compute(node, fn, q, "func.nn_layer_call")
                else:
                    self._compute(node, fn, q)
            return
        if kernel:
            return
        attrs = self.self_attrs(owner) if owner is not None else {}

        def nn_value(val):
            target = val.func if isinstance(val, ast.Call) else val
            tq = self.resolve(target)
            return tq.startswith("torch.nn.") and tq not in self.allow["torch_functions"]
        # self.layer(x) where self.layer = nn.Something(...), or Model(...)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            for val in attrs.get(func.attr, []):
                target = val.func if isinstance(val, ast.Call) else val
                if nn_value(val):
                    self._compute(node, fn, "self." + func.attr, "func.nn_layer_call")
                if self.is_reference_ref(target):
                    self.add("func.reference_model", node, "calls a Model instance")
            return
        # self.layer.forward(x) / self.layers[0](x)
        inner = func
        if isinstance(inner, (ast.Subscript, ast.Attribute)) and \
                isinstance(inner.value, ast.Attribute) and isinstance(inner.value.value, ast.Name) \
                and inner.value.value.id == "self":
            for val in attrs.get(inner.value.attr, []):
                if nn_value(val) and (isinstance(inner, ast.Subscript) or inner.attr in ("forward", "__call__")):
                    self._compute(node, fn, "self." + inner.value.attr, "func.nn_layer_call")
        # Tensor-method forms: x.sum(), x.softmax(dim=1), getattr(x, "sum")()
        if isinstance(func, ast.Attribute):
            if func.attr in self.allow["tensor_compute_methods"] and not self._callable_targets(func, owner, scope):
                self._compute(node, fn, "." + func.attr + "()")
        else:
            recv, literal = const_getattr(func)
            if recv is not None and literal in self.allow["tensor_compute_methods"] \
                    and not self.resolve(recv, scope):
                self._compute(node, fn, "." + literal + "()")

    # ---- data movement that is the whole answer ---------------------------------------------
    def _chain_root(self, e):
        copies = False
        while True:
            if isinstance(e, ast.Call):
                if not isinstance(e.func, ast.Attribute) or e.func.attr not in self.allow["tensor_methods"]:
                    return None, copies
                if e.func.attr in MATERIALIZING_METHODS:
                    copies = True
                e = e.func.value
            elif isinstance(e, ast.Subscript):
                e = e.value
            elif isinstance(e, ast.Attribute) and e.attr == "T":
                e = e.value
            else:
                return (e if isinstance(e, ast.Name) else None), copies

    def check_movement_answer(self, forward):
        params = {p for p in params_of(forward) if p != "self"}
        fed, sources, returns = set(), {}, []
        for n in self.nodes(forward):
            if isinstance(n, ast.Return) and n.value is not None:
                returns.append(n)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                sources.setdefault(n.targets[0].id, []).append(n.value)
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            if isinstance(f, ast.Attribute) and f.attr == "copy_" and n.args and isinstance(f.value, ast.Name):
                sources.setdefault(f.value.id, []).append(n)
            if isinstance(f, ast.Attribute) and f.attr in self.allow["tensor_methods"]:
                continue
            for a in list(n.args) + [k.value for k in n.keywords]:
                for x in self.nodes(a):
                    if isinstance(x, ast.Name):
                        fed.add(x.id)

        def from_input(v, need_copy):
            r, copies = self._chain_root(v)
            return r is not None and r.id in params and (copies or not need_copy)
        for r in returns:
            root, copies = self._chain_root(r.value)
            if root is None:
                continue
            if root.id in params:
                if copies:
                    self.add("func.torch_compute", r, "data movement of an input is the output")
                continue
            if root.id in fed:
                continue
            for src in sources.get(root.id, []):
                copy_from_input = isinstance(src, ast.Call) and isinstance(src.func, ast.Attribute) \
                    and src.func.attr == "copy_" and from_input(src.args[0], False)
                if copy_from_input or from_input(src, True):
                    self.add("func.torch_compute", src, "data movement of an input is the output")

    def file_wide(self):
        for node in self.nodes(self.tree):
            skip = node in self.skip_nodes
            if isinstance(node, (ast.Try, ast.TryStar)) and node not in self.on_path_try:
                self.add("func.try_except_outside", node)
            if isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)):
                self.add("func.concurrency", node, "async")
            if isinstance(node, ast.ClassDef):
                for b in node.bases:
                    q = self.resolve(b)
                    if q in ("torch.Tensor", "torch._C.TensorBase", "torch._C._TensorBase", "torch.nn.Parameter",
                             "torch.nn.parameter.Parameter"):
                        self.add("func.tensor_subclass", b, q)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (
                    "__torch_function__", "__torch_dispatch__"):
                self.add("func.tensor_subclass", node, node.name)
            if isinstance(node, ast.Attribute):
                if node.attr.startswith("__") and node.attr.endswith("__") and len(node.attr) > 4 and \
                        node.attr not in ALLOWED_DUNDERS:
                    if node.attr in ("__torch_function__", "__torch_dispatch__"):
                        self.add("func.tensor_subclass", node, node.attr)
                    else:
                        self.add("func.introspection", node, node.attr)
                elif node.attr in FRAME_ATTRS:
                    self.add("func.introspection", node, node.attr)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in BUILTIN_RULES and node.id not in self.functions and node.id not in self.imports:
                    self.add(BUILTIN_RULES[node.id], node, node.id)
                if node.id == "__builtins__":
                    self.add("func.introspection", node, node.id)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ATTR_BUILTINS:
                name = node.args[1] if len(node.args) >= 2 else None
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)) or \
                        (name.value.startswith("__") and name.value.endswith("__") and len(name.value) > 4):
                    self.add("func.dynamic_attr", node, node.func.id)
                elif node.func.id in ("setattr", "delattr") and self.resolve(node.args[0]):
                    self.add("func.monkeypatch", node, node.func.id)
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for t in targets:
                    for sub in self.nodes(t):
                        if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                            q = self.resolve(sub)
                            if q.startswith("torch.backends") or q.startswith("torch.set_"):
                                self.add("func.global_flags", sub, q)
                            elif self.resolve(sub.value):
                                self.add("func.monkeypatch", sub, q)
            # Qualified references: banned prefixes, module allowlist.
            if is_load_ref(node):
                if isinstance(self.parents.get(node), ast.Attribute):
                    continue
                q = self.resolve(node)
                if not q:
                    continue
                rule = self._banned_rule(q)
                if rule:
                    self.add(rule, node, q)
                elif (not skip or rooted_at(q, "triton")) and not self._module_allowed(q):
                    self.add("func.module_not_allowed", node, q)
        # Imports of banned modules are reported even when unused.
        for node in self.nodes(self.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    ([node.module + "." + a.name for a in node.names] if node.module else [])
                for q in names:
                    rule = self._banned_rule(canonical(q))
                    if rule in ("func.native_code", "func.dynamic_code", "func.torch_compile"):
                        self.add(rule, node, q)

    def _banned_rule(self, q):
        parts = q.split(".")
        for i in range(1, len(parts) + 1):
            rule = _PREFIX_RULES.get(".".join(parts[:i]))
            if rule:
                return rule
        for prefix, rule in _OPEN_PREFIXES:
            if q.startswith(prefix):
                return rule
        return ""

    @staticmethod
    def _in_name_set(names, q):
        parts = q.split(".")
        return any(".".join(parts[:i]) in names for i in range(len(parts), 0, -1))

    def _module_allowed(self, q):
        if rooted_at(q, "triton"):
            return q == "triton" or self._in_name_set(self.allow["triton_names"], q)
        return self._in_name_set(self.allow["modules"], q)

    def kernel_shapes(self):
        for name, fn in self.kernel_defs:
            scope = self.local_scope(fn)
            loads = {}
            for node in self.nodes(fn):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    loads.setdefault(node.targets[0].id, []).append(node.value)
                elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                    loads.setdefault(node.target.id, []).append(node)  # arithmetic: never a copy
            stores = []
            other_work = False
            for node in self.nodes(fn):
                if isinstance(node, ast.Call):
                    q = self.resolve(node.func, scope)
                    if q in STORE_FUNCS and len(node.args) >= 2:
                        stores.append(node.args[1])
                    elif q.startswith("triton.language.atomic") or q in ("triton.language.dot",):
                        other_work = True
                    elif isinstance(node.func, ast.Name) and node.func.id in self.kernels:
                        other_work = True
            if not stores or other_work:
                continue
            if all(self._is_copy_value(v, loads, scope, 0) for v in stores):
                self.add("func.copy_only_kernel", fn, name)

    def _is_copy_value(self, v, loads, scope, depth):
        if depth > 8:
            return False
        if isinstance(v, ast.Constant):
            return True
        if isinstance(v, ast.Call):
            q = self.resolve(v.func, scope)
            if q in LOAD_FUNCS or q in ("triton.language.zeros", "triton.language.full",
                                        "triton.language.zeros_like"):
                return True
            if isinstance(v.func, ast.Attribute) and v.func.attr == "to":
                return self._is_copy_value(v.func.value, loads, scope, depth + 1)
            return False
        if isinstance(v, ast.Name):
            if v.id not in loads:
                return False
            return all(self._is_copy_value(x, loads, scope, depth + 1) for x in loads[v.id])
        return False


def verify_code(code, allow, policy="standard"):
    """Returns a dict verdict with the same fields as the C++ ToJson (subset)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as e:
        return _verdict([Finding("syntax.parse_error", e)], [], policy)
    an = Analyzer(tree, allow)
    an.run()
    return _verdict(an.findings, [], policy)


def _verdict(findings, _unused, policy):
    violations, warnings = [], []
    seen = set()
    for f in sorted(findings, key=lambda f: (f.line, f.col, f.rule)):
        if f.key() in seen:
            continue
        seen.add(f.key())
        if f.rule in WARN_ONLY or (policy == "standard" and f.rule in STRICT_ONLY):
            warnings.append(f)
        else:
            violations.append(f)
    syntax_ok = not any(f.rule.startswith("syntax.") for f in violations)
    func_ok = not any(f.rule.startswith("func.") for f in violations)
    outcome = "valid" if syntax_ok and func_ok else ("invalid_syntax" if not syntax_ok else "invalid_functionality")
    return {
        "valid": syntax_ok and func_ok, "syntax_ok": syntax_ok, "functionality_ok": func_ok, "outcome": outcome,
        "violations": [{"rule": f.rule, "line": f.line, "col": f.col, "message": MESSAGES[f.rule]} for f in violations],
        "warnings": [{"rule": f.rule, "line": f.line, "col": f.col, "message": MESSAGES[f.rule]} for f in warnings],
    }


_THINK = re.compile(r"<think>(.*?)</think>", re.S)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.S)


if __name__ == "__main__":
    import sys
    allow = load_allowlist()
    for path in sys.argv[1:]:
        v = verify_code(pathlib.Path(path).read_text(), allow)
        print(path, v["outcome"], [(x["rule"], x["line"]) for x in v["violations"]],
              [(x["rule"], x["line"]) for x in v["warnings"]])
