// Splitting model outputs into plan and code: spans exact, fallbacks, malformed pieces named.
#include <gtest/gtest.h>

#include <string>

#include "verify/output.h"
#include "verify/verify.h"

namespace tritonrl::verify {
namespace {

std::string_view Slice(std::string_view text, const TextSpan& span) {
  return text.substr(span.begin, span.end - span.begin);
}

constexpr const char* kCode = R"(import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y_ptr + o, tl.maximum(tl.load(x_ptr + o, mask=o < n), 0.0), mask=o < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        k[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), B=256)
        return y
)";

TEST(SplitModelOutput, PlanAndModelNewFence) {
  std::string out =
      std::string("<think>\nUse one block per 256 elements.\n</think>\nHere it is:\n") +
      "```python\n" + kCode + "```\nDone.";
  ModelOutput m = SplitModelOutput(out);
  ASSERT_TRUE(m.plan);
  EXPECT_EQ(Slice(out, *m.plan), "\nUse one block per 256 elements.\n");
  EXPECT_EQ(m.plan->begin, 7u);
  ASSERT_TRUE(m.code);
  EXPECT_EQ(Slice(out, *m.code), kCode);
  EXPECT_EQ(m.code_source, CodeSource::kModelNewFence);
  EXPECT_TRUE(m.notes.empty());
}

TEST(SplitModelOutput, TakesTheLastFenceDefiningModelNewAfterThePlan) {
  std::string draft = "class ModelNew(nn.Module):\n    pass  # draft\n";
  std::string out = "<think>```python\n" + draft + "```</think>\n```python\n" + draft +
                    "```\ntext\n```python\n" + kCode + "```\n```bash\npython run.py\n```\n";
  ModelOutput m = SplitModelOutput(out);
  ASSERT_TRUE(m.code);
  EXPECT_EQ(Slice(out, *m.code), kCode);  // not the draft, not the later bash block
  EXPECT_EQ(m.code_source, CodeSource::kModelNewFence);
  ASSERT_TRUE(m.plan);
  EXPECT_EQ(Slice(out, *m.plan), "```python\n" + draft + "```");
}

TEST(SplitModelOutput, FallsBackToTheLastFence) {
  std::string out = "<think>p</think>\n```python\nx = 1\n```\n```\ny = 2\n```\n";
  ModelOutput m = SplitModelOutput(out);
  ASSERT_TRUE(m.code);
  EXPECT_EQ(Slice(out, *m.code), "y = 2\n");
  EXPECT_EQ(m.code_source, CodeSource::kLastFence);
  EXPECT_FALSE(m.notes.empty());
}

TEST(SplitModelOutput, FallsBackToTheWholeTextWhenItParses) {
  std::string out = std::string("<think>plan</think>\n") + kCode;
  ModelOutput m = SplitModelOutput(out);
  ASSERT_TRUE(m.code);
  EXPECT_EQ(m.code_source, CodeSource::kWholeText);
  EXPECT_EQ(m.code->begin, std::string("<think>plan</think>").size());
  Verdict v = VerifyOutput(out, VerifyOptions{});
  EXPECT_TRUE(v.valid) << v.outcome;
  EXPECT_EQ(v.code_source, CodeSource::kWholeText);
}

TEST(SplitModelOutput, ProseWithoutCodeIsNoCode) {
  std::string out = "<think>hmm</think>\nI cannot write this kernel, sorry.";
  Verdict v = VerifyOutput(out, VerifyOptions{});
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.outcome, "invalid_syntax");
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].rule, "syntax.no_code");
  EXPECT_FALSE(v.code);
  ASSERT_TRUE(v.plan);
  EXPECT_EQ(Slice(out, *v.plan), "hmm");
}

TEST(SplitModelOutput, UnterminatedThinkIsNamed) {
  std::string out = "<think>still thinking ... ```python\nx = 1\n```";
  ModelOutput m = SplitModelOutput(out);
  EXPECT_FALSE(m.plan);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("unterminated <think>"), std::string::npos);
}

TEST(SplitModelOutput, PlanOpenedByThePrompt) {
  // Qwen3-style templates end the prompt with <think>: the output starts inside the plan.
  std::string out = "plan text\n</think>\n```python\n" + std::string(kCode) + "```";
  ModelOutput m = SplitModelOutput(out);
  ASSERT_TRUE(m.plan);
  EXPECT_EQ(Slice(out, *m.plan), "plan text\n");
  EXPECT_EQ(m.plan->begin, 0u);
  ASSERT_TRUE(m.code);
  EXPECT_EQ(Slice(out, *m.code), kCode);
}

TEST(SplitModelOutput, UnterminatedFenceTakesTheRest) {
  std::string out = "<think>a</think>```python\nclass ModelNew(nn.Module):\n    pass";
  ModelOutput m = SplitModelOutput(out);
  ASSERT_TRUE(m.code);
  EXPECT_EQ(Slice(out, *m.code), "class ModelNew(nn.Module):\n    pass");
  bool named = false;
  for (const auto& n : m.notes) named = named || n == "unterminated code fence";
  EXPECT_TRUE(named);
}

TEST(SplitModelOutput, CharacterSpansCountCodePoints) {
  // "é" is two bytes, "→" three: char offsets differ from byte offsets by 1 + 2.
  std::string out = "é→<think>ab</think>";
  ModelOutput m = SplitModelOutput(out);
  ASSERT_TRUE(m.plan);
  EXPECT_EQ(m.plan->begin, 5u + 7u);
  EXPECT_EQ(m.plan->char_begin, 2u + 7u);
  EXPECT_EQ(m.plan->char_end - m.plan->char_begin, 2u);
  EXPECT_EQ(CharOffset(out, out.size()), out.size() - 3);
}

TEST(SplitModelOutput, EmptyOutput) {
  ModelOutput m = SplitModelOutput("");
  EXPECT_FALSE(m.plan);
  EXPECT_FALSE(m.code);
  EXPECT_EQ(m.code_source, CodeSource::kNone);
  EXPECT_EQ(VerifyOutput("", VerifyOptions{}).violations.at(0).rule, "syntax.no_code");
}

TEST(VerifyOutput, JsonNamesEveryField) {
  std::string out = "<think>x</think>\n```python\n" + std::string(kCode) + "```";
  nlohmann::json j = ToJson(VerifyOutput(out, VerifyOptions{}));
  for (const char* key : {"valid", "syntax_ok", "functionality_ok", "outcome", "violations",
                          "warnings", "plan", "code", "code_source", "policy", "notes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["outcome"], "valid");
  EXPECT_EQ(j["plan"]["begin"], 7);
  EXPECT_EQ(j["plan"]["end"], 8);
  EXPECT_EQ(j["code_source"], "modelnew_fence");
}

// PlanText is the plan span's text, or none.
TEST(SplitModelOutput, PlanTextIsThePlanSpan) {
  const std::string out = "<think>\nblocks of 256\n</think>\n```python\nx = 1\n```\n";
  const ModelOutput split = SplitModelOutput(out);
  ASSERT_TRUE(split.plan.has_value());
  ASSERT_TRUE(PlanText(out).has_value());
  EXPECT_EQ(*PlanText(out), Slice(out, *split.plan));
  EXPECT_NE(PlanText(out)->find("blocks of 256"), std::string_view::npos);
  EXPECT_FALSE(PlanText("```python\nx = 1\n```\n").has_value());
}

}  // namespace
}  // namespace tritonrl::verify
