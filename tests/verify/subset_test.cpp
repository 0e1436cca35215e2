// The candidate subset's scope resolution and constructs (src/verify/subset*.cpp, docs/rules.md
// "The candidate subset"): each case is a small variation on one honest file, and the expected
// subset findings are written by hand from Python's scoping rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "verify/verify.h"

namespace tritonrl::verify {
namespace {

constexpr const char* kHonest = R"(import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


def launch(x):
    y = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        return launch(x)
)";

// The subset findings (rule and detail) of kHonest with `extra` appended at module level.
std::vector<std::string> SubsetFindings(const std::string& extra) {
  Verdict v = VerifyCode(std::string(kHonest) + extra, VerifyOptions{});
  std::vector<std::string> out;
  for (const Finding& f : v.violations) {
    if (f.rule.rfind("func.subset_", 0) == 0) out.push_back(f.rule + ": " + f.detail);
  }
  return out;
}

bool Mentions(const std::vector<std::string>& findings, const std::string& rule,
              const std::string& word) {
  for (const std::string& f : findings) {
    if (f.rfind(rule, 0) == 0 && f.find(word) != std::string::npos) return true;
  }
  return false;
}

TEST(CandidateSubset, TheHonestBaseHasNoFinding) {
  EXPECT_TRUE(SubsetFindings("").empty());
}

TEST(CandidateSubset, ParametersAndLocalsMayShadowBuiltins) {
  EXPECT_TRUE(SubsetFindings("\n\ndef helper(format, id):\n    hex = format + id\n"
                             "    return [hex for map in range(2)]\n")
                  .empty());
  EXPECT_TRUE(SubsetFindings("\n\nf = lambda type: type\n").empty());
  // An enclosing function's local is visible in a nested one.
  EXPECT_TRUE(SubsetFindings("\n\ndef outer():\n    vars = 1\n\n    def inner():\n"
                             "        return vars\n\n    return inner\n")
                  .empty());
}

TEST(CandidateSubset, AnUnboundNameReachesBuiltinsOrTheInterpreter) {
  auto f = SubsetFindings("\n\ndef helper(x):\n    return vars(x)\n");
  EXPECT_TRUE(Mentions(f, "func.subset_name", "'vars'")) << ::testing::PrintToString(f);
  // Names Triton's interpreter injects when the module lacks them.
  f = SubsetFindings("\n\ndef helper(x):\n    return np.abs(x)\n");
  EXPECT_TRUE(Mentions(f, "func.subset_name", "'np'")) << ::testing::PrintToString(f);
}

TEST(CandidateSubset, AComprehensionsFirstIterableIsEvaluatedOutsideIt) {
  // The target `vars` is the comprehension's own; `vars()` in the first iterable is the builtin.
  auto f = SubsetFindings("\n\ndef helper():\n    return [vars for vars in vars()]\n");
  EXPECT_TRUE(Mentions(f, "func.subset_name", "'vars'")) << ::testing::PrintToString(f);
  // In a later clause, the earlier target is bound.
  EXPECT_TRUE(
      SubsetFindings("\n\ndef helper(xs):\n    return [id for id in xs for _ in range(id)]\n")
          .empty());
}

TEST(CandidateSubset, AClassBodyDoesNotEncloseItsMethods) {
  // `cell` bound in the class body is not visible in the method: there it is unbound.
  auto f = SubsetFindings(
      "\n\nclass Helper:\n    cell = 1\n\n    def get(self):\n        return cell\n");
  EXPECT_TRUE(Mentions(f, "func.subset_name", "'cell'")) << ::testing::PrintToString(f);
}

TEST(CandidateSubset, ModuleAndClassBodiesMayNotRebindBuiltinsOrInjectedNames) {
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nif False:\n    map = None\n"), "func.subset_name",
                       "builtin 'map'"));
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nclass Helper:\n    def max(self):\n        return 1\n"),
                       "func.subset_name", "builtin 'max'"));
  EXPECT_TRUE(Mentions(SubsetFindings("\nimport math as np\n"), "func.subset_name", "'np'"));
  EXPECT_TRUE(
      Mentions(SubsetFindings("\n\n__name__ = '__main__'\n"), "func.subset_name", "dunder"));
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nlaunch2 = launch\ndel launch2\n"), "func.subset_name",
                       "deletes"));
  // An import that binds an injected name to the value the interpreter would put there is fine.
  EXPECT_TRUE(SubsetFindings("\nimport math\nfrom functools import partial\n").empty());
}

