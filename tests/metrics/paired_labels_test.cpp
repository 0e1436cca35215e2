// metrics/paired_labels.h: which tasks are paired, and that each metric's numbers are the per-task
// shares' means, checked against shares written out by hand.
#include "metrics/paired_labels.h"

#include <gtest/gtest.h>

namespace {

using tritonrl::metrics::CommonTasks;
using tritonrl::metrics::CompareLabelBlocks;
using tritonrl::metrics::CompareLabels;
using tritonrl::metrics::TaskLabels;
using tritonrl::rl::TaskLabel;

TaskLabel Label(const std::string& task, int64_t samples, int64_t passed, int64_t syntax) {
  TaskLabel l;
  l.task = task;
  l.samples = samples;
  l.passed = passed;
  l.outcomes["invalid_syntax"] = syntax;
  l.outcomes["correct_not_fast"] = passed;
  return l;
}

TEST(PairedLabels, PairsOnlyTheSharedTasksInIdOrder) {
  const TaskLabels a = {
      {"t2", Label("t2", 4, 1, 0)}, {"t1", Label("t1", 4, 0, 4)}, {"x", Label("x", 4, 0, 0)}};
  const TaskLabels b = {{"t1", Label("t1", 4, 2, 1)}, {"t2", Label("t2", 4, 3, 0)}};
  auto tasks = CommonTasks({{"a", &a}, {"b", &b}});
  ASSERT_TRUE(tasks.ok());
  EXPECT_EQ(*tasks, (std::vector<std::string>{"t1", "t2"}));
}

TEST(PairedLabels, ASharedTaskWithoutSamplesFailsNamingIt) {
  const TaskLabels a = {{"t1", Label("t1", 4, 0, 0)}};
  const TaskLabels b = {{"t1", Label("t1", 0, 0, 0)}};
  auto tasks = CommonTasks({{"a.jsonl", &a}, {"b.jsonl", &b}});
  ASSERT_FALSE(tasks.ok());
  EXPECT_NE(tasks.status().message().find("b.jsonl: task t1"), std::string::npos);
}

TEST(PairedLabels, EstimatesAreMeansOfTheTaskShares) {
  // pass@1 per task: before 0/4 and 1/4 (mean 0.125), after 2/4 and 3/4 (mean 0.625).
  // invalid_syntax: before 4/4 and 0/4 (0.5), after 1/4 and 0/4 (0.125).
  const TaskLabels before = {{"t1", Label("t1", 4, 0, 4)}, {"t2", Label("t2", 4, 1, 0)}};
  const TaskLabels after = {{"t1", Label("t1", 4, 2, 1)}, {"t2", Label("t2", 4, 3, 0)}};
  auto c = CompareLabels({{"before", &before}, {"after", &after}}, {.resamples = 2000});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->metrics.size(), tritonrl::metrics::PairedLabelMetrics().size());
  const auto& pass = c->metrics[0];
  EXPECT_EQ(pass.metric, "pass@1");
  EXPECT_DOUBLE_EQ(pass.run.before.estimate, 0.125);
  EXPECT_DOUBLE_EQ(pass.run.after.estimate, 0.625);
  EXPECT_DOUBLE_EQ(pass.run.difference.estimate, 0.5);
  // Both tasks rose by exactly 0.5: every resample's mean difference is 0.5.
  EXPECT_DOUBLE_EQ(pass.run.difference.low, 0.5);
  EXPECT_DOUBLE_EQ(pass.run.difference.high, 0.5);
  EXPECT_FALSE(pass.control.has_value());
  const auto& syntax = c->metrics[2];
  EXPECT_EQ(syntax.metric, "invalid_syntax");
  EXPECT_DOUBLE_EQ(syntax.run.before.estimate, 0.5);
  EXPECT_DOUBLE_EQ(syntax.run.after.estimate, 0.125);
  // Differences -0.75 and 0: the resampled means lie in [-0.75, 0].
  EXPECT_GE(syntax.run.difference.low, -0.75);
  EXPECT_LE(syntax.run.difference.high, 0.0);
  const auto j = tritonrl::metrics::LabelComparisonJson(*c);
  EXPECT_EQ(j["tasks"], 2);
  EXPECT_DOUBLE_EQ(j["metrics"]["pass@1"]["difference"]["estimate"].get<double>(), 0.5);
}

