"""trusted.py: the runner's reads of candidate objects run no candidate-defined code, and agree with
nn.Module's own methods on honest models."""
import sys
from collections import OrderedDict
from pathlib import Path

import pytest
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from tritonrl_runner import trusted  # noqa: E402


class Honest(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 4)
        self.blocks = nn.ModuleList([nn.Sequential(nn.ReLU(), nn.Linear(4, 4)) for _ in range(2)])
        self.register_buffer("scale", torch.ones(4))

    def forward(self, x):
        return x


def test_walk_modules_matches_named_modules_on_an_honest_model():
    model = Honest()
    assert [p for p, _ in trusted.walk_modules(model)] == [p for p, _ in model.named_modules()]
    assert all(a is b for (_, a), (_, b) in zip(trusted.walk_modules(model), model.named_modules()))


@pytest.mark.parametrize("mode", [True, False])
def test_set_training_matches_train(mode):
    a, b = Honest(), Honest()
    a.train(not mode)
    b.train(not mode)
    a.train(mode)
    trusted.set_training(b, mode)
    assert [m.training for m in a.modules()] == [m.training for m in b.modules()]


def test_an_honest_model_has_no_overrides():
    assert trusted.module_overrides(Honest()) == []


class Trap(Exception):
    pass


def _trap(*args, **kwargs):
    raise Trap()


def _overriding(name):
    return type("Cheat", (nn.Module,), {"forward": lambda self, x: x, name: _trap})()


@pytest.mark.parametrize("name", ["train", "eval", "named_modules", "modules", "children", "to",
                                  "_apply", "__getattr__", "__call__", "_call_impl", "state_dict"])
def test_a_class_that_redefines_an_nn_module_name_is_reported_without_running_it(name):
    found = trusted.module_overrides(_overriding(name))  # would raise Trap if it ran the method
    assert any(f"Cheat.{name} overrides nn.Module.{name}" in f for f in found), found
    trusted.set_training(_overriding(name), False)  # nor does setting the mode


def test_a_submodule_that_redefines_train_is_reported():
    model = Honest()
    model.blocks[1] = _overriding("train")
    found = trusted.module_overrides(model)
    assert any(f.startswith("blocks.1: Cheat.train") for f in found), found


def test_an_instance_attribute_hiding_a_method_is_reported():
    model = Honest()
    object.__setattr__(model, "named_modules", _trap)  # what self.named_modules = f would do
    assert any("model.named_modules: an instance attribute hides" in f
               for f in trusted.module_overrides(model))


def test_a_hook_table_that_is_not_a_plain_dict_is_reported_and_not_read():
    class Table(OrderedDict):
        def __len__(self):
            raise Trap()

        def items(self):
            raise Trap()

    model = Honest()
    model.__dict__["_forward_hooks"] = Table()
    found = trusted.module_overrides(model)
    assert any(f.startswith("model._forward_hooks: a ") for f in found), found


def test_torch_classes_defining_their_own_methods_are_not_overrides():
    # nn.Linear defines extra_repr and reset_parameters; BatchNorm its own _load_from_state_dict.
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.LayerNorm(2))
    assert trusted.module_overrides(model) == []


def test_exact_outputs_accepts_tensors_tuples_lists_and_scalars():
    t = torch.ones(2)
    assert len(trusted.exact_outputs(t)) == 1
    assert len(trusted.exact_outputs((t, [t, (t,)]))) == 3
    assert trusted.exact_outputs(2.5)[0].item() == 2.5


def test_exact_outputs_refuses_subclasses_before_touching_them():
    class Lazy(tuple):
        def __iter__(self):
            raise Trap()

    class Sub(torch.Tensor):
        pass

    for bad in [Lazy((torch.ones(1),)), (torch.ones(1), Lazy(())), torch.ones(1).as_subclass(Sub),
                {"y": torch.ones(1)}]:
        with pytest.raises(TypeError, match="not exactly torch.Tensor"):
            trusted.exact_outputs(bad)