TEST(CandidateSubset, TheMainGuardIsNotChecked) {
  EXPECT_TRUE(SubsetFindings("\n\nif __name__ == \"__main__\":\n    print(vars())\n").empty());
}

TEST(CandidateSubset, ReflectionAndStringNamedAccess) {
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nf = functools.reduce(getattr, ['a'], torch)\n"),
                       "func.subset_reflection", "getattr used as a value"));
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nw = getattr(torch, 'nn.functional')\n"),
                       "func.subset_reflection", "literal identifier"));
  EXPECT_TRUE(SubsetFindings("\n\nw = getattr(torch, 'float32')\n").empty());
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nc = launch.__closure__\n"), "func.subset_reflection",
                       "__closure__"));
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nn = int.from_bytes(b'a', 'little')\n"),
                       "func.subset_reflection", "int.from_bytes"));
}

TEST(CandidateSubset, ClassesAndTheirMethods) {
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nclass Out(tuple):\n    pass\n"), "func.subset_class",
                       "derives from tuple"));
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nclass Base(nn.Module):\n    def children(self):\n"
                                      "        return iter(())\n\n\nclass Sub(Base):\n"
                                      "    pass\n"),
                       "func.subset_class", "nn.Module.children"));
  // A subclass of a file class that is an nn.Module is one too.
  EXPECT_TRUE(
      Mentions(SubsetFindings("\n\nclass Base(nn.Module):\n    pass\n\n\n"
                              "class Sub(Base):\n    def eval(self):\n        return self\n"),
               "func.subset_class", "nn.Module.eval"));
  EXPECT_TRUE(Mentions(SubsetFindings("\n\nModelNew.forward = launch\n"), "func.subset_class",
                       "nn.Module attribute .forward"));
  // Helper classes: __init__ and __call__, own methods, dataclasses.
  EXPECT_TRUE(SubsetFindings("\nimport dataclasses\n\n\n@dataclasses.dataclass\nclass Plan:\n"
                             "    block: int = 1024\n\n    def __call__(self, x):\n"
                             "        return launch(x)\n")
                  .empty());
}

TEST(CandidateSubset, FormattingOnlyInErrorMessages) {
  EXPECT_TRUE(
      SubsetFindings("\n\ndef check(x):\n    assert x.dim() == 2, f'rank {x.dim()}'\n"
                     "    if x.numel() == 0:\n        raise ValueError('empty %s' % (x,))\n")
          .empty());
  EXPECT_TRUE(Mentions(SubsetFindings("\n\ndef show(x):\n    return f'{x}'\n"),
                       "func.subset_construct", "f-string"));
  EXPECT_TRUE(Mentions(SubsetFindings("\n\ndef show(x):\n    return '{}'.format(x)\n"),
                       "func.subset_construct", "str.format"));
}

// A jit function appended at module level: `body` is its body, indented by four spaces.
std::string Kernel(const std::string& globals, const std::string& body) {
  return "\n" + globals + "\n\n@triton.jit\ndef extra_kernel(x_ptr, n, BLOCK: tl.constexpr):\n" +
         body;
}

bool KernelRef(const std::vector<std::string>& findings, const std::string& word) {
  return Mentions(findings, "func.subset_kernel_reference", word);
}

TEST(KernelReferences, APlainHelperCallIsRejected) {
  auto f = SubsetFindings(Kernel("\ndef helper(v):\n    return v * 2\n",
                                 "    tl.store(x_ptr, helper(tl.load(x_ptr)))\n"));
  EXPECT_TRUE(KernelRef(f, "helper: a module-level plain Python function"))
      << ::testing::PrintToString(f);
}

TEST(KernelReferences, AModuleListSubscriptIsRejected) {
  auto f = SubsetFindings(
      Kernel("_U16 = list(range(65536))\n_T = [1, 2]\n_D = {'a': 1}\nSCALE = 3\n",
             "    w = tl.load(x_ptr)\n    tl.store(x_ptr, _U16[w] + _T[0] + _D['a'] + SCALE)\n"));
  EXPECT_TRUE(KernelRef(f, "_U16: a module-level list")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "_T: a module-level list")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "_D: a module-level dict")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "SCALE: a module-level constant")) << ::testing::PrintToString(f);
  // The message names the line and column of the reference.
  Verdict v = VerifyCode(std::string(kHonest) + Kernel("_T = [1, 2]\n", "    v = _T[0]\n"),
                         VerifyOptions{});
  bool found = false;
  for (const Finding& x : v.violations) {
    if (x.rule == "func.subset_kernel_reference") {
      found = true;
      EXPECT_EQ(x.line, 29);
      EXPECT_EQ(x.col, 9);
    }
  }
  EXPECT_TRUE(found);
}

