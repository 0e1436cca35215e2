"""Run-time guards of a candidate worker that do not rely on Python state the
candidate can rewrite unnoticed (docs/eval.md, "Threat model").

Installed by the trusted worker code BEFORE the candidate file is imported:

* an audit hook (``sys.addaudithook``, never removable) that records the audit events whose
  nearest Python frame is the candidate's code and that reach frames (``tb_frame``, ``gi_frame``,
  ``sys._getframe``), the heap, native memory or new code (refused too), or the system (files,
  processes, network: the sandbox decides), without a call the monitor sees;
* an integrity snapshot of the runner's modules and classes (``CallMonitor.protect``): a name
  rebound in them is internal access; a dict watcher counts their changes, so the comparison
  runs only after one;
* ``ban_threads`` adds a seccomp filter (to every thread, with TSYNC) that
  refuses ``clone`` with ``CLONE_THREAD``: from then on no thread can be
  started, so no work runs where a thread-local audit would not see it. The
  kernel enforces it and a filter can never be removed. Only on the CPU: CUDA
  and the profiler start threads lazily on a GPU.
* ``CallMonitor`` receives a ``sys.monitoring`` CALL event for every call made
  from code that is not in the trusted library folders (default deny: the
  candidate file, kernel bodies rewritten by the interpreter, lambdas, grid
  callables, hooks, code of unknown origin), in every thread, before the callee
  runs. It classifies the callee: internals (``torch._C``, private torch
  modules, ``sys``, ``gc``, ``inspect``, ``ctypes``, ``threading``, ``time``,
  ``exec``/``eval``/``compile``/``__import__``, the evaluator's own modules) at any time after the import
  started; host compute (numpy, torch functions outside the allowlist, tensor
  methods outside it, ``tolist``/``numpy``/``apply_``, many ``.item()``) while
  a forward call runs or in any other thread. A call that would switch the
  monitor off is itself recorded first.
* the same tool counts the candidate's host steps in each forward call: every
  backward jump (a loop's next iteration, in a comprehension or generator too)
  and every start of one of its functions (a call, recursion, a callback C
  makes), outside kernel bodies the interpreter runs. The engine decides what
  the count means (src/eval/proof_of_work.cpp); no syntax can hide a loop from it.

What this cannot prove, and why it is still worth having, is in docs/eval.md.
Called only from the worker's main thread; nothing here survives the process.
"""

from __future__ import annotations

import ctypes
import functools
import operator
import os
import platform
import struct
import sys
import threading
import time
import types

_TOOL_ID = 4  # a free sys.monitoring tool id (0-5; 2 is the profilers', 5 optimizers')
_ITEM_LIMIT = 16  # .item() calls per forward that still count as scalar bookkeeping

# Modules (first component) whose callables are internals a candidate has no business calling.
_INTERNAL_MODULES = frozenset({
    "sys", "gc", "inspect", "ctypes", "_ctypes", "threading", "_thread", "time", "importlib",
    "marshal", "pickle", "_pickle", "multiprocessing", "concurrent", "asyncio", "signal", "os",
    "posix", "weakref", "_weakref", "sysconfig", "site", "runpy", "dis", "subprocess",
    "_posixsubprocess", "socket", "_socket", "resource", "mmap", "faulthandler", "tracemalloc",
    "pathlib", "shutil", "tempfile", "io", "_io", "glob", "zipimport", "pkgutil",
    # stdlib modules that hand out frames or run code on request
    "traceback", "pdb", "bdb", "code", "codeop", "cProfile", "profile", "trace",
    # the evaluator itself: the worker script (__main__ in a cold worker), its modules
    "tritonrl_runner", "__main__"})
_INTERNAL_BUILTINS = frozenset({"exec", "eval", "compile", "__import__", "breakpoint", "open",
                                "globals", "vars", "locals", "input", "memoryview",
                                # every class (the runner's among them), an object's state
                                "__subclasses__", "__reduce_ex__", "__reduce__", "__getstate__"})
