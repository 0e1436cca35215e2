// AutoTriton's is_Triton rule (the `binary` arm's linter): `@triton.jit` present, nothing more.
#include "verify/autotriton.h"

#include <gtest/gtest.h>

namespace tritonrl::verify {
namespace {

TEST(AutoTritonIsTriton, AJitDecoratorIsEnoughEvenOnAStubNeverLaunched) {
  // The paper's own reported hack (its Fig. 3c) passes the rule: that is the arm's point.
  EXPECT_TRUE(AutoTritonIsTriton("import triton\n\n@triton.jit\ndef k(x):\n    pass\n"));
  EXPECT_TRUE(
      AutoTritonIsTriton("class M:\n    @triton.jit(do_not_specialize=[1])\n"
                         "    def k(x):\n        pass\n"));
  EXPECT_TRUE(AutoTritonIsTriton("@triton.jit  # kernel\ndef k(): pass\n"));
}

TEST(AutoTritonIsTriton, PlainTorchCodeAndLookAlikesAreNotTriton) {
  EXPECT_FALSE(
      AutoTritonIsTriton("import torch\nclass ModelNew:\n    def forward(self, x):\n"
                         "        return torch.relu(x)\n"));
  EXPECT_FALSE(AutoTritonIsTriton("@triton.jitter\ndef k(): pass\n"));
  EXPECT_FALSE(AutoTritonIsTriton("@jit\ndef k(): pass\n"));  // the rule names triton.jit
  EXPECT_FALSE(AutoTritonIsTriton("x = 1  # @triton.jit\n"));
  EXPECT_FALSE(AutoTritonIsTriton(""));
}

TEST(AutoTritonIsTriton, ALineInsideATripleQuotedStringDoesNotCount) {
  EXPECT_FALSE(AutoTritonIsTriton("doc = \"\"\"\n@triton.jit\n\"\"\"\n"));
  EXPECT_FALSE(AutoTritonIsTriton("doc = '''\n@triton.jit\n'''\n"));
  EXPECT_TRUE(AutoTritonIsTriton("doc = \"\"\"one line\"\"\"\n@triton.jit\ndef k(): pass\n"));
  EXPECT_TRUE(AutoTritonIsTriton("doc = '''\n\"\"\"\n'''\n@triton.jit\ndef k(): pass\n"));
}

}  // namespace
}  // namespace tritonrl::verify