TEST(KernelReferences, LambdasClassesAndOtherBuiltinsAreRejected) {
  auto f = SubsetFindings(Kernel("double = lambda v: v * 2\n\n\nclass Box:\n    k = 1\n",
                                 "    v = double(tl.load(x_ptr)) + Box.k + abs(n)\n"
                                 "    g = lambda a: a\n"));
  EXPECT_TRUE(KernelRef(f, "double: a module-level lambda")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "Box: a module-level class")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "abs: a Python builtin")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "lambda: a function or class defined inside a kernel"))
      << ::testing::PrintToString(f);
  // Annotating a plain value does not make it a constexpr for the compiler.
  f = SubsetFindings(Kernel("K: tl.constexpr = 4\n", "    v = tl.arange(0, K)\n"));
  EXPECT_TRUE(KernelRef(f, "K: a module-level value annotated tl.constexpr"))
      << ::testing::PrintToString(f);
  // A closure variable of a factory is a global of the kernel, not a constexpr.
  f = SubsetFindings(
      "\n\ndef make(scale):\n    @triton.jit\n    def k(x_ptr):\n"
      "        tl.store(x_ptr, tl.load(x_ptr) * scale)\n\n    return k\n");
  EXPECT_TRUE(KernelRef(f, "scale: a parameter of the enclosing function"))
      << ::testing::PrintToString(f);
  // A function wrapped by triton.jit(fn) has a kernel body too.
  f = SubsetFindings(
      "\n\ndef helper(v):\n    return v\n\n\ndef body(x_ptr):\n"
      "    tl.store(x_ptr, helper(tl.load(x_ptr)))\n\n\nk2 = triton.jit(body)\n");
  EXPECT_TRUE(KernelRef(f, "helper: a module-level plain Python function"))
      << ::testing::PrintToString(f);
}

// The fourth white-box review's interpreter reads: math on the Python numbers the interpreter
// makes of Triton values, and a comprehension that builds a table in the kernel body.
TEST(KernelReferences, WhatOnlyTheInterpreterRunsIsRejected) {
  auto f = SubsetFindings(Kernel("import math\nimport torch\n",
                                 "    v = tl.load(x_ptr)\n"
                                 "    for b in range(v, v + 1):\n"
                                 "        tl.store(x_ptr, math.exp(b) + torch.pi)\n"));
  EXPECT_TRUE(KernelRef(f, "math: the module math, whose functions"))
      << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "torch: the module torch")) << ::testing::PrintToString(f);
  f = SubsetFindings(Kernel("",
                            "    tab = [b * 0.5 for b in range(64)]\n"
                            "    tl.store(x_ptr, tab[tl.load(x_ptr)])\n"));
  EXPECT_TRUE(KernelRef(f, "ListComp: a list comprehension other than one over a tuple"))
      << ::testing::PrintToString(f);
  f = SubsetFindings(Kernel("",
                            "    d = {0: 1.0}\n    s = {1, 2}\n"
                            "    for v in (1, 2):\n        break\n"
                            "    g = sum(i for i in (1, 2))\n"));
  EXPECT_TRUE(KernelRef(f, "Dict: the construct Dict")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "Set: the construct Set")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "For: a for loop over something other than range"))
      << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "Break: the construct Break")) << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "GeneratorExp: the construct GeneratorExp"))
      << ::testing::PrintToString(f);
  // A tl.constexpr holding a tuple is a table the interpreter indexes on the host.
  f = SubsetFindings(
      Kernel("import math\nTAB = tl.constexpr(tuple(math.tanh(i) for i in range(64)))\n"
             "_T = (1.0, 2.0)\nTAB2 = tl.constexpr(_T)\n",
             "    v = TAB[0] + TAB2[1]\n"));
  EXPECT_TRUE(KernelRef(f, "TAB: a module-level tl.constexpr of something other than a scalar"))
      << ::testing::PrintToString(f);
  EXPECT_TRUE(KernelRef(f, "TAB2: a module-level tl.constexpr of something other than a scalar"))
      << ::testing::PrintToString(f);
  // Outside a kernel body the same constructs are the candidate's host code (and its
  // bookkeeping: a math function of the loop variable would be func.subset_host_compute).
  EXPECT_TRUE(SubsetFindings("\nimport math\nTAB = {b: b * 2 for b in range(4)}\n").empty());
}

