// Difficulty labels (rl/task_labels.h): the level of a pass rate, the file written and read
// back, and bad files refused naming FILE:LINE.
#include "rl/task_labels.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tritonrl::rl {
namespace {

namespace fs = std::filesystem;

TEST(TaskLabels, PassRateDecidesTheLevel) {
  EXPECT_EQ(LabelOf("a", 0, 8).level, kLevelOutOfReach);
  const TaskLabel some = LabelOf("b", 3, 8);
  EXPECT_EQ(some.level, kLevelWithinReach);
  EXPECT_DOUBLE_EQ(some.pass_rate, 0.375);
  EXPECT_EQ(LabelOf("c", 8, 8).level, kLevelWithinReach);  // solved always: still level 1
}

TEST(TaskLabels, WrittenAndReadBack) {
  const std::string path = (fs::path(::testing::TempDir()) / "labels_roundtrip.jsonl").string();
  ASSERT_TRUE(WriteTaskLabels(path, {LabelOf("level1/1_ReLU", 2, 8), LabelOf("x/y", 0, 8)}).ok());
  auto read = ReadTaskLabels(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ(read->at("level1/1_ReLU").level, 1);
  EXPECT_EQ(read->at("level1/1_ReLU").passed, 2);
  EXPECT_DOUBLE_EQ(read->at("level1/1_ReLU").pass_rate, 0.25);
  EXPECT_EQ(read->at("x/y").level, 2);
}

// The per-task shares the paired comparisons read, by hand; the valid count and the outcomes
// survive the file.
TEST(TaskLabels, SharesByHandAndTheirRoundTrip) {
  TaskLabel l = LabelOf("t", 2, 8);
  l.valid = 6;
  l.outcomes = {{"invalid_syntax", 1},
                {"invalid_functionality", 1},
                {"incorrect", 4},
                {"correct_not_fast", 2}};
  EXPECT_DOUBLE_EQ(LabelShare(l, "pass@1"), 0.25);
  EXPECT_DOUBLE_EQ(LabelShare(l, "valid"), 0.75);
  EXPECT_DOUBLE_EQ(LabelShare(l, "invalid"), 0.25);
  EXPECT_DOUBLE_EQ(LabelShare(l, "incorrect"), 0.5);
  EXPECT_DOUBLE_EQ(LabelShare(l, "fast"), 0.0);
  EXPECT_DOUBLE_EQ(LabelShare(LabelOf("empty", 0, 0), "pass@1"), 0.0);
  const std::string path = (fs::path(::testing::TempDir()) / "labels_shares.jsonl").string();
  ASSERT_TRUE(WriteTaskLabels(path, {l}).ok());
  auto read = ReadTaskLabels(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->at("t").valid, 6);
  EXPECT_EQ(read->at("t").outcomes, l.outcomes);
}

// Plan choices: the block sizes a plan names, from the synthetic data's own phrasing; widths of
// integers, exponents and numbers inside words are not choices.
TEST(TaskLabels, PlanChoiceNamesTheBlockSizes) {
  EXPECT_EQ(PlanChoice("A 2-D grid: one selected row per program along axis 0, blocks of 512 "
                       "columns along axis 1. Masks on the column tail; 64-bit source offsets "
                       "since rows*cols passes 2^31 at the large size."),
            "512");
  EXPECT_EQ(PlanChoice("BLOCK_M = 64 and BLOCK_N = 128, then 64 again"), "64+128");
  EXPECT_EQ(PlanChoice("tiles of 1024, or 2^16, on sm90 with x86 hosts, 48 warps, v256"), "1024");
  EXPECT_EQ(PlanChoice("one program per row"), "none");
  EXPECT_EQ(PlanChoice("BLOCK=8 and 131072 elements, 1.512 scale"), "none");
}

// mean_speedup and plan_concentration by hand; both survive the file.
TEST(TaskLabels, SpeedAndPlanSharesByHandAndTheirRoundTrip) {
  TaskLabel l = LabelOf("t", 3, 4);
  l.speedup_sum = 1.5 + 0.5 + 2.0;  // three correct samples timed, one incorrect (0)
  l.plan_choices = {{"256", 2}, {"512", 1}, {kNoPlan, 1}};
  EXPECT_DOUBLE_EQ(LabelShare(l, "mean_speedup"), 1.0);
  // Pairs of different samples making the same choice: 2 * 1 of 4 * 3.
  EXPECT_DOUBLE_EQ(LabelShare(l, "plan_concentration"), 2.0 / 12.0);
  TaskLabel one = LabelOf("u", 1, 1);
  one.plan_choices = {{"256", 1}};
  EXPECT_DOUBLE_EQ(LabelShare(one, "plan_concentration"), 0.0);
  const std::string path = (fs::path(::testing::TempDir()) / "labels_speed.jsonl").string();
  ASSERT_TRUE(WriteTaskLabels(path, {l, LabelOf("v", 0, 4)}).ok());
  auto read = ReadTaskLabels(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_DOUBLE_EQ(read->at("t").speedup_sum, 4.0);
  EXPECT_EQ(read->at("t").plan_choices, l.plan_choices);
  EXPECT_TRUE(read->at("v").plan_choices.empty());
  EXPECT_DOUBLE_EQ(read->at("v").speedup_sum, 0.0);
}

TEST(TaskLabels, BadFilesNameTheLine) {
  const std::string path = (fs::path(::testing::TempDir()) / "labels_bad.jsonl").string();
  std::ofstream(path) << "{\"task\": \"a\", \"level\": 1}\n\n{\"task\": \"b\", \"level\": 0}\n";
  auto r = ReadTaskLabels(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path + ":3:"), std::string::npos) << r.status().message();
  std::ofstream(path) << "{\"task\": \"a\", \"level\": 1}\n{\"task\": \"a\", \"level\": 2}\n";
  r = ReadTaskLabels(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("labelled twice"), std::string::npos);
  std::ofstream(path) << "{\"task\": \"a\", \"level\": 1, \"plan_choices\": {\"256\": -1}}\n";
  r = ReadTaskLabels(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path + ":1:"), std::string::npos) << r.status().message();
  std::ofstream(path) << "{\"task\": \"a\", \"level\": 1}\n{\"task\": \"b\", \"level\": 1, "
                         "\"speedup_sum\": \"fast\"}\n";
  r = ReadTaskLabels(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path + ":2:"), std::string::npos) << r.status().message();
  EXPECT_FALSE(ReadTaskLabels(path + ".missing").ok());
}

}  // namespace
}  // namespace tritonrl::rl
