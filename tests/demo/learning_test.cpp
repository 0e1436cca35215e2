// The learning experiment's pure parts: the per-task tally and the pool selection rule
// (demo/calibrate.h), an evaluation summary read back by a resumed demo (demo/policy_eval.h) and
// the report's opening table.
#include <gtest/gtest.h>

#include "demo/calibrate.h"
#include "demo/policy_eval.h"
#include "report/demo_report.h"

namespace {

namespace d = tritonrl::demo;
using tritonrl::rl::LabelOf;

// Three samples of one task: a timed correct one (speedup 2), an incorrect one, an untimed correct
// one without a plan. The tally counts the rewarded, sums only the trusted speedup and reads each
// plan's choice from the generated text of the verdict's sample.
TEST(LabelTasks, TalliesPassSpeedupAndPlanChoices) {
  namespace sc = tritonrl::scoring;
  d::PolicyEvalResult eval;
  eval.generated = {{.task = "t",
                     .id = "t#0",
                     .text = "<think>\nblocks of 256 columns\n</think>\n```python\nx\n```"},
                    {.task = "t",
                     .id = "t#1",
                     .text = "<think>BLOCK 512, 64-bit offsets</think>\n```python\nx\n```"},
                    {.task = "t", .id = "t#2", .text = "```python\nx\n```"}};
  auto verdict = [](const std::string& id, bool correct, std::optional<double> speedup) {
    sc::ScoredSample v;
    v.task = id.substr(0, id.find('#'));
    v.id = id;
    v.syntax_ok = v.functionality_ok = v.valid = v.compiled = true;
    v.correct = correct;
    v.outcome = correct ? tritonrl::vocab::Outcome::kCorrect : tritonrl::vocab::Outcome::kIncorrect;
    v.speedup = speedup;
    return v;
  };
  eval.verdicts = {verdict("t#0", true, 2.0), verdict("t#1", false, std::nullopt),
                   verdict("t#2", true, std::nullopt), verdict("other#0", true, 5.0)};
  const auto labels = d::LabelTasks({{.id = "t", .instruction = ""}}, eval);
  ASSERT_EQ(labels.size(), 1u);
  const tritonrl::rl::TaskLabel& l = labels[0];
  EXPECT_EQ(l.samples, 3);
  EXPECT_EQ(l.passed, 2);
  EXPECT_DOUBLE_EQ(l.speedup_sum, 2.0);
  EXPECT_EQ(l.outcomes.at("fast"), 1);
  EXPECT_EQ(l.outcomes.at("correct_not_fast"), 1);
  EXPECT_EQ(l.plan_choices,
            (std::map<std::string, int64_t>{{"256", 1}, {"512", 1}, {tritonrl::rl::kNoPlan, 1}}));
}

TEST(SelectPool, KeepsTheCandidatesSolvedSometimesAtLevelOne) {
  const std::vector<tritonrl::rl::TaskLabel> labels = {
      LabelOf("never", 0, 8), LabelOf("half", 4, 8), LabelOf("always", 8, 8),
      LabelOf("once", 1, 8)};
  const d::PoolSelection p = d::SelectPool(labels, 2, false);
  ASSERT_EQ(p.pool.size(), 2u);
  EXPECT_EQ(p.pool[0].task, "half");
  EXPECT_EQ(p.pool[1].task, "once");
  EXPECT_EQ(p.never, 1);
  EXPECT_EQ(p.sometimes, 2);
  EXPECT_EQ(p.always, 1);
  EXPECT_TRUE(p.meets_minimum);
  EXPECT_FALSE(d::SelectPool(labels, 3, false).meets_minimum);
}

TEST(SelectPool, TakeAllKeepsEveryCandidateSampleable) {
  const std::vector<tritonrl::rl::TaskLabel> labels = {LabelOf("never", 0, 2),
                                                       LabelOf("always", 2, 2)};
  const d::PoolSelection p = d::SelectPool(labels, 0, true);
  ASSERT_EQ(p.pool.size(), 2u);
  // A never-solved task is level 2 (out of reach), which GRPO's default weights never sample.
  EXPECT_EQ(labels[0].level, tritonrl::rl::kLevelOutOfReach);
  EXPECT_EQ(p.pool[0].level, tritonrl::rl::kLevelWithinReach);
  EXPECT_EQ(p.never, 1);
  EXPECT_EQ(p.always, 1);
  EXPECT_EQ(p.sometimes, 0);
}

TEST(SummaryFromJson, ReadsBackWhatSummaryJsonWrote) {
  d::EvalSummary s;
  s.tasks = 3;
  s.samples = 24;
  s.k = 8;
  s.pass_at_1 = 0.25;
  s.pass_at_k = 0.5;
  s.valid_rate = 0.75;
  s.compiled_rate = 0.5;
  s.correct_rate = 0.25;
  s.truncated = 2;
  s.shares.invalid_syntax_share = 0.125;
  s.shares.invalid_functionality_share = 0.125;
  s.shares.other_share = 0.5;
  s.shares.correct_share = 0.25;
  auto back = d::SummaryFromJson(d::SummaryJson(s));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->tasks, 3);
  EXPECT_EQ(back->k, 8);
  EXPECT_DOUBLE_EQ(back->pass_at_k, 0.5);
  EXPECT_FALSE(back->fast1_rate.has_value());
  EXPECT_EQ(back->shares.correct, 6);  // 0.25 x 24 samples
  EXPECT_EQ(back->shares.invalid_syntax, 3);
  EXPECT_FALSE(d::SummaryFromJson(nlohmann::json{{"tasks", 1}}).ok());
}

TEST(DemoReport, OpensWithTheLearningTable) {
  tritonrl::report::DemoReportInput in;
  tritonrl::report::DemoLearningTable t;
  t.caption = "47 pool tasks";
  t.warning = "below the minimum";
  t.rows.push_back({"pass@1", 0.69, 0.62, 0.75, 0.768, 0.70, 0.83, 0.078, 0.045, 0.113});
  in.learning = t;
  in.comparisons.push_back({"heldout", "sft", "grpo", "pass@1", 2, 0, 0, 0, 0, 0});
  auto html = tritonrl::report::RenderDemoReport(in);
  ASSERT_TRUE(html.ok());
  const size_t learning = html->find("id=\"learning\"");
  ASSERT_NE(learning, std::string::npos);
  EXPECT_LT(learning, html->find("id=\"paired\""));
  EXPECT_LT(html->find("below the minimum"), learning);
  EXPECT_NE(html->find("0.690 [0.620, 0.750]"), std::string::npos);
  EXPECT_NE(html->find("+0.078 [+0.045, +0.113] *"), std::string::npos);
}

}  // namespace
