// One minimal positive and one negative snippet per rule (docs/rules.md).
#include <gtest/gtest.h>

#include <string>

#include "verify/rules.h"
#include "verify/verify.h"

namespace tritonrl::verify {
namespace {

// Imports, one kernel and a launcher: every snippet below adds a ModelNew (or replaces a part).
constexpr const char* kPrelude = R"(import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


def launch(x):
    y = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y

)";

std::string WithForward(const std::string& forward_body, const std::string& extra = "") {
  return std::string(kPrelude) + extra +
         "\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n" + forward_body;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t p = s.find(from);
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

bool Has(const std::vector<Finding>& list, const std::string& rule) {
  for (const Finding& f : list) {
    if (f.rule == rule) return true;
  }
  return false;
}

std::string Describe(const Verdict& v) {
  std::string s = v.outcome + ":";
  for (const Finding& f : v.violations) s += " " + f.rule + "@" + std::to_string(f.line);
  s += " | warnings:";
  for (const Finding& f : v.warnings) s += " " + f.rule;
  return s;
}

Verdict Check(const std::string& code, Policy policy = Policy::kStandard) {
  VerifyOptions options;
  options.policy = policy;
  return VerifyCode(code, options);
}

TEST(VerifyRules, BaselineIsValidInBothPolicies) {
  std::string code = WithForward("        return launch(x)\n");
  for (Policy p : {Policy::kStandard, Policy::kStrict}) {
    Verdict v = Check(code, p);
    EXPECT_TRUE(v.valid) << Describe(v);
    EXPECT_EQ(v.outcome, "valid");
    EXPECT_TRUE(v.warnings.empty()) << Describe(v);
  }
}

struct RuleCase {
  const char* rule;
  std::string bad;   // must be reported with `rule`
  std::string good;  // the nearest honest variant: `rule` must not be reported
  Policy policy = Policy::kStandard;
};

class RuleCaseTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RuleCaseTest, PositiveAndNegative) {
  const RuleCase& c = GetParam();
  ASSERT_NE(FindRule(c.rule), nullptr) << c.rule;
  Verdict bad = Check(c.bad, c.policy);
  EXPECT_TRUE(Has(bad.violations, c.rule)) << c.rule << " not reported: " << Describe(bad);
  EXPECT_FALSE(bad.valid);
  Verdict good = Check(c.good, c.policy);
  EXPECT_FALSE(Has(good.violations, c.rule)) << c.rule << " on honest code: " << Describe(good);
  EXPECT_TRUE(good.valid) << Describe(good);
}

std::vector<RuleCase> Cases() {
  const std::string ok = "        return launch(x)\n";
  std::vector<RuleCase> cases = {
      {"syntax.parse_error", "def f(:\n    pass\n", WithForward(ok)},
      {"syntax.no_triton_kernel",
       "import torch\nimport torch.nn as nn\nclass ModelNew(nn.Module):\n    def forward(self, "
       "x):\n"
       "        return x.view(-1)\n",
       WithForward(ok)},
      {"syntax.no_modelnew", std::string(kPrelude) + "class Other(nn.Module):\n    pass\n",
       WithForward(ok)},
      {"syntax.modelnew_not_module",
       std::string(kPrelude) +
           "class ModelNew:\n    def forward(self, x):\n        return launch(x)\n",
       WithForward(ok)},
      {"syntax.no_forward",
       std::string(kPrelude) + "class ModelNew(nn.Module):\n    def run(self, x):\n"
                               "        return launch(x)\n",
       WithForward(ok)},
      {"syntax.kernel_not_launched", WithForward("        return x.view(-1)\n"), WithForward(ok)},
      {"func.torch_compute", WithForward("        launch(x)\n        return torch.relu(x)\n"),
       WithForward("        y = launch(x.contiguous())\n        return y.view(x.shape)\n")},
      {"func.torch_compute", WithForward("        launch(x)\n        return x @ x\n"),
       WithForward(ok)},
      {"func.torch_compute", WithForward("        launch(x)\n        return x.sum(dim=1)\n"),
       WithForward("        launch(x)\n        return x.reshape(-1)\n")},
      {"func.torch_compute",
       WithForward("        launch(x)\n        return F.softmax(x, 1)\n",
                   "import torch.nn.functional as F\n"),
       WithForward(ok, "import torch.nn.functional as F\n")},
      {"func.torch_compute",
       WithForward("        launch(x)\n        return mm(x, x)\n",
                   "from torch import matmul as mm\n"),
       WithForward(ok, "from torch import matmul as mm\n")},
      {"func.torch_compute",
       WithForward("        T = torch\n        launch(x)\n        return T.exp(x)\n"),
       WithForward("        T = torch\n        launch(x)\n        return T.empty_like(x)\n")},
      {"func.torch_compute",
       WithForward("        return helper(x)\n",
                   "def helper(x):\n    launch(x)\n    return torch.sum(x)\n"),
       WithForward("        return helper(x)\n", "def helper(x):\n    return launch(x)\n")},
      {"func.torch_compute",
       WithForward("        f = functools.partial(torch.softmax, dim=1)\n        launch(x)\n"
                   "        return f(x)\n",
                   "import functools\n"),
       WithForward("        f = functools.partial(launch)\n        return f(x)\n",
                   "import functools\n")},
      // Values, not name prefixes: re-exports, tensor-class members, held values, kernel bodies,
      // import-time code, data movement that is the answer.
      {"func.torch_compute",
       WithForward("        launch(x)\n        return torch.nn.init.torch.exp(x)\n"),
       WithForward("        launch(x)\n        return torch.nn.init.torch.empty_like(x)\n")},
      // A tensor compute method taken as a value: whoever calls it later computes with torch.
      {"func.torch_compute",
       WithForward(
           "        y = launch(x)\n        f = functools.partial(functools.reduce, y.map_)\n"
           "        return y\n",
           "import functools\n"),
       WithForward("        y = launch(x)\n        f = functools.partial(launch, y.contiguous())\n"
                   "        return f()\n",
                   "import functools\n")},
      {"func.torch_compute",
       WithForward("        y = launch(x)\n        f = getattr(y, 'relu_')\n        return y\n"),
       WithForward("        y = launch(x)\n        n = getattr(y, 'shape')\n        return y\n")},
      {"func.torch_compute", WithForward("        launch(x)\n        return torch.Tensor.exp(x)\n"),
       WithForward("        return launch(torch.Tensor.contiguous(x))\n")},
      {"func.torch_compute",
       std::string(kPrelude) +
           "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.act = torch.relu\n    def forward(self, x):\n"
           "        launch(x)\n        return self.act(x)\n",
       std::string(kPrelude) +
           "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.act = launch\n    def forward(self, x):\n"
           "        return self.act(x)\n"},
      {"func.torch_compute",
       Replace(WithForward(ok), "    tl.store(y_ptr", "    torch.relu(x_ptr)\n    tl.store(y_ptr"),
       WithForward(ok)},
      {"func.torch_compute", WithForward(ok, "_T = torch.exp(torch.zeros(3))\n"),
       WithForward(ok, "_T = torch.zeros(3)\nif __name__ == '__main__':\n    torch.exp(_T)\n")},
      {"func.torch_compute", WithForward("        launch(x)\n        return x.t().contiguous()\n"),
       WithForward("        y = launch(x.t().contiguous())\n        return y.contiguous()\n")},
      {"func.torch_compute",
       WithForward("        y = torch.empty_like(x)\n        y.copy_(x.t())\n        launch(x)\n"
                   "        return y\n"),
       WithForward("        s = torch.tensor(2.0)\n        n = torch.full((1,), x.numel())\n"
                   "        return launch(x)\n")},
      {"func.concurrency",
       WithForward("        triton.runtime.jit.threading.Thread(target=launch).start()\n"
                   "        return launch(x)\n"),
       WithForward(ok)},
      {"func.introspection",
       WithForward(
           "        getattr(triton.runtime.jit, 'inspect').stack()\n        return launch(x)\n"),
       WithForward("        getattr(triton, 'cdiv')(1, 2)\n        return launch(x)\n")},
      {"func.module_not_allowed",
       Replace(WithForward(ok), "    tl.store(y_ptr", "    np.negative(x_ptr)\n    tl.store(y_ptr"),
       Replace(WithForward(ok, "import math\n"), "    tl.store(y_ptr",
               "    c = math.pi\n    tl.store(y_ptr")},
      {"func.module_not_allowed",
       WithForward(
           "        triton.testing.do_bench(lambda: launch(x))\n        return launch(x)\n"),
       WithForward("        n = triton.next_power_of_2(x.numel())\n        return launch(x)\n")},
      {"func.reference_model",
       WithForward("        return _Ref()(launch(x))\n",
                   "class Model(nn.Module):\n    pass\n\n_Ref = Model\n"),
       WithForward(ok, "class Model(nn.Module):\n    pass\n\n_Other = dict\n")},
      {"func.nn_layer_call",
       std::string(kPrelude) +
           "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.lin = nn.Linear(4, 4)\n    def forward(self, x):\n"
           "        return launch(self.lin(x))\n",
       std::string(kPrelude) +
           "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.lin = nn.Linear(4, 4)\n    def forward(self, x):\n"
           "        w = self.lin.weight\n        return launch(x)\n"},
      {"func.try_except",
       WithForward("        try:\n            return launch(x)\n        except Exception:\n"
                   "            return x\n"),
       WithForward(ok)},
      {"func.try_except_outside",
       WithForward(ok, "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n"),
       WithForward(ok, "import math\n"), Policy::kStrict},
      {"func.concurrency",
       WithForward("        t = threading.Thread(target=launch, args=(x,))\n        t.start()\n"
                   "        return x\n",
                   "import threading\n"),
       WithForward(ok)},
      {"func.cuda_stream",
       WithForward(
           "        with torch.cuda.stream(torch.cuda.Stream()):\n            return launch(x)\n"),
       WithForward("        with torch.cuda.device(x.device):\n            return launch(x)\n")},
      {"func.torch_compile", WithForward("        return torch.compile(launch)(x)\n"),
       WithForward(ok)},
      {"func.native_code",
       WithForward("        ctypes.CDLL(None)\n        return launch(x)\n", "import ctypes\n"),
       WithForward(ok)},
      {"func.dynamic_code", WithForward("        exec('pass')\n        return launch(x)\n"),
       WithForward(ok)},
      {"func.dynamic_attr",
       WithForward("        f = getattr(torch, 'mat' + 'mul')\n        return launch(x)\n"),
       WithForward("        f = getattr(torch, 'empty_like')\n        return launch(x)\n")},
      {"func.introspection",
       WithForward("        gc.collect()\n        return launch(x)\n", "import gc\n"),
       WithForward(ok)},
      {"func.introspection",
       WithForward("        g = launch.__globals__\n        return launch(x)\n"),
       WithForward("        name = launch.__name__\n        return launch(x)\n")},
      // The interpreter's numpy buffer behind a Triton value, by attribute or literal getattr.
      {"func.introspection",
       Replace(
           WithForward(ok), "    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)",
           "    h = getattr(x, 'handle')\n    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)"),
       Replace(
           WithForward(ok), "    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)",
           "    d = getattr(x, 'dtype')\n    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)")},
      {"func.io_access", WithForward("        open('/tmp/x').read()\n        return launch(x)\n"),
       WithForward(ok)},
      {"func.io_access",
       WithForward("        os._exit(0)\n        return launch(x)\n", "import os\n"),
       WithForward(ok)},
      {"func.global_flags", WithForward(ok, "torch.backends.cuda.matmul.allow_tf32 = True\n"),
       WithForward(ok, "flag = True\n")},
      {"func.monkeypatch", WithForward(ok, "torch.allclose = lambda *a, **k: True\n"),
       WithForward(ok, "allclose = lambda *a, **k: True\n")},
      {"func.tensor_subclass", WithForward(ok, "class Lazy(torch.Tensor):\n    pass\n"),
       WithForward(ok, "class Box:\n    pass\n")},
      {"func.global_state",
       WithForward("        _CACHE['y'] = launch(x)\n        return _CACHE['y']\n",
                   "_CACHE = {}\n"),
       WithForward(
           "        cache = {}\n        cache['y'] = launch(x)\n        return cache['y']\n",
           "_CACHE = {}\n")},
      {"func.instance_state",
       WithForward("        self.last = launch(x)\n        return self.last\n"),
       WithForward("        last = launch(x)\n        return last\n"), Policy::kStrict},
      {"func.module_not_allowed",
       WithForward("        launch(x)\n        return np.zeros(3)\n", "import numpy as np\n"),
       WithForward(ok, "import math\n")},
      {"func.reference_model",
       Replace(WithForward(ok, "class Model(nn.Module):\n    pass\n"), "class ModelNew(nn.Module)",
               "class ModelNew(Model)"),
       WithForward(ok, "class Model(nn.Module):\n    pass\n")},
      {"func.torch_fallback",
       WithForward("        if not x.is_cuda:\n            return torch.relu(x)\n"
                   "        return launch(x)\n"),
       WithForward("        if not x.is_cuda:\n            x = x.contiguous()\n"
                   "        return launch(x)\n"),
       Policy::kStrict},
      // The candidate subset (subset.h): each rule against its nearest honest variant.
      {"func.subset_import", WithForward(ok, "import numpy\n"), WithForward(ok, "import math\n")},
      {"func.subset_import",
       WithForward("        f = attrgetter('shape')\n        return launch(x)\n",
                   "from operator import attrgetter\n"),
       WithForward("        f = mul(2, 3)\n        return launch(x)\n",
                   "from operator import mul\n")},
      {"func.subset_import",
       WithForward("        s = math.fsum(x.unbind())\n        return launch(x)\n",
                   "import math\n"),
       WithForward("        s = math.prod(x.shape)\n        return launch(x)\n", "import math\n")},
      {"func.subset_import",
       WithForward("        f = operator.methodcaller('relu')\n        return launch(x)\n",
                   "import operator\n"),
       WithForward("        f = operator.mul(2, 3)\n        return launch(x)\n",
                   "import operator\n")},
      {"func.subset_name", WithForward("        v = vars(self)\n        return launch(x)\n"),
       WithForward("        v = len(x.shape)\n        return launch(x)\n")},
      {"func.subset_name", WithForward(ok, "id = None\n"),
       WithForward("        id = x.numel()\n        return launch(x)\n")},
      {"func.subset_name", WithForward("        return launch(np.abs(x))\n"),
       WithForward("        np = x.shape\n        return launch(x)\n")},
      {"func.subset_reflection",
       WithForward("        g = (v for v in x.shape)\n        f = g.gi_frame\n"
                   "        return launch(x)\n"),
       WithForward(
           "        g = [v for v in x.shape]\n        f = g[0]\n        return launch(x)\n")},
      {"func.subset_reflection",
       WithForward("        s = torch.utils._python_dispatch._get_current_dispatch_mode_stack()\n"
                   "        return launch(x)\n"),
       WithForward("        s = torch.Size([1])\n        return launch(x)\n")},
      {"func.subset_reflection",
       WithForward("        w = getattr(self, 'lin.weight')\n        return launch(x)\n"),
       WithForward("        w = getattr(self, 'weight', None)\n        return launch(x)\n")},
      {"func.subset_reflection",
       WithForward("        n = int.from_bytes(b'ab', 'little')\n        return launch(x)\n"),
       WithForward("        n = int(x.shape[0])\n        return launch(x)\n")},
      {"func.subset_class",
       WithForward(ok) + "\n    def train(self, mode=True):\n        return self\n",
       WithForward(ok) + "\n    def train_step(self, mode=True):\n        return self\n"},
      {"func.subset_class", WithForward(ok, "class Out(tuple):\n    pass\n"),
       WithForward(ok, "class Out:\n    pass\n")},
      {"func.subset_class",
       WithForward("        self._forward_hooks = {}\n        return launch(x)\n"),
       WithForward("        hooks = {}\n        return launch(x)\n")},
      {"func.subset_class",
       WithForward(ok, "class Box:\n    def __iter__(self):\n        return iter([])\n"),
       WithForward(ok, "class Box:\n    def __call__(self, x):\n        return launch(x)\n")},
      {"func.subset_construct", WithForward(ok, "def gen(x):\n    yield launch(x)\n"),
       WithForward(ok, "def gen(x):\n    return launch(x)\n")},
      {"func.subset_construct",
       WithForward("        m = max(x.unbind(), key=float)\n        return launch(x)\n"),
       WithForward("        m = max(x.shape)\n        return launch(x)\n")},
      // key= in any call but the file's own functions' and torch's and triton's.
      {"func.subset_construct",
       WithForward("        fs = [abs]\n        fs.sort(key=x.relu)\n        return launch(x)\n"),
       WithForward("        return launch(x)\n",
                   "def pick(xs, key=0):\n    return xs[key]\n\n\n_N = pick([1, 2], key=1)\n")},
      {"func.subset_construct",
       WithForward(
           "        f = functools.partial(sorted, [1.0], key=abs)\n        return launch(x)\n",
           "import functools\n"),
       WithForward(
           ok, "_tuned = triton.autotune(configs=[triton.Config({})], key=['n'])(relu_kernel)\n")},
      // A dataclass's default_factory runs from generated code: an empty container only.
      {"func.subset_construct",
       WithForward(
           ok,
           "import dataclasses\nimport functools\n\n\n@dataclasses.dataclass\nclass Box:\n"
           "    xs: list = dataclasses.field(default_factory=functools.partial(list, [1]))\n"),
       WithForward(ok,
                   "import dataclasses\n\n\n@dataclasses.dataclass\nclass Box:\n"
                   "    xs: list = dataclasses.field(default_factory=list)\n")},
      {"func.subset_construct",
       WithForward(ok,
                   "from dataclasses import dataclass, field\n\n\n@dataclass\nclass Box:\n"
                   "    xs: list = field(**{'default': 0})\n"),
       WithForward(ok,
                   "from dataclasses import dataclass, field\n\n\n@dataclass\nclass Box:\n"
                   "    xs: int = field(default=0)\n")},
      {"func.subset_construct", WithForward("        s = f'{x}'\n        return launch(x)\n"),
       WithForward("        if x.dim() > 4:\n            raise ValueError(f'rank {x.dim()}')\n"
                   "        return launch(x)\n")},
      {"func.subset_host_compute",
       WithForward(
           "        t = [math.tanh(i / 64) for i in range(256)]\n        return launch(x)\n",
           "import math\n"),
       WithForward("        t = [i * 64 for i in range(256)]\n        return launch(x)\n",
                   "import math\n")},
      {"func.subset_kernel_reference",
       WithForward(ok,
                   "_T = [0, 1]\n\n\n@triton.jit\ndef k2(p):\n"
                   "    tl.store(p, tl.load(p) + _T[1])\n"),
       WithForward(ok,
                   "_T = tl.constexpr(1)\n\n\n@triton.jit\ndef k2(p):\n"
                   "    tl.store(p, tl.load(p) + _T)\n")},
      {"func.subset_construct",
       WithForward(ok,
                   "import functools\n\n@functools.wraps(launch)\ndef go(x):\n"
                   "    return launch(x)\n"),
       WithForward(ok,
                   "import functools\n\n@functools.lru_cache\ndef blocks(n):\n"
                   "    return n\n")},
  };
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleCaseTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<RuleCase>& param_info) {
                           std::string name =
                               std::to_string(param_info.index) + "_" + param_info.param.rule;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

TEST(VerifyRules, EveryCatalogueRuleHasAUnitCase) {
  size_t n = 0;
  const RuleInfo* rules = AllRules(&n);
  std::vector<RuleCase> cases = Cases();
  for (size_t i = 0; i < n; ++i) {
    std::string id(rules[i].id);
    if (id == "syntax.no_code" || id == "func.copy_only_kernel") continue;  // tested below
    bool found = false;
    for (const RuleCase& c : cases) found = found || id == c.rule;
    EXPECT_TRUE(found) << id;
  }
}

TEST(VerifyRules, StrictOnlyRulesAreWarningsUnderStandard) {
  std::string code = WithForward(
      "        if not x.is_cuda:\n            return torch.relu(x)\n        return launch(x)\n");
  Verdict standard = Check(code, Policy::kStandard);
  EXPECT_TRUE(standard.valid) << Describe(standard);
  EXPECT_TRUE(Has(standard.warnings, "func.torch_fallback"));
  Verdict strict = Check(code, Policy::kStrict);
  EXPECT_FALSE(strict.valid);
  EXPECT_EQ(strict.outcome, "invalid_functionality");
}

TEST(VerifyRules, CopyOnlyKernelIsAWarningNamingTheKernel) {
  std::string code = std::string(kPrelude) + R"(
@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, v, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        copy_kernel[(1,)](x, y, x.numel(), BLOCK=1024)
        return y
)";
  for (Policy p : {Policy::kStandard, Policy::kStrict}) {
    Verdict v = Check(code, p);
    EXPECT_TRUE(v.valid) << Describe(v);
    ASSERT_EQ(v.warnings.size(), 1u) << Describe(v);
    EXPECT_EQ(v.warnings[0].rule, "func.copy_only_kernel");
    EXPECT_EQ(v.warnings[0].detail, "copy_kernel");
    EXPECT_EQ(v.warnings[0].line, 22);  // the def line, as CPython reports it
  }
  // The ReLU kernel in the prelude computes: no warning.
  EXPECT_TRUE(Check(WithForward("        return launch(x)\n")).warnings.empty());
}

TEST(VerifyRules, FindingsCarryPositionAndMessage) {
  std::string code = WithForward("        launch(x)\n        return torch.relu(x)\n");
  Verdict v = Check(code);
  ASSERT_EQ(v.violations.size(), 1u) << Describe(v);
  const Finding& f = v.violations[0];
  EXPECT_EQ(f.rule, "func.torch_compute");
  EXPECT_EQ(f.detail, "torch.relu");
  EXPECT_EQ(f.message, "PyTorch compute reachable from forward");
  EXPECT_EQ(f.line, 25);
  EXPECT_EQ(f.col, 16);
}

TEST(VerifyRules, ParseErrorCarriesParserPosition) {
  Verdict v = Check("x = (1,\ny = 2\n");
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].rule, "syntax.parse_error");
  EXPECT_GT(v.violations[0].line, 0);
  EXPECT_FALSE(v.violations[0].detail.empty());
  EXPECT_EQ(v.outcome, "invalid_syntax");
}