# Tensor methods that compute on the host without dispatching an ATen op.
_HOST_TENSOR_METHODS = frozenset({"tolist", "numpy", "__array__", "apply_", "map_", "map2_",
                                  "storage", "untyped_storage", "_typed_storage", "__dlpack__",
                                  "__reduce_ex__"})
# torch constructors from a Python scalar (bookkeeping, not compute).
_SCALAR_CTORS = frozenset({"tensor", "as_tensor", "scalar_tensor"})

# Builtins that take one element of a tensor to the host (as .item() does).
_SCALAR_BUILTINS = frozenset({"float", "int", "bool", "complex", "range"})
# Builtins that read every element of a tensor (or of a list of 0-d tensors) from C in one call.
_BYTE_BUILTINS = frozenset({"bytes", "bytearray", "memoryview"})

# Audit events (sys.addaudithook) whose nearest Python frame is the candidate's code: they reach
# frames, the heap, native memory or new code without a call the monitor sees (an attribute read
# such as ``tb_frame``, or an internal run by a builtin on the candidate's behalf, as in
# ``operator.methodcaller("_getframe")(sys)``). Refused (InternalAccessRefused raised into the
# candidate's code, so it never holds the object) and recorded.
_AUDIT_REFUSED = ("sys.", "gc.", "ctypes.", "code.__new__", "function.__new__", "exec", "compile",
                  "marshal.", "pickle.", "cpython.")
# System access (files, processes, network, signals): the sandbox decides what happens (and the
# fault corpus proves it does); the hook records it as internal access, also when a builtin runs
# the call for the candidate (``sorted(xs, key=os.listdir)``).
_AUDIT_RECORDED = ("os.", "open", "subprocess.", "socket.", "shutil.", "tempfile.", "mmap.",
                   "resource.", "signal.", "glob.", "fcntl.", "syslog.", "urllib.", "http.", "ftplib.",
                   "smtplib.", "sqlite3.", "builtins.input", "time.sleep", "shelve.", "dbm.", "webbrowser.")
# Attributes whose read hands out a frame (the audit event object.__getattr__).
_FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
# Attributes whose write changes what a function runs (object.__setattr__).
_CODE_ATTRS = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__class__", "__bases__"})