TEST(KernelReferences, WhatTritonCompilesIsAccepted) {
  // jit helpers, tl/triton members, libdevice, constexpr and dtype globals, the compiler's
  // builtins, parameters, locals, loop and comprehension variables.
  EXPECT_TRUE(
      SubsetFindings(
          Kernel("import math\nfrom triton.language.extra import libdevice\n"
                 "from triton.language import constexpr\nfrom triton import cdiv\n"
                 "SCALE = tl.constexpr(2)\nHALF = constexpr(0.5)\nDTYPE = tl.float32\n"
                 "N3 = 3\nLOG2E = tl.constexpr(math.log2(math.e) * N3 / max(N3, 1))\n"
                 "NEG = tl.constexpr(-float('inf'))\n"
                 "ALIAS = SCALE\n\n\n@triton.jit\ndef twice(v):\n    return v * SCALE\n",
                 "    pid = tl.program_id(0)\n    acc = tl.zeros((BLOCK,), dtype=DTYPE)\n"
                 "    for i in range(0, min(n, 4)):\n        acc += twice(tl.load(x_ptr + i))\n"
                 "    for j in tl.static_range(2):\n        acc = acc * HALF + ALIAS + j\n"
                 "    pair = (acc, acc)\n    acc = [a * 2 for a in pair][0]\n"
                 "    m = max(int(BLOCK), len([1, 2]))\n    c = cdiv(n, BLOCK)\n"
                 "    acc = libdevice.tanh(acc) + math.pi + float(m) + c + LOG2E + NEG\n"
                 "    tl.store(x_ptr + pid + tl.arange(0, BLOCK), acc.to(DTYPE))\n"))
          .empty());
  // A kernel in a class body and one made by triton.jit(fn) call each other by name.
  EXPECT_TRUE(SubsetFindings("\n\nclass Kernels:\n    @staticmethod\n    @triton.jit\n"
                             "    def k(x_ptr):\n        tl.store(x_ptr, relu_kernel2(x_ptr))\n"
                             "\n\ndef body(p):\n    return tl.load(p)\n\n\n"
                             "relu_kernel2 = triton.jit(body)\n")
                  .empty());
}

// ---- host computation on loop values (func.subset_host_compute) -------------------------------
// Each case appends a function to kHonest; the rule reads all host code, called or not.

bool HostCompute(const std::string& extra, const std::string& word = "") {
  return Mentions(SubsetFindings(extra), "func.subset_host_compute", word);
}

TEST(HostCompute, AMathFunctionOfALoopVariableIsRejected) {
  EXPECT_TRUE(
      HostCompute("\nimport math\n_T = [round(math.tanh(i / 455) * 4096) for i in "
                  "range(4096)]\n",
                  "math.tanh of a loop-varying value"));
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef fill(t):\n    for i in range(256):\n"
                  "        v = math.exp(i * 0.01)\n        t.append(v)\n",
                  "math.exp"));
  // The same loop with bookkeeping only: offsets and sizes.
  EXPECT_FALSE(
      HostCompute("\n\ndef chunks(x, y, n):\n    for start in range(0, n, 1024):\n"
                  "        c = min(1024, n - start)\n"
                  "        relu_kernel[(triton.cdiv(c, 256),)](x[start:], y[start:], c, "
                  "BLOCK=256)\n"));
  // A constant computed once is not a table.
  EXPECT_FALSE(HostCompute("\nimport math\n\n\ndef scale(d):\n    return 1.0 / math.sqrt(d)\n"));
}