TEST(VerifyRules, ReferenceCopiesAreIgnored) {
  std::string code = WithForward("        return launch(x)\n",
                                 "import numpy as np\n\nclass Model(nn.Module):\n"
                                 "    def forward(self, x):\n        return torch.relu(x)\n\n"
                                 "def get_inputs():\n    return [torch.from_numpy(np.ones(3))]\n\n"
                                 "def get_init_inputs():\n    return []\n");
  // The functionality rules ignore the copies; the subset still admits no numpy import.
  Verdict v = Check(code, Policy::kStrict);
  for (const Finding& f : v.violations) {
    EXPECT_TRUE(f.rule == "func.subset_import" || f.rule == "func.subset_name") << Describe(v);
  }
  EXPECT_TRUE(Has(v.violations, "func.subset_import")) << Describe(v);
  std::string without_numpy = Replace(Replace(code, "import numpy as np\n", ""),
                                      "torch.from_numpy(np.ones(3))", "torch.randn(3)");
  Verdict clean = Check(without_numpy, Policy::kStrict);
  EXPECT_TRUE(clean.valid) << Describe(clean);
}

TEST(VerifyRules, LaunchThroughALocalKernelAlias) {
  std::string code = WithForward(
      "        k = relu_kernel if x.is_contiguous() else relu_kernel\n"
      "        y = torch.empty_like(x)\n"
      "        k[(1,)](x, y, x.numel(), BLOCK=1024)\n"
      "        return y\n");
  Verdict v = Check(code, Policy::kStrict);
  EXPECT_TRUE(v.valid) << Describe(v);
}

