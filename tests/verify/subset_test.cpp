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

}  // namespace
}  // namespace tritonrl::verify
