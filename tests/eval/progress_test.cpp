#include "eval/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace tritonrl::eval {
namespace {

TEST(ProgressTest, FormatsDurations) {
  EXPECT_EQ(FormatDuration(42.4), "42s");
  EXPECT_EQ(FormatDuration(65), "1m05s");
  EXPECT_EQ(FormatDuration(3 * 3600 + 120), "3h02m");
  EXPECT_EQ(FormatDuration(-1), "--");
}

TEST(ProgressTest, LineCountsOutcomes) {
  std::FILE* sink = std::tmpfile();
  Progress p(4, false, sink);
  p.Done("correct", "a");
  p.Done("incorrect", "b");
  p.Done("correct", "c");
  const std::string line = p.Line();
  EXPECT_NE(line.find("3/4"), std::string::npos) << line;
  EXPECT_NE(line.find("correct=2"), std::string::npos) << line;
  EXPECT_NE(line.find("incorrect=1"), std::string::npos) << line;
  EXPECT_NE(line.find("##################......"), std::string::npos) << line;
  std::rewind(sink);
  char buf[128] = {0};
  ASSERT_NE(std::fgets(buf, sizeof buf, sink), nullptr);
  EXPECT_EQ(std::string(buf), "eval: 1/4 a -> correct\n");
  std::fclose(sink);
}

}  // namespace
}  // namespace tritonrl::eval