TEST(VerifyRules, ModelReachedThroughAHelperIsCaught) {
  std::string code = WithForward("        return helper(x)\n",
                                 "class Model(nn.Module):\n    def forward(self, x):\n"
                                 "        return torch.relu(x)\n\n"
                                 "def helper(x):\n    launch(x)\n    return Model()(x)\n");
  Verdict v = Check(code);
  EXPECT_TRUE(Has(v.violations, "func.reference_model")) << Describe(v);
}

TEST(VerifyRules, ReachabilityFollowsMethodsClassesAndLambdas) {
  // The launch sits in a helper class's __call__ stored on self, through a lambda grid.
  std::string code = std::string(kPrelude) + R"(
class Runner:
    def __call__(self, x):
        y = torch.empty_like(x)
        grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)
        relu_kernel[grid](x, y, x.numel(), BLOCK=256)
        return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.run = Runner()

    def forward(self, x):
        return self.run(x)
)";
  Verdict v = Check(code, Policy::kStrict);
  EXPECT_TRUE(v.valid) << Describe(v);
  std::string hidden = code;
  hidden.replace(hidden.find("        return y\n"), 17, "        return y.exp()\n");
  Verdict bad = Check(hidden);
  EXPECT_TRUE(Has(bad.violations, "func.torch_compute")) << Describe(bad);
}

