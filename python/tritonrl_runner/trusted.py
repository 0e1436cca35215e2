"""Operations on the candidate's objects that run no code the candidate defined (issue 34).

The evaluator calls no candidate-defined method outside the audited window: a plain method call on
a candidate object (``model.train()``, ``model.named_modules()``, ``model.to()``), iterating a
tuple subclass or reading a dict subclass would run the candidate's code where no audit watches.
Everything here reads candidate objects through the C-level slots of ``object``, ``type``,
``dict``, ``list`` and ``tuple`` (``type(x)`` cannot be faked, ``object.__getattribute__`` skips
the class's own ``__getattribute__``/``__getattr__``), so what runs is CPython's and torch's.

- ``exact_outputs``: a forward result as a list of tensors, accepting only exactly ``torch.Tensor``,
  ``tuple``, ``list`` (and Python scalars); anything else is a TypeError before any of its methods
  runs.
- ``module_overrides``: what in the model's tree replaces something nn.Module does (a method of
  nn.Module defined again by a class outside torch, an instance attribute hiding one, a hook or
  submodule table that is not a plain dict); the worker refuses such a model right after its
  constructor, before any other method of it is called.
- ``walk_modules`` / ``set_training``: named_modules() and train(mode) done on the modules' own
  ``__dict__``.
"""
from __future__ import annotations

import sys
from collections import OrderedDict

import torch
from torch import nn

_OBJ_GETATTR = object.__getattribute__
_CLASS_NAMESPACE = type.__dict__["__dict__"].__get__
_CLASS_MRO = type.__dict__["__mro__"].__get__
_CLASS_QUALNAME = type.__dict__["__qualname__"].__get__

# Everything nn.Module has (its class and a fresh instance's attributes).
_MODULE_NAMES = frozenset(dir(nn.Module)) | frozenset(vars(nn.Module()))
# What a class statement puts in a namespace by itself, and what a candidate's module class may
# define (docs/rules.md, "The candidate subset").
_CLASS_OWN = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                        "__annotations__", "__firstlineno__", "__static_attributes__",
                        "__orig_bases__", "__parameters__", "__init__", "forward"})
# nn.Module's tables in an instance __dict__: each must be a plain dict (OrderedDict for hooks).
_TABLES = ("_parameters", "_buffers", "_modules", "_forward_hooks", "_forward_pre_hooks",
           "_backward_hooks", "_backward_pre_hooks", "_forward_hooks_with_kwargs",
           "_forward_hooks_always_called", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
           "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")
# Instance attributes nn.Module itself keeps (the rest of _MODULE_NAMES are methods: an instance
# attribute of that name hides the method).
_INSTANCE_DATA = frozenset(vars(nn.Module()))


class ModuleOverrideRefused(PermissionError):
    """The candidate's model replaces something nn.Module does (the engine: module_override)."""


def type_name(obj) -> str:
    cls = type(obj)
    module = _CLASS_NAMESPACE(cls).get("__module__", "?")
    return f"{module if isinstance(module, str) else '?'}.{_CLASS_QUALNAME(cls)}"


def exact_outputs(out) -> list:
    """The tensors of a forward result: exactly torch.Tensor, or exactly tuple/list of them
    (nested), or a Python scalar. Raises TypeError on anything else, before it is touched."""
    t = type(out)
    if t is torch.Tensor:
        return [out]
    if t is tuple or t is list:
        flat = []
        for o in out:  # iterating an exact tuple or list is CPython's own
            flat.extend(exact_outputs(o))
        return flat
    if t is int or t is float or t is bool:
        return [torch.tensor(out)]
    raise TypeError(f"output of type {type_name(out)} is not exactly torch.Tensor, or a tuple "
                    f"or list of them")


def _instance_dict(m) -> dict | None:
    d = _OBJ_GETATTR(m, "__dict__")
    return d if type(d) is dict else None


def walk_modules(model) -> list[tuple[str, nn.Module]]:
    """(path, module) for the model and its submodules, in named_modules() order, read from each
    module's own __dict__['_modules'] (plain dicts only; anything else is left out and reported
    by module_overrides)."""
    found, seen = [], set()

    def visit(path, m):
        if id(m) in seen or not issubclass(type(m), nn.Module):
            return
        seen.add(id(m))
        found.append((path, m))
        d = _instance_dict(m)
        subs = d.get("_modules") if d is not None else None
        if type(subs) is dict or type(subs) is OrderedDict:
            for name, sub in dict.items(subs):
                if sub is not None and type(name) is str:
                    visit(f"{path}.{name}" if path else name, sub)

    visit("", model)
    return found


def _torch_class(cls) -> bool:
    """A class torch itself defines (nn.Linear, ...), found where its module says it is."""
    ns = _CLASS_NAMESPACE(cls)
    module = ns.get("__module__")
    if type(module) is not str or not (module == "torch" or module.startswith("torch.")):
        return False
    mod = sys.modules.get(module)
    qualname = _CLASS_QUALNAME(cls)
    return mod is not None and "." not in qualname and vars(mod).get(qualname) is cls


def module_overrides(model) -> list[str]:
    """What in the model's tree replaces nn.Module behaviour the evaluator relies on."""
    found = []
    for path, m in walk_modules(model):
        where = path or "model"
        d = _instance_dict(m)
        if d is None:
            found.append(f"{where}: __dict__ is not a plain dict")
            continue
        for key in list(dict.keys(d)):
            if type(key) is str and key in _MODULE_NAMES and key not in _INSTANCE_DATA:
                found.append(f"{where}.{key}: an instance attribute hides nn.Module.{key}")
        for key in _TABLES:
            table = dict.get(d, key)
            if table is not None and type(table) is not dict and type(table) is not OrderedDict:
                found.append(f"{where}.{key}: a {type_name(table)}, not a plain dict")
        if type(dict.get(d, "training")) is not bool:
            found.append(f"{where}.training: not a bool")
        for klass in _CLASS_MRO(type(m)):
            if klass is nn.Module or klass is object:
                break
            if _torch_class(klass):
                continue
            for key in list(_CLASS_NAMESPACE(klass)):
                if type(key) is str and key in _MODULE_NAMES and key not in _CLASS_OWN:
                    found.append(f"{where}: {_CLASS_QUALNAME(klass)}.{key} overrides nn.Module.{key}")
    return found


def set_training(model, mode: bool) -> None:
    """model.train(mode) without calling train(): every module's own `training` flag."""
    for _, m in walk_modules(model):
        d = _instance_dict(m)
        if d is not None:
            d["training"] = bool(mode)