class CallMonitor:
    def __init__(self, trusted_roots: list[str], allowlist_path: str) -> None:
        import json

        import torch

        with open(allowlist_path, encoding="utf-8") as f:
            allowlist = json.load(f)

        self._torch = torch
        self._tensor_base = torch._C.TensorBase
        # Triton's tensor: under the CPU interpreter a kernel's values are these, each backed by a
        # numpy array, so int(), float(), operator.index() and math.* of one in a plain function a
        # kernel calls read a value to the host as .item() does (the compiled path refuses such a
        # call). Reads of one in the candidate's code count against the same limit.
        try:
            import triton.language as tl

            self._triton_tensor = tl.tensor
        except Exception:  # noqa: BLE001 - no Triton: torch's tensors only
            self._triton_tensor = None
        self.trusted_roots = tuple(os.path.realpath(r) + os.sep for r in trusted_roots)
        self.allowed_torch = frozenset(allowlist.get("torch_functions", []))
        self.allowed_methods = frozenset(allowlist.get("tensor_methods", []))
        self.main_thread = threading.get_ident()
        self.forward = False  # a forward call of the candidate is running (main thread)
        self.armed = False  # the candidate's import started
        self.candidate_file = ""
        self.internal: list[str] = []
        self.host: list[str] = []
        self.items = 0
        self.pending_read = None  # the tensor whose value read a CALL event already counted
        self.steps = 0  # the candidate's host steps in the current forward call (see _make_step_counter)
        self.building = False  # the candidate's import or constructor runs (steps counted too)
        # Whether a kernel body runs under the interpreter (set by hooks.LaunchRecorder): its
        # code is the candidate's, but it is the kernel's work, not the host's.
        self.in_kernel_body = lambda: False
        self._trusted_code: dict = {}
        self._snapshot: list = []
        self._watch = None  # the dict watcher on the protected namespaces (protect)
        self._watch_seen = -1
        self._mon = sys.monitoring
        # Time spent in the CALL callback while a forward call runs (the call window's own cost,
        # by a clock taken before the candidate is imported): the timing stage reports it per
        # timed call (timing.py, _AuditedCalls).
        self.audit_ns = 0
        # The callback and the audit hook are closures over the original functions: a candidate
        # that rebinds CallMonitor's or this module's names (a store, which no monitor sees)
        # changes nothing they run; their own code and defaults cannot be rewritten unaudited.
        self._callback = _make_callback(self, CallMonitor.classify, CallMonitor._is_trusted, _line_of,
                                        CallMonitor._check_intact)
        # Tensor dunders that read values when C calls them for the candidate's code (a list
        # indexed by a 0-d tensor, f"{t}", "%s" % t, format(t), range(t)): no CALL event fires.
        self._value_reads = _watch_value_reads(self, torch.Tensor, CallMonitor._is_trusted, _line_of)
        self._on_jump, self._on_start = _make_step_counter(self, CallMonitor._is_trusted)
        mon = self._mon
        self._events = mon.events.CALL | mon.events.JUMP | mon.events.PY_START
        mon.use_tool_id(_TOOL_ID, "tritonrl")
        mon.register_callback(_TOOL_ID, mon.events.CALL, self._callback)
        mon.register_callback(_TOOL_ID, mon.events.JUMP, self._on_jump)
        mon.register_callback(_TOOL_ID, mon.events.PY_START, self._on_start)
        mon.set_events(_TOOL_ID, self._events)
        sys.addaudithook(_make_audit_hook(self, CallMonitor._is_trusted, _line_of))

    def intact(self) -> bool:
        mon = self._mon
        tensor = self._torch.Tensor
        ev = mon.events
        return (mon.get_tool(_TOOL_ID) == "tritonrl" and mon.get_events(_TOOL_ID) == self._events
                and mon.register_callback(_TOOL_ID, ev.CALL, self._callback) is self._callback
                and mon.register_callback(_TOOL_ID, ev.JUMP, self._on_jump) is self._on_jump
                and mon.register_callback(_TOOL_ID, ev.PY_START, self._on_start) is self._on_start
                and all(vars(tensor).get(n) is w for n, w in self._value_reads.items()))

    def protect(self, namespaces) -> None:
        """Remember the trusted namespaces (the runner's modules and their classes) as they are
        before the candidate is imported: a name rebound in one of them later (a store into a
        module or class, which neither the monitor nor the audit hook sees) is reported as
        internal access at the next call the candidate makes, and at the start and end of each
        forward call."""
        watch = _DictWatcher.shared()  # made first: it is state of a protected class
        snap = []

        def add(name, live):
            snap.append((name, live, tuple(live), tuple(live.values())))

        for ns in namespaces:
            d = vars(ns)
            add(getattr(ns, "__name__", "?"), d)
            for value in list(d.values()):
                if isinstance(value, type) and value.__module__ == getattr(ns, "__name__", None):
                    add(f"{ns.__name__}.{value.__name__}", vars(value))
        if watch is not None and not all(watch.watch(live) for _, live, _, _ in snap):
            watch = None  # compare at every check
        self._watch = watch
        self._watch_seen = -1  # the first check compares
        self._snapshot = snap

    def _check_intact(self, _is=operator.is_) -> None:
        """It runs at every call the candidate's code makes in forward. It compares only when a
        protected dict changed since the last check (the dict watcher counts every store,
        deletion and clear in them, whoever makes it), else it costs one comparison of two
        ints; without a watcher it compares every time. The comparison: the same names, in the
        same order, bound to the same objects (a name deleted and bound again counts as
        rebound)."""
        watch = self._watch
        if watch is not None:
            changes = watch.changes[0]
            if changes == self._watch_seen:
                return
            self._watch_seen = changes
        for name, live, keys, values in self._snapshot:
            try:
                same = (len(live) == len(keys) and all(map(_is, live, keys))
                        and all(map(_is, live.values(), values)))
            except RuntimeError:  # changed while it was read
                same = False
            if not same:
                saved = dict(zip(keys, values))
                changed = sorted(k for k in set(live) | set(saved) if live.get(k) is not saved.get(k))
                what = ",".join(changed)[:80] if changed else "(a name deleted and bound again)"
                where = f"evaluator state rebound: {name}.{what}"
                if where not in self.internal and len(self.internal) < 32:
                    self.internal.append(where)

    def start_call(self) -> None:
        self.host, self.items, self.steps = [], 0, 0
        self._check_intact()
        self.forward = True

    def stop_call(self) -> None:
        self.forward = False
        self._check_intact()

    def start_build(self) -> None:
        """The import or the constructor starts: its host steps are counted as a call's (a table
        computed there is kept for every call, hacks/hc6_ctor_repeated_addition_tanh)."""
        self.steps = 0
        self.building = True

    def stop_build(self) -> int:
        self.building = False
        return self.steps

    def _is_trusted(self, code) -> bool:
        """Code from a file in the trusted folders, or with a synthetic file name (namedtuple,
        dataclass and other library templates: new code of the candidate's own needs exec or
        compile, which are refused at its call site). Everything else is the candidate's: its
        file, kernel bodies the interpreter rewrote (compiled under the candidate's file
        name), files it wrote and imported."""
        known = self._trusted_code.get(code)
        if known is None:
            f = code.co_filename
            if f == self.candidate_file:
                known = False
            elif f.startswith("<") or not os.path.isabs(f) or not os.path.exists(f):
                known = True
            else:
                known = os.path.realpath(f).startswith(self.trusted_roots)
            self._trusted_code[code] = known
        return known

    def classify(self, c, arg0, compute: bool, _partial=functools.partial, _module_type=types.ModuleType,
                 _internal_modules=_INTERNAL_MODULES, _internal_builtins=_INTERNAL_BUILTINS,
                 _host_methods=_HOST_TENSOR_METHODS, _scalar_ctors=_SCALAR_CTORS, _item_limit=_ITEM_LIMIT,
                 _scalar_builtins=_SCALAR_BUILTINS):
        """("internal" | "host", name) for a callee the policy refuses, else None. The module's
        tables are bound as defaults: rebinding the module's names does not change them."""
        for _ in range(8):  # what a wrapper will call: a partial's function, f.__call__'s f
            if isinstance(c, _partial):
                c = c.func
            elif getattr(c, "__name__", None) == "__call__" and callable(getattr(c, "__self__", None)) \
                    and not isinstance(c.__self__, type):
                c = c.__self__
            else:
                break
        if isinstance(c, str):
            return ("host", f"'{c}' by name") if compute and c in _host_methods else None
        torch = self._torch
        if not callable(c) or isinstance(c, torch.Tensor):
            return None
        objclass = getattr(c, "__objclass__", None)
        owner = getattr(c, "__self__", None)
        name = getattr(c, "__name__", "") or ""
        # Tensor methods: unbound (Tensor.tolist) or bound (x.tolist).
        if (isinstance(objclass, type) and issubclass(objclass, self._tensor_base)) or (
                isinstance(owner, torch.Tensor) and not isinstance(c, type)):
            if name in _host_methods:
                return "host", f"Tensor.{name}"
            if not compute or name.startswith("__"):
                return None
            if name == "item":
                self.items += 1
                return ("host", "Tensor.item (per-element loop)") if self.items > _item_limit else None
            return None if name in self.allowed_methods else ("host", f"Tensor.{name}")
        module = getattr(c, "__module__", None)
        if not isinstance(module, str):
            module = owner.__name__ if isinstance(owner, _module_type) else (type(c).__module__ or "")
        top = module.split(".", 1)[0]
        if compute and (top == "math" or (module == "builtins" and name in _BYTE_BUILTINS)) and (
                type(arg0) in (list, tuple) and any(isinstance(v, torch.Tensor) for v in arg0)
                or module == "builtins" and isinstance(arg0, torch.Tensor)):
            # math.fsum(t.unbind()), bytes(t): every element read in C by one call (issue 34)
            return "host", f"{name} over tensor elements"
        if compute and name == "Size" and top == "torch" and isinstance(arg0, torch.Tensor):
            return "host", "torch.Size of a tensor's values"
        reads_one = ((module == "builtins" and name in _scalar_builtins) or top == "math"
                     or (top in ("operator", "_operator") and name == "index"))
        triton_value = self._triton_tensor is not None and isinstance(arg0, self._triton_tensor)
        if reads_one and (isinstance(arg0, torch.Tensor) or (triton_value and name != "range")):
            # float(t), int(t), math.exp(t): one element to the host, like .item()
            if not compute:
                return None
            self.items += 1
            self.pending_read = arg0  # counted here: the dunder it calls next is not counted again
            return ("host", f"{name}(tensor) (per-element loop)") if self.items > _item_limit else None
        if module == "builtins":
            return ("internal", name) if name in _internal_builtins else None
        if top in _internal_modules:
            return "internal", f"{module}.{name}"
        if top == "numpy" or type(owner).__module__.split(".", 1)[0] == "numpy":
            return ("host", f"numpy.{name}") if compute else None
        if top != "torch":
            return None
        if any(p.startswith("_") and not p.startswith("__") for p in module.split(".") + [name]) and \
                not module.startswith("torch._tensor"):
            return "internal", f"{module}.{name}"
        if not compute:
            return None
        full = f"torch.{name}" if module in ("torch", "torch.functional") else f"{module}.{name}"
        if name in _scalar_ctors and module in ("torch", "torch.functional"):
            # Bookkeeping only from a tensor, or from a few Python scalars (torch.tensor([n])):
            # their number counts with the call's device reads against one budget of _item_limit a
            # forward call, so neither a long list nor many short ones bring values computed on
            # the host in (issue 34).
            exact = type(arg0)
            if isinstance(arg0, torch.Tensor):
                return None
            scalars = 1 if exact in (int, float, bool) else (
                len(arg0) if exact in (list, tuple) and all(type(v) in (int, float, bool) for v in arg0)
                else None)
            what = f"{full} of a {exact.__name__}" + (f" of {len(arg0)}" if exact in (list, tuple) else "")
            if scalars is None:
                return "host", what
            self.items += scalars
            if self.items <= _item_limit:
                return None
            return "host", f"{what}: more than {_item_limit} values made on the host in one call"
        if full in self.allowed_torch or f"torch.{name}" in self.allowed_torch:
            return None
        return "host", full


