// Inline SVG charts for the HTML report (internal to the report module). Every
// label passes through HtmlEscape; the output needs no script and no fonts.
#pragma once

#include <string>
#include <vector>

namespace tritonrl::report::svg {

struct Category {
  std::string name;
  std::string color;  // CSS color
};

// One horizontal bar split into shares (each in [0, 1], summing to at most 1).
struct StackedRow {
  std::string label;
  std::vector<double> shares;  // one per category
  long long total = 0;         // sample count shown after the bar
};
std::string StackedBars(const std::string& id, const std::vector<Category>& categories,
                        const std::vector<StackedRow>& rows);

// A histogram of log2(values): bins of `bin_width` (in log2 units) over the data's range,
// with a marker line at x = 1 (log2 = 0).
std::string LogHistogram(const std::string& id, const std::vector<double>& values,
                         double bin_width = 0.5);

// Lines of y in [0, 1] over integer x (k), one per series; missing points are skipped.
struct Series {
  std::string name;
  std::string color;
  std::vector<int> x;
  std::vector<double> y;
};
std::string LineChart(const std::string& id, const std::vector<Series>& series,
                      const std::string& x_label, const std::string& y_label);

// Curves of any y range over real x (training steps): axes fitted to the data
// (y from 0 when all values are positive), one polyline per series.
struct Curve {
  std::string name;
  std::string color;
  std::vector<double> x, y;
};
std::string CurveChart(const std::string& id, const std::vector<Curve>& curves,
                       const std::string& x_label, const std::string& y_label);

}  // namespace tritonrl::report::svg
