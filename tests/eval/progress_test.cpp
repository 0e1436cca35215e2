#include "eval/progress.h"

#include <gtest/gtest.h>

#include <chrono>
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

// The rate counts from when the work began: a bar made at the first verdict, 2 s into a run,
// reads about 0.5/s, not the 100,000/s that timing from the bar's own creation gave.
TEST(ProgressTest, RateCountsFromTheStartOfTheWork) {
  std::FILE* sink = std::tmpfile();
  Progress p(10, false, sink, std::chrono::steady_clock::now() - std::chrono::seconds(2));
  p.Done("correct", "a");
  const std::string line = p.Line();
  const auto at = line.find("/s");
  ASSERT_NE(at, std::string::npos) << line;
  const double rate = std::stod(line.substr(line.rfind(' ', at) + 1));
  EXPECT_GT(rate, 0.3) << line;
  EXPECT_LT(rate, 0.6) << line;
  std::fclose(sink);
}

}  // namespace
}  // namespace tritonrl::eval