class _DictWatcher:
    """A CPython dict watcher (``PyDict_AddWatcher``, 3.12) that counts every event in the dicts
    it watches: a store, a deletion, a clear, a copy into one, its deallocation. The
    interpreter calls it from inside the change, before it happens, whoever makes it (a
    ``STORE_GLOBAL``, ``setattr`` on a module or class, ``vars(m).update``, C code), so a check
    that finds the count unchanged knows that no watched dict changed. One for the process
    (an interpreter has 8 watcher ids; tests build many monitors), made before the candidate is
    imported; nothing the candidate may call removes it (ctypes and ``sys`` are refused)."""

    _instance = None

    @classmethod
    def shared(cls) -> "_DictWatcher | None":
        """The process's watcher, None where the C API is missing or its ids are taken."""
        if cls._instance is None:
            try:
                cls._instance = cls()
            except (AttributeError, OSError, ValueError, MemoryError):  # MemoryError: no closure
                return None
        return cls._instance

    def __init__(self) -> None:
        import atexit

        api = ctypes.pythonapi
        # The dict and the key as plain addresses: a deallocation event must not take a
        # reference to a dict that is going away.
        callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                         ctypes.c_void_p)
        changes = self.changes = [0]

        def on_event(event, mapping, key, value):
            changes[0] += 1
            return 0

        self._callback = callback_type(on_event)  # kept alive as long as the watcher is
        add, self._watch, clear = api.PyDict_AddWatcher, api.PyDict_Watch, api.PyDict_ClearWatcher
        add.argtypes, add.restype = [callback_type], ctypes.c_int
        self._watch.argtypes, self._watch.restype = [ctypes.c_int, ctypes.py_object], ctypes.c_int
        clear.argtypes, clear.restype = [ctypes.c_int], ctypes.c_int
        self.id = add(self._callback)  # raises ValueError when no id is free
        # Removed before the interpreter tears its modules down (their dicts' deallocation
        # events would reach a callback already freed); a worker leaves by os._exit instead.
        atexit.register(clear, self.id)

    def watch(self, mapping) -> bool:
        """Watch the dict behind `mapping` (a module's dict, or a class's mappingproxy)."""
        import gc

        if not isinstance(mapping, dict):
            inner = [d for d in gc.get_referents(mapping) if isinstance(d, dict)]
            if len(inner) != 1:
                return False
            mapping = inner[0]
        try:
            return self._watch(self.id, mapping) == 0
        except (OSError, ValueError):
            return False