TEST(HostCompute, ProductsQuotientsAndPowersOfLoopValuesAreRejected) {
  EXPECT_TRUE(HostCompute("\n_T = [i * i for i in range(256)]\n", "product of two"));
  EXPECT_TRUE(HostCompute("\n_T = [4096 // (i + 1) for i in range(256)]\n", "division"));
  EXPECT_TRUE(HostCompute("\n_T = [2 ** i for i in range(30)]\n", "power"));
  EXPECT_TRUE(HostCompute("\n_T = [pow(3, i) for i in range(30)]\n", "pow()"));
  EXPECT_TRUE(HostCompute("\n_T = [sum(range(i)) for i in range(30)]\n", "sum()"));
  // A stride times the row index, and a fixed divisor, are bookkeeping.
  EXPECT_FALSE(
      HostCompute("\n\ndef rows(x, y):\n    for b in range(x.shape[0]):\n"
                  "        relu_kernel[(1,)](x, y, b * x.stride(0) + b // 2, BLOCK=8)\n"));
}

TEST(HostCompute, RecurrencesMayOnlyAdd) {
  // A geometric sequence (an exp table's values) from a fixed ratio.
  EXPECT_TRUE(
      HostCompute("\n\ndef table(t):\n    e = 1 << 24\n    while e > 4096:\n"
                  "        t.append(e)\n        e = e * 63 // 64\n",
                  "more than adding"));
  EXPECT_TRUE(
      HostCompute("\n\ndef table(t):\n    e = 1 << 24\n    for _ in range(500):\n"
                  "        t.append(e)\n        e -= e >> 6\n",
                  "more than adding"));
  // Two updated values added (Fibonacci) grow geometrically too.
  EXPECT_TRUE(
      HostCompute("\n\ndef table(t):\n    a, b = 1, 1\n    for _ in range(60):\n"
                  "        t.append(a)\n        a, b = b, a + b\n",
                  "more than adding"));
  // Through a tensor's shape: torch.empty(v, 65).numel() // 64.
  EXPECT_TRUE(
      HostCompute("\n\ndef table(t):\n    v = 1 << 20\n    for _ in range(500):\n"
                  "        t.append(v)\n        v = torch.empty(v, 65).numel() // 64\n",
                  "more than adding"));
  // Iterating a table built by bookkeeping (v + v // 64 at every index) by lookups (the
  // selection rule, a lookup of a varying table added into the update, reports it first).
  EXPECT_TRUE(
      HostCompute("\n\ndef table(t):\n    step = [i + i // 64 for i in range(1 << 16)]\n"
                  "    u = [4096]\n    for _ in range(300):\n"
                  "        u = [step[w] for w in u]\n        t.append(u[0])\n"));
  // An offset that advances by a chunk, the chunk cut by what is left: honest.
  EXPECT_FALSE(
      HostCompute("\n\ndef spans(x, y, n):\n    off = 0\n    while off < n:\n"
                  "        c = min(640, n - off)\n"
                  "        relu_kernel[(triton.cdiv(c, 128),)](x[off:], y[off:], c, "
                  "BLOCK=128)\n        off += c\n"));
  // A tensor recurrence through its own methods: honest (the solutions' _as4).
  EXPECT_FALSE(
      HostCompute("\n\ndef as4(t):\n    while t.dim() < 4:\n        t = t.unsqueeze(0)\n"
                  "    return t\n"));
}

TEST(HostCompute, StateThatOutlivesACallIsARecurrence) {
  // A method that scales an attribute, called once per iteration of forward's loop.
  EXPECT_TRUE(
      HostCompute("\n\nclass Gen:\n    def __init__(self):\n        self.v = 1 << 24\n\n"
                  "    def step(self):\n        self.v = self.v * 63 // 64\n"
                  "        return self.v\n",
                  "more than adding"));
  // The read and the write split over two methods, joined by a caller's loop.
  EXPECT_TRUE(
      HostCompute("\n\nclass Gen:\n    def __init__(self):\n        self.v = 1 << 24\n\n"
                  "    def peek(self):\n        return self.v * 63 // 64\n\n"
                  "    def put(self, w):\n        self.v = w\n\n\n"
                  "def run(g, t):\n    for _ in range(500):\n        g.put(g.peek())\n"
                  "        t.append(g.v)\n",
                  "returns more than its argument"));
  // A function that recurses hands each level the next value.
  EXPECT_TRUE(
      HostCompute("\n\ndef level(v, n):\n    if n == 0:\n        return v\n"
                  "    return level(v * 65 // 64, n - 1)\n",
                  "more than"));
}