// Honest launch forms: reachability is decided on kernel values, not on `kernel[grid](...)`.
TEST(VerifyRules, EveryHonestLaunchFormIsALaunch) {
  const std::string body = "        y = torch.empty_like(x)\n        n = x.numel()\n";
  const std::vector<std::pair<std::string, std::string>> forms = {
      {"", body + "        go = relu_kernel[(1,)]\n        go(x, y, n, BLOCK=1024)\n"
                  "        return y\n"},
      {"def run(k, x, y):\n    k[(1,)](x, y, x.numel(), BLOCK=1024)\n    return y\n",
       body + "        return run(relu_kernel, x, y)\n"},
      {"KS = {'relu': relu_kernel}\n",
       body + "        KS['relu'][(1,)](x, y, n, BLOCK=1024)\n        return y\n"},
      {"def _body(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n    pass\n\nk2 = triton.jit(_body)\n",
       body + "        k2[(1,)](x, y, n, BLOCK=1024)\n        return y\n"},
      {"", body + "        for k in (relu_kernel,):\n            k[(1,)](x, y, n, BLOCK=1024)\n"
                  "        return y\n"},
      {"", body + "        relu_kernel.run(x, y, n, BLOCK=1024, grid=(1,), warmup=False)\n"
                  "        return y\n"},
  };
  for (const auto& [extra, forward] : forms) {
    Verdict v = Check(WithForward(forward, extra), Policy::kStrict);
    EXPECT_TRUE(v.valid) << forward << Describe(v);
  }
  // Kernels in a class body, with or without @staticmethod, launched through self.
  for (std::string deco : {"    @triton.jit\n", "    @staticmethod\n    @triton.jit\n"}) {
    std::string code =
        "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n\n"
        "class ModelNew(nn.Module):\n" +
        deco +
        "    def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
        "        offs = tl.arange(0, BLOCK)\n"
        "        tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1.0)\n\n"
        "    def forward(self, x):\n        y = torch.empty_like(x)\n"
        "        self.k[(1,)](x, y, x.numel(), BLOCK=16)\n        return y\n";
    Verdict v = Check(code, Policy::kStrict);
    EXPECT_TRUE(v.valid) << Describe(v);
  }
  // A kernel that is only referenced, never indexed by a grid, is not launched.
  Verdict decoy = Check(WithForward("        k = relu_kernel\n        return x.view(-1)\n"));
  EXPECT_TRUE(Has(decoy.violations, "syntax.kernel_not_launched")) << Describe(decoy);
  // A helper that launches its parameter, but no kernel is ever handed over.
  Verdict no_kernel = Check(WithForward("        return run(lambda: None, x)\n",
                                        "def run(k, x):\n    k[(1,)](x)\n    return x\n"));
  EXPECT_TRUE(Has(no_kernel.violations, "syntax.kernel_not_launched")) << Describe(no_kernel);
}

TEST(VerifyRules, LaunchHooksAndDecoratorArgumentsAreChecked) {
  const std::string hook = "def hook(*args, **kwargs):\n    torch.relu(args[0])\n\n";
  for (std::string wiring : {"relu_kernel.add_pre_run_hook(hook)\n",
                             "CFG = triton.Config({'BLOCK': 16}, pre_hook=hook)\n"}) {
    Verdict v = Check(WithForward("        return launch(x)\n", hook + wiring));
    EXPECT_TRUE(Has(v.violations, "func.torch_compute")) << wiring << Describe(v);
  }
  Verdict unused = Check(WithForward("        return launch(x)\n", hook));
  EXPECT_TRUE(unused.valid) << Describe(unused);  // never handed to Triton nor reached
}

}  // namespace
}  // namespace tritonrl::verify