class InternalAccessRefused(PermissionError):
    """Raised into the candidate's code by the audit hook; the engine reads an error of this type
    as internal access (the record is also in the monitor's list, should the candidate catch it)."""


class HostComputeRefused(PermissionError):
    """Raised into the candidate's code at a per-element host call past the limit: such a loop
    over a GPU tensor syncs once per element and would run into the stage's time limit, hiding
    the reason. The engine reads an error of this type as host compute (the record is also in
    the monitor's list, and every later such call raises again, should the candidate catch it)."""


def _make_callback(monitor, classify, is_trusted, line_of, check_intact):
    """The sys.monitoring CALL callback (see CallMonitor)."""
    mon = sys.monitoring
    disable = mon.DISABLE
    get_ident = threading.get_ident
    clock = time.perf_counter_ns
    per_element = "(per-element loop)"

    def on_call(code, offset, callee, arg0):
        stop = None
        t0 = clock()
        try:
            if is_trusted(monitor, code):
                return disable
            if not monitor.armed:
                return None
            compute = monitor.forward or get_ident() != monitor.main_thread
            if monitor.forward:
                check_intact(monitor)
            for c in (callee, arg0):
                verdict = classify(monitor, c, arg0 if c is callee else None, compute)
                if verdict is not None:
                    kind, name = verdict
                    where = f"{name} (line {line_of(code, offset)})"
                    target = monitor.internal if kind == "internal" else monitor.host
                    if len(target) < 32 and where not in target:
                        target.append(where)
                    if kind == "host" and name.endswith(per_element):
                        stop = where
        except Exception:  # noqa: BLE001 - the monitor's own failures must never break a call
            pass
        if monitor.forward:
            monitor.audit_ns += clock() - t0
        if stop is not None:
            raise HostComputeRefused(f"refused by the evaluator: {stop}")
        return None

    return on_call


