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
  EXPECT_FALSE(ReadTaskLabels(path + ".missing").ok());
}

}  // namespace
}  // namespace tritonrl::rl
