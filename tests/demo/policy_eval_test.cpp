// The policy-evaluation summary against numbers computed by hand, and the
// evaluation prompt's shape.
#include "demo/policy_eval.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tritonrl::demo {
namespace {

using vocab::Outcome;

scoring::ScoredSample Verdict(const std::string& task, int i, Outcome outcome, bool valid,
                              bool compiled, std::optional<double> speedup = std::nullopt) {
  scoring::ScoredSample s;
  s.task = task;
  s.id = "s" + std::to_string(i);
  s.outcome = outcome;
  s.valid = valid;
  s.syntax_ok = valid;
  s.functionality_ok = valid;
  s.compiled = compiled;
  s.correct = outcome == Outcome::kCorrect;
  s.speedup = speedup;
  return s;
}

// Task a: 2 of 4 correct, one invalid syntax, one valid but incorrect.
// Task b: none correct: invalid functionality, runtime error (valid, never compiled),
// incorrect (valid, compiled), invalid syntax.
std::vector<scoring::ScoredSample> Batch(std::optional<double> s0 = std::nullopt,
                                         std::optional<double> s1 = std::nullopt) {
  return {Verdict("a", 0, Outcome::kCorrect, true, true, s0),
          Verdict("a", 1, Outcome::kCorrect, true, true, s1),
          Verdict("a", 2, Outcome::kInvalidSyntax, false, false),
          Verdict("a", 3, Outcome::kIncorrect, true, true),
          Verdict("b", 0, Outcome::kInvalidFunctionality, false, false),
          Verdict("b", 1, Outcome::kRuntimeError, true, false),
          Verdict("b", 2, Outcome::kIncorrect, true, true),
          Verdict("b", 3, Outcome::kInvalidSyntax, false, false)};
}

TEST(PolicyEvalSummary, MatchesHandComputation) {
  auto s = Summarize(Batch(), 2);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->tasks, 2);
  EXPECT_EQ(s->samples, 8);
  EXPECT_EQ(s->k, 2);
  // pass@1: mean of c/n over tasks = (2/4 + 0/4) / 2.
  EXPECT_NEAR(s->pass_at_1, 0.25, 1e-12);
  // pass@2 of task a: 1 - C(2,2)/C(4,2) = 1 - 1/6; task b: 0.
  EXPECT_NEAR(s->pass_at_k, (1.0 - 1.0 / 6.0) / 2.0, 1e-12);
  EXPECT_NEAR(s->valid_rate, 5.0 / 8.0, 1e-12);
  EXPECT_NEAR(s->compiled_rate, 4.0 / 8.0, 1e-12);
  EXPECT_NEAR(s->correct_rate, 2.0 / 8.0, 1e-12);
  EXPECT_FALSE(s->fast1_rate.has_value());  // nothing was timed
  EXPECT_EQ(s->shares.invalid_syntax, 2);
  EXPECT_EQ(s->shares.invalid_functionality, 1);
  EXPECT_EQ(s->shares.correct, 2);
  EXPECT_EQ(s->shares.other, 3);
  EXPECT_NEAR(s->shares.other_share, 3.0 / 8.0, 1e-12);

  // k = n: a task passes iff any sample is correct.
  auto all = Summarize(Batch(), 4);
  ASSERT_TRUE(all.ok());
  EXPECT_NEAR(all->pass_at_k, 0.5, 1e-12);
}

TEST(PolicyEvalSummary, Fast1CountsCorrectSamplesFasterThanTheReference) {
  auto s = Summarize(Batch(1.5, 0.8), 1);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->fast1_rate.has_value());
  EXPECT_NEAR(*s->fast1_rate, 1.0 / 8.0, 1e-12);
  EXPECT_NEAR(s->pass_at_k, s->pass_at_1, 1e-12);
}

TEST(PolicyEvalSummary, RejectsKAboveTheSamplesOfATask) {
  auto s = Summarize(Batch(), 5);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("fewer than k=5"), std::string::npos);
  EXPECT_FALSE(Summarize(Batch(), 0).ok());
}

TEST(PolicyEvalSummary, JsonNamesEveryFigure5Share) {
  auto s = Summarize(Batch(), 2);
  ASSERT_TRUE(s.ok());
  const auto j = SummaryJson(*s);
  EXPECT_DOUBLE_EQ(j.at("invalid_syntax_share").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j.at("invalid_functionality_share").get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(j.at("incorrect_share").get<double>(), 0.375);
  EXPECT_DOUBLE_EQ(j.at("correct_share").get<double>(), 0.25);
  EXPECT_TRUE(j.at("fast1_rate").is_null());
}

TEST(PolicyEvalTasks, InstructionHoldsTheTask) {
  const auto dir = std::filesystem::temp_directory_path() / "tritonrl_policy_eval_test";
  std::filesystem::create_directories(dir / "level1");
  std::ofstream(dir / "level1" / "1_X.py") << "class Model: pass  # marker-7f3\n";
  auto tasks = LoadEvalTasks(dir.string(), {"level1/1_X"});
  ASSERT_TRUE(tasks.ok()) << tasks.status().message();
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].id, "level1/1_X");
  // The user turn only: the chat template is the evaluated policy's (GenerateSamples).
  const std::string& p = (*tasks)[0].instruction;
  EXPECT_NE(p.find("marker-7f3"), std::string::npos);
  EXPECT_EQ(p.find("<|im_start|>"), std::string::npos) << p.substr(0, 40);
  auto missing = LoadEvalTasks(dir.string(), {"level1/2_missing"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("2_missing.py"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tritonrl::demo