def _make_step_counter(monitor, is_trusted):
    """The JUMP and PY_START callbacks that count the candidate's host steps while a forward call
    runs (CallMonitor.steps). A host table of n values needs about n steps however it is spelled
    (a loop, a comprehension, recursion, a callback handed to C); the static rule
    (func.subset_host_compute) reads the syntax, this count reads what ran. Trusted code and
    forward jumps are switched off where they are (sys.monitoring.DISABLE, per code location),
    so the libraries cost one event a location."""
    disable = sys.monitoring.DISABLE
    clock = time.perf_counter_ns

    def count():
        if monitor.forward or monitor.building:
            t0 = clock()
            if not monitor.in_kernel_body():
                monitor.steps += 1
            monitor.audit_ns += clock() - t0

    def on_jump(code, offset, destination):
        if destination > offset or is_trusted(monitor, code):
            return disable  # a forward jump repeats nothing
        count()
        return None

    def on_start(code, offset):
        if is_trusted(monitor, code):
            return disable
        count()
        return None

    return on_jump, on_start


# Tensor dunders C calls to read one value (counted like .item()), and those that render every
# value as text (host compute at once).
_VALUE_READ_DUNDERS = ("__index__", "__int__", "__float__", "__complex__")
_TEXT_READ_DUNDERS = ("__format__", "__repr__", "__str__")