TEST(HostCompute, CallbacksAndRecursionMakeParametersVary) {
  EXPECT_TRUE(
      HostCompute("\nimport functools\nimport math\n_T = functools.reduce(lambda acc, i: acc "
                  "+ [math.tanh(i)], range(256), [])\n",
                  "math.tanh"));
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef fill(t, i):\n    if i < 256:\n"
                  "        t.append(math.tanh(i / 32))\n        fill(t, i + 1)\n",
                  "math.tanh"));
  EXPECT_TRUE(HostCompute("\nimport math\n_F = [math.tanh]\n", "used as a value"));
  // A helper called from a loop over a display runs once per value.
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef one(v):\n    return math.tanh(v)\n\n\n"
                  "def run():\n    return [one(v) for v in (0.1, 0.2, 0.3)]\n",
                  "math.tanh"));
}

TEST(HostCompute, LoopsOverAFewSpelledValuesAndGridsAreBookkeeping) {
  // Launch plans: a loop over a display of (kernel, grid, block) entries.
  EXPECT_FALSE(
      HostCompute("\n\ndef plan(x, y, n):\n"
                  "    for block, scale in ((256, 0.5), (1024, 2.0)):\n"
                  "        s = scale * block\n"
                  "        relu_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block)\n"));
  // ...but a real function of a plan's value runs once per iteration: four such statements
  // over 16 values would be a 64-entry table.
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef plan(t):\n"
                  "    for v in (0.1, 0.2, 0.3):\n        t.append(math.tanh(v))\n",
                  "math.tanh"));
  // A launch's arguments reach its grid callable as meta values.
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef go(x, y):\n    for i in range(64):\n"
                  "        relu_kernel[lambda meta: (round(math.tanh(meta['B'] / 64) * 64),)]"
                  "(x, y, 1, B=i)\n",
                  "math.tanh"));
  // A grid callable divides by Triton's meta values.
  EXPECT_FALSE(
      HostCompute("\n\ndef go(x, y, n):\n"
                  "    relu_kernel[lambda meta: (triton.cdiv(n, meta['BLOCK']),)](x, y, n, "
                  "BLOCK=128)\n"));
  // Nested display loops past 16 iterations in all are a table's loop.
  EXPECT_TRUE(
      HostCompute("\nimport math\n_T = [math.tanh(a + b / 8) for a in (0, 1, 2, 3, 4) "
                  "for b in (0, 1, 2, 3, 4)]\n",
                  "math.tanh"));
}

TEST(HostCompute, EveryExpressionPositionIsRead) {
  // A default, an annotation and a raised value are evaluated where they stand.
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef grid(t=[math.tanh(i / 8) for i in range(65)]):\n"
                  "    return t\n",
                  "math.tanh"));
  EXPECT_TRUE(
      HostCompute("\nimport math\nSTEP: [math.tanh(i / 8) for i in range(65)] = 3\n", "math.tanh"));
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef grid():\n"
                  "    raise ValueError([math.tanh(i / 8) for i in range(65)])\n",
                  "math.tanh"));
  EXPECT_TRUE(
      HostCompute("\nimport math\ntry:\n    _T = [math.tanh(i / 8) for i in range(65)]\n"
                  "except* ValueError:\n    pass\n",
                  "math.tanh"));
}

