// The report's charts as SVG text: every label inside the view box, every series drawn (a curve of
// one point too), and axis ticks that read as distinct numbers.
#include "report/svg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace tritonrl::report::svg {
namespace {

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

struct Label {
  double x = 0;
  std::string anchor, text;
};

std::vector<Label> Labels(const std::string& svg) {
  static const std::regex kText(
      R"re(<text x="([-0-9.]+)" y="[-0-9.]+" text-anchor="(\w+)"[^>]*>([^<]*)</text>)re");
  std::vector<Label> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kText); it != std::sregex_iterator();
       ++it) {
    // A rotated label (the y axis's title) runs vertically: its width is not horizontal extent.
    if (it->str().find("rotate(") != std::string::npos) continue;
    out.push_back({std::stod((*it)[1]), (*it)[2], (*it)[3]});
  }
  return out;
}

double ViewWidth(const std::string& svg) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex(R"re(viewBox="0 0 ([0-9.]+) )re")));
  return std::stod(m[1]);
}

// A label's horizontal extent at 12 px sans-serif, about 6.5 px a character (Chromium's DejaVu
// Sans averages under that for mixed text); the chart must keep it within [0, width].
void ExpectLabelsInside(const std::string& svg) {
  const double width = ViewWidth(svg);
  for (const Label& l : Labels(svg)) {
    const double w = 6.5 * static_cast<double>(l.text.size());
    const double from = l.anchor == "end" ? l.x - w : l.anchor == "middle" ? l.x - w / 2 : l.x;
    EXPECT_GE(from, 0) << l.text;
    EXPECT_LE(from + w, width) << l.text;
  }
}

TEST(Svg, StackedBarsFitALongRowLabel) {
  const std::vector<Category> cats = {{"correct", "#59a14f"}, {"incorrect", "#e15759"}};
  const std::string svg =
      StackedBars("b", cats, {{"grpo-hrd-seed-3 (held-out shapes)", {0.5, 0.5}, 16}});
  ExpectLabelsInside(svg);
  EXPECT_NE(svg.find("grpo-hrd-seed-3 (held-out shapes)"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n'), 0);
  EXPECT_NE(svg.find("class=\"seg\""), std::string::npos);
}

TEST(Svg, ACurveOfOnePointIsDrawn) {
  const std::string svg = CurveChart(
      "c", {{"train loss", "#4e79a7", {1, 2, 3}, {3, 2, 1}}, {"held-out", "#e15759", {3}, {1.5}}},
      "step", "loss");
  // Both series: two polylines, and the one-point series as a visible marker.
  EXPECT_EQ(std::regex_search(svg, std::regex(R"re(<circle class="point"[^>]*fill="#e15759")re")),
            true);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex(R"re(<circle class="point" cx="([0-9.]+)")re")));
  EXPECT_GT(std::stod(m[1]), 0);
  ExpectLabelsInside(svg);
}

TEST(Svg, ASeriesWithoutDataIsLeftOutOfTheLegend) {
  const std::string svg = CurveChart("c",
                                     {{"valid", "#4e79a7", {1, 2}, {0.2, 0.4}},
                                      {"fast1", "#e15759", {}, {}},
                                      {"nan only", "#59a14f", {1}, {std::nan("")}}},
                                     "step", "rate");
  EXPECT_EQ(Count(svg, "class=\"series\""), 1u);
  EXPECT_NE(svg.find(">valid<"), std::string::npos);
  EXPECT_EQ(svg.find("fast1"), std::string::npos);
  EXPECT_EQ(svg.find("nan only"), std::string::npos);
}

TEST(Svg, StepTicksAreDistinctWholeNumbers) {
  const std::string svg =
      CurveChart("g", {{"reward", "#4e79a7", {1, 2, 3}, {0.1, 0.4, 0.2}}}, "step", "reward");
  std::vector<std::string> ticks;
  for (const Label& l : Labels(svg))
    if (l.anchor == "middle" && l.text != "step" && l.text != "reward") ticks.push_back(l.text);
  EXPECT_EQ(ticks, (std::vector<std::string>{"1", "2", "3"}));
  // A real-valued axis gets as many decimals as its step needs, each tick once.
  const std::string real =
      CurveChart("r", {{"x", "#4e79a7", {0.0, 0.35}, {1, 2}}}, "time", "value");
  std::set<std::string> seen;
  for (const Label& l : Labels(real)) {
    if (l.anchor == "middle" && l.text != "time" && l.text != "value") {
      EXPECT_TRUE(seen.insert(l.text).second) << l.text;
    }
  }
  EXPECT_TRUE(seen.count("0.1") && seen.count("0.3")) << real;
}

}  // namespace
}  // namespace tritonrl::report::svg
