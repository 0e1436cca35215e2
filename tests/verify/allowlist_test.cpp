#include <gtest/gtest.h>

#include "base/file.h"
#include "verify/allowlist.h"

namespace tritonrl::verify {
namespace {

TEST(Allowlist, BuiltinMatchesTheSourceFile) {
  auto text = ReadFile(std::string(TRITONRL_SOURCE_DIR) + "/src/verify/allowlist.json");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, BuiltinAllowlistJson());
  const Allowlist& a = BuiltinAllowlist();
  EXPECT_TRUE(a.torch_functions.count("torch.empty"));
  EXPECT_TRUE(a.tensor_methods.count("view"));
  EXPECT_TRUE(a.tensor_compute_methods.count("softmax"));
  EXPECT_TRUE(a.modules.count("triton"));
  EXPECT_TRUE(a.triton_names.count("triton.jit"));
  EXPECT_FALSE(a.triton_names.count("triton.runtime"));    // re-exports numpy, threading, inspect
  EXPECT_FALSE(a.torch_functions.count("torch.nn.init"));  // torch.nn.init.torch is all of torch
  EXPECT_TRUE(a.aten_ops.count("aten::empty_strided"));
  EXPECT_FALSE(a.aten_ops.count("aten::mm"));
  for (const std::string& m : a.tensor_methods)
    EXPECT_FALSE(a.tensor_compute_methods.count(m)) << m;
}

TEST(Allowlist, ParseErrorsNameTheKey) {
  auto bad = ParseAllowlist(R"({"torch_functions": [], "tensor_methods": [1]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("tensor_methods"), std::string::npos);
  EXPECT_FALSE(ParseAllowlist("{not json").ok());
}

}  // namespace
}  // namespace tritonrl::verify