def _watch_value_reads(monitor, tensor_cls, is_trusted, line_of) -> dict:
    """Wraps torch.Tensor's value-reading dunders so that a read made for the candidate's code
    during forward (or in another thread) is counted and classified as the monitor's CALL
    callback would: no sys.monitoring event fires when C calls a slot (``lst[t]``, ``f"{t}"``,
    ``range(t)``). The nearest Python frame when the slot runs is the one C runs for: the
    candidate's code, or torch's and Triton's own (trusted, not counted)."""
    getframe = sys._getframe
    get_ident = threading.get_ident
    wrappers = {}

    def judge(name, per_value, tensor, where):
        """(record, refuse) for one read the candidate's code caused."""
        if not per_value:
            return f"Tensor.{name} (every value as text) ({where})", False
        if monitor.pending_read is tensor:  # float(t): counted at the call already
            monitor.pending_read = None
            return None, False
        monitor.items += 1
        if monitor.items <= _ITEM_LIMIT:
            return None, False
        return f"Tensor.{name} (per-element loop) ({where})", True

    def make(name, orig, per_value):
        def read(self, *args):
            if monitor.armed and (monitor.forward or get_ident() != monitor.main_thread):
                frame = getframe(1)
                code, lasti = frame.f_code, frame.f_lasti
                del frame
                if not is_trusted(monitor, code):
                    record, refuse = judge(name, per_value, self, f"line {line_of(code, lasti)}")
                    if record is not None and len(monitor.host) < 32 and record not in monitor.host:
                        monitor.host.append(record)
                    if refuse:
                        raise HostComputeRefused(f"refused by the evaluator: {record}")
            return orig(self, *args)

        read.__name__ = read.__qualname__ = name
        return read

    for name in _VALUE_READ_DUNDERS + _TEXT_READ_DUNDERS:
        orig = getattr(tensor_cls, name)
        wrappers[name] = make(name, orig, name in _VALUE_READ_DUNDERS)
        setattr(tensor_cls, name, wrappers[name])
    return wrappers


def _make_audit_hook(monitor, is_trusted, line_of):
    """An audit hook (it can never be removed) that reports as internal access the audit events
    of _AUDIT_REFUSED and _AUDIT_RECORDED and the frame and code attributes when the nearest Python
    frame is the candidate's code, and refuses all but the recorded system events. The check is by event name first: most events (builtins.id,
    object.__getattr__ of __code__ from the libraries) cost one string test."""
    getframe = sys._getframe
    get_ident = threading.get_ident
    busy: set = set()
    refused, recorded, frame_attrs, code_attrs = _AUDIT_REFUSED, _AUDIT_RECORDED, _FRAME_ATTRS, _CODE_ATTRS

    def hook(event, args):
        if not monitor.armed:
            return
        if event == "object.__getattr__":
            if len(args) < 2 or args[1] not in frame_attrs:
                return
            refuse = True
        elif event == "object.__setattr__":
            if len(args) < 2 or args[1] not in code_attrs:
                return
            refuse = True
        elif event.startswith(refused):
            refuse = True
        elif event.startswith(recorded):
            refuse = False
        else:
            return
        tid = get_ident()
        if tid in busy:  # our own sys._getframe below
            return
        busy.add(tid)
        try:
            frame = getframe(1)
            code = frame.f_code
            if is_trusted(monitor, code):
                return
            what = f"{event} {args[1]}" if event.startswith("object.") else event
            where = f"{what} (line {line_of(code, frame.f_lasti)})"
            del frame
            if len(monitor.internal) < 32 and where not in monitor.internal:
                monitor.internal.append(where)
        finally:
            busy.discard(tid)
        if refuse:
            raise InternalAccessRefused(f"refused by the evaluator: {what}")

    return hook