TEST(HostCompute, LaunderedLoopValuesStillVary) {
  // Rebuilt from its bits by branches that assign constants.
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef grid(t):\n    for i in range(64):\n"
                  "        if i & 32:\n            b = 32\n        else:\n            b = 0\n"
                  "        t.append(math.tanh(b + (i & 31)))\n",
                  "math.tanh"));
  // getattr with a literal name reads the attribute.
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\nclass Cur:\n    k = 0\n\n\ndef grid(t, cur):\n"
                  "    for i in range(64):\n        cur.k = i\n"
                  "        t.append(math.tanh(getattr(cur, 'k')))\n",
                  "math.tanh"));
  // A container reached through another container, an attribute or a call's result.
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef grid(t):\n    box = [0]\n    holder = [box]\n"
                  "    for i in range(64):\n        holder[0][0] = i\n"
                  "        t.append(math.tanh(box[0]))\n",
                  "math.tanh"));
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef same(v):\n    return v\n\n\ndef grid(t):\n"
                  "    box = [0]\n    ref = same(box)\n    for i in range(64):\n"
                  "        ref[0] = i\n        t.append(math.tanh(box[0]))\n",
                  "math.tanh"));
  // A dataclass's generated __init__ stores its argument in a field __post_init__ reads.
  EXPECT_TRUE(
      HostCompute("\nimport math\nfrom dataclasses import dataclass\n\n\n@dataclass\n"
                  "class P:\n    k: int\n\n    def __post_init__(self):\n"
                  "        self.v = math.tanh(self.k)\n\n\ndef grid(t):\n"
                  "    for i in range(64):\n        t.append(P(i).v)\n",
                  "math.tanh"));
  // A value computed from a launch plan's variable is the plan's.
  EXPECT_TRUE(
      HostCompute("\nimport math\n\n\ndef grid(t):\n    for i in (0, 1, 2, 3):\n"
                  "        j = i + 1\n        t.append(math.tanh(j))\n",
                  "math.tanh"));
  // An identity call inside a recurrence is still the recurrence's product.
  EXPECT_TRUE(
      HostCompute("\n\ndef same(v):\n    return v\n\n\ndef table(t):\n    e = 1 << 24\n"
                  "    for _ in range(500):\n        t.append(e)\n"
                  "        e = same(e) * 63 // 64\n",
                  "more than adding"));
  // Honest: a launch plan whose sizes are computed in its body, and an output list filled in a
  // loop and handed to a kernel.
  EXPECT_FALSE(
      HostCompute("\n\ndef plan(x, y, n):\n    outs = []\n"
                  "    for block in (256, 1024):\n        g = triton.cdiv(n, block)\n"
                  "        relu_kernel[(g,)](x, y, n, BLOCK=block)\n"
                  "        outs.append(g * block)\n    return outs\n"));
}

// Sixth review (hacks/hc6_*): C computes where no loop runs in Python. itertools with a varying
// argument (count(0, a) read at n is a * n), methods of Python values ("0" * u).replace(...)
// .count(...) is u * v), and a recurrence in a loop over a few spelled values.
TEST(HostCompute, ComputationInCIsRejected) {
  EXPECT_TRUE(
      HostCompute("\nimport itertools\n\n\ndef grid(t):\n    for i in range(64):\n"
                  "        t.append(min(itertools.islice(itertools.count(0, i), i, i + 1)))\n",
                  "iterates in C"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    for i in range(64):\n"
                  "        t.append((\"0\" * i).replace(\"0\", \"0\" * i).count(\"0\"))\n",
                  "a method of a Python value"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    for i in range(64):\n"
                  "        t.append(((0,) * i + (1,)).index(1))\n",
                  "a method of a Python value"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    e = 1024\n    for j in (0, 1, 2, 3, 4, 5, 6, 7):\n"
                  "        e = e * 63 // 64\n        t.append(e)\n",
                  "more than adding"));
  // Honest: tensor methods and container methods on loop values, a shape's product, and each
  // element of a container mapped once over a display.
  EXPECT_FALSE(HostCompute(
      "\n\ndef chunks(xs, y, d):\n    for x in xs:\n"
      "        n = x.view(-1).numel()\n        d.setdefault(n, []).append(x.stride(0))\n"
      "        relu_kernel[(1,)](x, y, n, BLOCK=256)\n"));
  EXPECT_FALSE(
      HostCompute("\n\ndef numel(x):\n    n = 1\n    for d in x.shape:\n        n *= d\n"
                  "    return n\n"));
  EXPECT_FALSE(
      HostCompute("\n\ndef flat(**kw):\n    for key in (\"mul\", \"add\"):\n"
                  "        if kw.get(key) is not None:\n"
                  "            kw[key] = kw[key].reshape(-1, kw[key].shape[-1])\n"));
}