TEST(PairedLabels, AControlGivesTheDifferenceFromIt) {
  const TaskLabels before = {{"t1", Label("t1", 4, 0, 0)}, {"t2", Label("t2", 4, 0, 0)}};
  const TaskLabels after = {{"t1", Label("t1", 4, 4, 0)}, {"t2", Label("t2", 4, 2, 0)}};
  const TaskLabels cb = before, ca = {{"t1", Label("t1", 4, 1, 0)}, {"t2", Label("t2", 4, 1, 0)}};
  auto c = CompareLabels({{"b", &before}, {"a", &after}, {"cb", &cb}, {"ca", &ca}}, {});
  ASSERT_TRUE(c.ok());
  // run: +1 and +0.5 (mean 0.75); control: +0.25 each; run - control: 0.5.
  ASSERT_TRUE(c->metrics[0].difference_from_control.has_value());
  EXPECT_DOUBLE_EQ(c->metrics[0].difference_from_control->estimate, 0.5);
  EXPECT_DOUBLE_EQ(c->metrics[0].control->difference.estimate, 0.25);
  EXPECT_FALSE(CompareLabels({{"b", &before}, {"a", &after}, {"cb", &cb}}, {}).ok());
}

// Two blocks with their own tasks (two leases, two pools): each block's tasks are paired within
// it, the estimate is the mean over all pairs, and the plan choices pool over both blocks.
TEST(PairedLabels, BlocksPairWithinEachBlockAndPoolThePlans) {
  TaskLabels b1_before = {{"p", Label("p", 4, 0, 0)}, {"q", Label("q", 4, 2, 0)}};
  TaskLabels b1_after = {{"p", Label("p", 4, 4, 0)}, {"q", Label("q", 4, 2, 0)}};
  TaskLabels b2_before = {{"r", Label("r", 4, 1, 0)}};
  TaskLabels b2_after = {{"r", Label("r", 4, 2, 0)}, {"p", Label("p", 4, 0, 0)}};
  b1_before["p"].plan_choices = {{"256", 4}};
  b1_after["p"].plan_choices = {{"512", 4}};
  b2_before["r"].plan_choices = {{"256", 4}};
  b2_after["r"].plan_choices = {{"256", 2}, {"512", 2}};
  b2_after["p"].plan_choices = {{"1024", 4}};  // not in block 2's before: not pooled
  auto c = CompareLabelBlocks(
      {{{"b1b", &b1_before}, {"b1a", &b1_after}}, {{"b2b", &b2_before}, {"b2a", &b2_after}}},
      {.resamples = 2000});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->blocks, 2);
  EXPECT_EQ(c->tasks, (std::vector<std::string>{"b1/p", "b1/q", "b2/r"}));
  // pass@1 differences: p +1, q 0, r +0.25; the mean over the three pairs.
  EXPECT_DOUBLE_EQ(c->metrics[0].run.difference.estimate, 1.25 / 3);
  EXPECT_EQ(c->plans.before, (std::map<std::string, int64_t>{{"256", 8}}));
  EXPECT_EQ(c->plans.after, (std::map<std::string, int64_t>{{"256", 2}, {"512", 6}}));
  EXPECT_DOUBLE_EQ(c->plans.total_variation, 0.75);  // 256: 1 -> 0.25
  const auto j = tritonrl::metrics::LabelComparisonJson(*c);
  EXPECT_EQ(j["blocks"], 2);
  EXPECT_DOUBLE_EQ(j["plan_choices"]["total_variation"].get<double>(), 0.75);
  // A block that compares differently (a control in one block only) is refused.
  auto bad = CompareLabelBlocks(
      {{{"b1b", &b1_before}, {"b1a", &b1_after}},
       {{"b2b", &b2_before}, {"b2a", &b2_after}, {"cb", &b2_before}, {"ca", &b2_after}}},
      {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("block 2"), std::string::npos);
}

}  // namespace