def _line_of(code, offset: int):
    for start, _end, line in code.co_lines():
        if start <= offset < _end:
            return line
    return code.co_firstlineno


# Poison bytes: every one of them makes fp32 and bf16 words of magnitude >= 2^97 or NaN and
# fp16 words >= 2^12, Inf or NaN, so an output the kernel never writes cannot look right; the
# byte is drawn per sample, so no fixed pattern marks an evaluated run (0xFE, the fixed byte
# before, is left out: a candidate written against it finds no evaluation).
POISON_BYTES = tuple(range(0x70, 0x80)) + tuple(range(0xF0, 0xFE)) + (0xFF,)


def poison_byte() -> int:
    return POISON_BYTES[os.urandom(1)[0] % len(POISON_BYTES)]


# --- the thread ban ---------------------------------------------------------------------------

_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_THREAD = 0x00010000
_ARCH = {  # machine: (AUDIT_ARCH, nr seccomp, nr clone, nr clone3)
    "x86_64": (0xC000003E, 317, 56, 435),
    "aarch64": (0xC00000B7, 277, 220, 435),
}


def _bpf(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def ban_threads() -> str:
    """Refuse new threads in this process from now on; "" when done, else why not."""
    arch = _ARCH.get(platform.machine())
    if arch is None:
        return f"no thread ban on {platform.machine()}"
    audit_arch, nr_seccomp, nr_clone, nr_clone3 = arch
    ld_w_abs, jeq_k, jset_k, ret_k = 0x20, 0x15, 0x45, 0x06
    allow, eagain, enosys = 0x7FFF0000, 0x00050000 | 11, 0x00050000 | 38
    prog = b"".join([
        _bpf(ld_w_abs, 0, 0, 4),             # 0 arch
        _bpf(jeq_k, 1, 0, audit_arch),       # 1
        _bpf(ret_k, 0, 0, allow),            # 2 another ABI: the engine's filter decides
        _bpf(ld_w_abs, 0, 0, 0),             # 3 syscall number
        _bpf(jeq_k, 0, 1, nr_clone3),        # 4
        _bpf(ret_k, 0, 0, enosys),           # 5 clone3 hides its flags: glibc falls back to clone
        _bpf(jeq_k, 0, 3, nr_clone),         # 6
        _bpf(ld_w_abs, 0, 0, 16),            # 7 low word of the flags
        _bpf(jset_k, 0, 1, _CLONE_THREAD),   # 8
        _bpf(ret_k, 0, 0, eagain),           # 9 a thread: refused
        _bpf(ret_k, 0, 0, allow),            # 10
    ])
    buf = ctypes.create_string_buffer(prog)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    rc = libc.syscall(nr_seccomp, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC, ctypes.byref(fprog))
    if rc != 0:
        return f"seccomp thread ban failed: {os.strerror(ctypes.get_errno())}"
    return ""


def trusted_roots(task_path: str) -> list[str]:
    """Folders whose code is the libraries' and ours: the standard library and every
    site-packages folder (torch, triton, numpy and what they call), this runner, and the task
    file's folder. The candidate's file is in the worker's scratch folder, outside all of them."""
    import site
    import sysconfig

    roots = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"],
             os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
             os.path.dirname(os.path.abspath(task_path))}
    roots.update(site.getsitepackages())
    for mod in ("torch", "triton", "numpy"):
        m = sys.modules.get(mod)
        if m is not None and getattr(m, "__file__", None):
            roots.add(os.path.dirname(os.path.dirname(os.path.abspath(m.__file__))))
    return sorted(roots)