TEST(HostCompute, RepeatedAdditionOverAVaryingCountIsAProduct) {
  // i added i times is i * i; a while loop subtracting b from a counts a // b.
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    for i in range(64):\n        acc = 0\n"
                  "        for _ in range(i):\n            acc += i\n        t.append(acc)\n",
                  "repeated addition"));
  EXPECT_TRUE(
      HostCompute("\n\ndef quot(a, b):\n    q = 0\n    while a >= b:\n        a = a - b\n"
                  "        q += 1\n    return q\n\n\ndef grid(t):\n    for i in range(1, 64):\n"
                  "        t.append(quot(4096, i))\n",
                  "repeated addition"));
  // Counts that are products or quotients: a range's or slice's step, nested generators, product
  // and combinations of varying lengths, and number methods that compute.
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    for i in range(1, 64):\n"
                  "        t.append(len(range(0, 4096, i)))\n",
                  "step"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t, pad):\n    for i in range(1, 64):\n"
                  "        t.append(len(pad[::i]))\n",
                  "step"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    for i in range(64):\n"
                  "        t.append(len([0 for a in range(i) for b in range(i)]))\n",
                  "nested generators"));
  EXPECT_TRUE(
      HostCompute("\nimport itertools\n\n\ndef grid(t):\n    for i in range(64):\n"
                  "        t.append(len(list(itertools.product(range(i), range(i)))))\n",
                  "itertools.product"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    for i in range(1, 64):\n"
                  "        t.append(i.bit_length())\n",
                  "bit_length"));
  // Other ways to make a count vary: any varying iterable, a guard in a fixed loop, a break on a
  // varying test, a while bound rebound in its body; and a table indexed by two loop values.
  EXPECT_TRUE(
      HostCompute("\nimport itertools\n\n\ndef grid(t):\n    for i in range(64):\n"
                  "        acc = 0\n        for _ in itertools.repeat(None, i):\n"
                  "            acc += i\n        t.append(acc)\n",
                  "repeated addition"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    for i in range(64):\n        acc = 0\n"
                  "        for j in range(128):\n            if j < i:\n"
                  "                acc += i\n        t.append(acc)\n",
                  "repeated addition"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    for i in range(64):\n        acc, c = 0, 0\n"
                  "        while True:\n            if c >= i:\n                break\n"
                  "            acc += i\n            c += 1\n        t.append(acc)\n",
                  "repeated addition"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t, bounds):\n    for i in range(64):\n"
                  "        acc, c, d = 0, 0, 0\n        while c < d:\n"
                  "            d = bounds[i]\n            acc += i\n            c += 1\n"
                  "        t.append(acc)\n",
                  "repeated addition"));
  EXPECT_TRUE(
      HostCompute("\n\ndef grid(t):\n    tab = [[a + b for b in range(16)] for a in "
                  "range(16)]\n    for i in range(64):\n        for j in range(64):\n"
                  "            t.append(tab[i][j])\n",
                  "two loop-varying"));
  // A selection added up in a fixed loop is a guard: acc += a if j < d else 0 counts a * d; so
  // are and/or, min of a comparison times a constant, and a display indexed by a comparison.
  for (const char* added :
       {"i if j < i else 0", "j < i and i", "min(i, (j < i) * 4096)", "(0, i)[j < i]"}) {
    EXPECT_TRUE(HostCompute(std::string("\n\ndef grid(t):\n    for i in range(64):\n"
                                        "        acc = 0\n        for j in range(128):\n"
                                        "            acc += ") +
                                added + "\n        t.append(acc)\n",
                            "repeated addition"))
        << added;
  }
  // A count of a collection built from loop values is a product: len(chain(*[[0] * u] * 8)[:v]).
  EXPECT_TRUE(
      HostCompute("\nimport itertools\n\n\ndef grid(t):\n    for i in range(64):\n"
                  "        t.append(len(list(itertools.chain(*([[0] * i] * 64)[:i]))))\n",
                  "a count"));
  // An error message that names a loop value is not a table.
  EXPECT_FALSE(
      HostCompute("\n\ndef check(x):\n    for d in range(x.dim()):\n"
                  "        if x.shape[d] == 0:\n"
                  "            raise ValueError(f\"empty dim {d}\")\n"));
  // Honest: offsets advancing by a fixed block up to a varying length, and a running offset over
  // a list of tensors.
  EXPECT_FALSE(
      HostCompute("\n\ndef ragged(x, y, lens):\n    for r in range(len(lens)):\n"
                  "        off = 0\n        while off < lens[r]:\n"
                  "            relu_kernel[(1,)](x, y, off, BLOCK=256)\n"
                  "            off += 256\n"));
  EXPECT_FALSE(
      HostCompute("\n\ndef concat(xs, y):\n    off = 0\n    for t in xs:\n"
                  "        relu_kernel[(1,)](t, y[off:], t.numel(), BLOCK=256)\n"
                  "        off += t.numel()\n"));
}

}  // namespace
}  // namespace tritonrl::verify
