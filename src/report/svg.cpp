#include "report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/report.h"

namespace tritonrl::report::svg {

namespace {

std::string Num(double v) {
  return fmt::format("{:.1f}", v);
}

std::string Text(double x, double y, const std::string& text, const std::string& anchor = "start",
                 const std::string& extra = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>", Num(x), Num(y),
                     anchor, extra, HtmlEscape(text));
}

// The opening tag of a chart of `width` x `height` (its viewBox the same).
std::string SvgOpen(const std::string& id, double width, double height) {
  return fmt::format(
      "<svg id=\"{}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">",
      HtmlEscape(id), Num(width), Num(height), Num(width), Num(height));
}

// The width a label takes at the report's 12 px sans-serif, over-estimated (7 px a character, UTF-8
// continuation bytes not counted), so a label placed by it stays inside the view box.
double TextWidth(const std::string& text) {
  double chars = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++chars;
  return 7.0 * chars;
}

// Axis ticks over [lo, hi]: a step of 1, 2 or 5 times a power of ten giving at most about six
// ticks, whole numbers only when the data are (training steps): never "1 2 2 2 3".
struct Ticks {
  std::vector<double> at;
  int decimals = 0;
};
Ticks NiceTicks(double lo, double hi, bool integers) {
  Ticks t;
  const double raw = (hi - lo) / 5.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  if (integers) step = std::max(step, 1.0);
  t.decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  for (double x = std::ceil(lo / step - 1e-9) * step; x <= hi + step * 1e-9; x += step)
    t.at.push_back(x);
  return t;
}

// "0.25x", "1x", "1.414x", "16x".
std::string PowerLabel(double log2_value) {
  return fmt::format("{:.4g}x", std::exp2(log2_value));
}

}  // namespace

std::string StackedBars(const std::string& id, const std::vector<Category>& categories,
                        const std::vector<StackedRow>& rows) {
  const double bar_w = 480, row_h = 26, top = 10;
  // The widest row label fits left of the bars; the legend's last entry fits on the right.
  double left = 90;
  for (const auto& row : rows) left = std::max(left, TextWidth(row.label) + 12);
  double legend_end = left;
  for (const auto& c : categories) legend_end += 30 + 7.5 * static_cast<double>(c.name.size());
  const double legend_y = top + row_h * static_cast<double>(rows.size()) + 14;
  const double height = legend_y + 24;
  std::string out = SvgOpen(id, std::max(left + bar_w + 80, legend_end), height);
  for (size_t r = 0; r < rows.size(); ++r) {
    const StackedRow& row = rows[r];
    double y = top + row_h * static_cast<double>(r);
    out += Text(left - 6, y + 15, row.label, "end");
    double x = left;
    for (size_t c = 0; c < categories.size() && c < row.shares.size(); ++c) {
      double w = std::clamp(row.shares[c], 0.0, 1.0) * bar_w;
      if (w <= 0) continue;
      out += fmt::format(
          "<rect class=\"seg\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{}: {:.1f}%</title></rect>",
          Num(x), Num(y + 3), Num(w), Num(row_h - 6), categories[c].color,
          HtmlEscape(row.label + " " + categories[c].name), row.shares[c] * 100);
      x += w;
    }
    out += Text(left + bar_w + 6, y + 15, fmt::format("n={}", row.total));
  }
  double lx = left;
  for (const auto& c : categories) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>", Num(lx),
                       Num(legend_y), c.color);
    out += Text(lx + 16, legend_y + 10, c.name);
    lx += 30 + 7.5 * static_cast<double>(c.name.size());
  }
  out += "</svg>";
  return out;
}

std::string LogHistogram(const std::string& id, const std::vector<double>& values,
                         double bin_width) {
  std::vector<double> logs;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) logs.push_back(std::log2(v));
  const double left = 50, top = 10, plot_w = 520, plot_h = 180;
  const double width = left + plot_w + 20, height = top + plot_h + 45;
  std::string out = SvgOpen(id, width, height);
  if (logs.empty()) {
    out += Text(left, top + 20, "no timed correct samples");
    return out + "</svg>";
  }
  // Bins aligned to multiples of bin_width, always including 1x so the marker shows.
  double lo = std::floor(std::min(0.0, *std::min_element(logs.begin(), logs.end())) / bin_width) *
              bin_width;
  double hi_data = *std::max_element(logs.begin(), logs.end());
  double hi = std::max(std::floor(hi_data / bin_width) * bin_width + bin_width, bin_width);
  int nbins = std::max(1, static_cast<int>(std::lround((hi - lo) / bin_width)));
  std::vector<int> counts(static_cast<size_t>(nbins), 0);
  for (double l : logs) {
    int b = static_cast<int>(std::floor((l - lo) / bin_width));
    counts[static_cast<size_t>(std::clamp(b, 0, nbins - 1))]++;
  }
  int max_count = *std::max_element(counts.begin(), counts.end());
  double bw = plot_w / nbins;
  auto xpos = [&](double log_value) { return left + (log_value - lo) / (hi - lo) * plot_w; };
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444\"/>", Num(left),
                     Num(top + plot_h), Num(left + plot_w), Num(top + plot_h));
  for (int b = 0; b < nbins; ++b) {
    int c = counts[static_cast<size_t>(b)];
    double h = max_count > 0 ? plot_h * c / max_count : 0;
    double blo = lo + b * bin_width;
    if (c > 0) {
      out += fmt::format(
          "<rect class=\"bin\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#4e79a7\">"
          "<title>{} to {}: {}</title></rect>",
          Num(left + b * bw + 1), Num(top + plot_h - h), Num(std::max(bw - 2, 1.0)), Num(h),
          HtmlEscape(PowerLabel(blo)), HtmlEscape(PowerLabel(blo + bin_width)), c);
    }
  }
  // Tick labels at whole powers of two (every other one if crowded).
  int first = static_cast<int>(std::ceil(lo)), last = static_cast<int>(std::floor(hi));
  int step = (last - first) > 10 ? 2 : 1;
  for (int p = first; p <= last; p += step) {
    out += Text(xpos(p), top + plot_h + 16, PowerLabel(p), "middle");
  }
  out += fmt::format(
      "<line class=\"marker\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e15759\" "
      "stroke-dasharray=\"4 3\"/>",
      Num(xpos(0)), Num(top), Num(top + plot_h));
  out += Text(left - 6, top + 10, std::to_string(max_count), "end");
  out += Text(left - 6, top + plot_h, "0", "end");
  out += Text(left + plot_w / 2, height - 6, "speedup (log scale, correct samples)", "middle");
  return out + "</svg>";
}

std::string LineChart(const std::string& id, const std::vector<Series>& series,
                      const std::string& x_label, const std::string& y_label) {
  const double left = 50, top = 10, plot_w = 420, plot_h = 180;
  const double width = left + plot_w + 150, height = top + plot_h + 45;
  std::string out = SvgOpen(id, width, height);
  int xmin = 0, xmax = 0;
  bool any = false;
  for (const auto& s : series) {
    for (int x : s.x) {
      xmin = any ? std::min(xmin, x) : x;
      xmax = any ? std::max(xmax, x) : x;
      any = true;
    }
  }
  if (!any) {
    out += Text(left, top + 20, "not available (too few samples per task)");
    return out + "</svg>";
  }
  if (xmax == xmin) ++xmax;
  auto px = [&](double x) { return left + (x - xmin) / (xmax - xmin) * plot_w; };
  auto py = [&](double y) { return top + plot_h - std::clamp(y, 0.0, 1.0) * plot_h; };
  for (double g : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#ddd\"/>", Num(left),
                       Num(py(g)), Num(left + plot_w), Num(py(g)));
    out += Text(left - 6, py(g) + 4, fmt::format("{:.0f}%", g * 100), "end");
  }
  std::map<int, bool> ticks;
  for (const auto& s : series)
    for (int x : s.x) ticks[x] = true;
  for (const auto& [x, _] : ticks)
    out += Text(px(x), top + plot_h + 16, std::to_string(x), "middle");
  double ly = top + 10;
  for (const auto& s : series) {
    std::string points;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      points += fmt::format("{}{},{}", points.empty() ? "" : " ", Num(px(s.x[i])), Num(py(s.y[i])));
    }
    out += fmt::format(
        "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
        s.color, points);
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      out += fmt::format(
          "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{} k={}: "
          "{:.1f}%</title></circle>",
          Num(px(s.x[i])), Num(py(s.y[i])), s.color, HtmlEscape(s.name), s.x[i], s.y[i] * 100);
    }
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"3\" fill=\"{}\"/>",
                       Num(left + plot_w + 16), Num(ly - 4), s.color);
    out += Text(left + plot_w + 32, ly, s.name);
    ly += 18;
  }
  out += Text(left + plot_w / 2, height - 6, x_label, "middle");
  out += Text(12, top + plot_h / 2, y_label, "middle",
              fmt::format(" transform=\"rotate(-90 12 {})\"", Num(top + plot_h / 2)));
  return out + "</svg>";
}

std::string CurveChart(const std::string& id, const std::vector<Curve>& curves,
                       const std::string& x_label, const std::string& y_label) {
  const double left = 60, top = 10, plot_w = 420, plot_h = 160;
  const double width = left + plot_w + 150, height = top + plot_h + 45;
  std::string out = SvgOpen(id, width, height);
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool any = false;
  for (const auto& c : curves) {
    for (size_t i = 0; i < c.x.size() && i < c.y.size(); ++i) {
      if (!std::isfinite(c.x[i]) || !std::isfinite(c.y[i])) continue;
      xmin = any ? std::min(xmin, c.x[i]) : c.x[i];
      xmax = any ? std::max(xmax, c.x[i]) : c.x[i];
      ymin = any ? std::min(ymin, c.y[i]) : c.y[i];
      ymax = any ? std::max(ymax, c.y[i]) : c.y[i];
      any = true;
    }
  }
  if (!any) {
    out += Text(left, top + 20, "no data");
    return out + "</svg>";
  }
  if (ymin > 0) ymin = 0;
  if (ymax <= ymin) ymax = ymin + 1;
  if (xmax <= xmin) xmax = xmin + 1;
  auto px = [&](double x) { return left + (x - xmin) / (xmax - xmin) * plot_w; };
  auto py = [&](double y) { return top + plot_h - (y - ymin) / (ymax - ymin) * plot_h; };
  for (int g = 0; g <= 4; ++g) {
    const double y = ymin + (ymax - ymin) * g / 4.0;
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#ddd\"/>", Num(left),
                       Num(py(y)), Num(left + plot_w), Num(py(y)));
    out += Text(left - 6, py(y) + 4, fmt::format("{:.3g}", y), "end");
  }
  bool integers = true;
  for (const auto& c : curves)
    for (double x : c.x)
      if (std::isfinite(x) && x != std::round(x)) integers = false;
  const Ticks ticks = NiceTicks(xmin, xmax, integers);
  for (double x : ticks.at)
    out += Text(px(x), top + plot_h + 16, fmt::format("{:.{}f}", x, ticks.decimals), "middle");
  double ly = top + 10;
  for (const auto& c : curves) {
    std::string points;
    int drawn = 0;
    double last_x = 0, last_y = 0;
    for (size_t i = 0; i < c.x.size() && i < c.y.size(); ++i) {
      if (!std::isfinite(c.x[i]) || !std::isfinite(c.y[i])) continue;
      last_x = px(c.x[i]);
      last_y = py(c.y[i]);
      points += fmt::format("{}{},{}", points.empty() ? "" : " ", Num(last_x), Num(last_y));
      ++drawn;
    }
    // A series without a finite point (a metric this log never wrote) gets no line and no legend
    // entry: the legend would promise a curve the chart does not have.
    if (drawn == 0) continue;
    out += fmt::format(
        "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" "
        "points=\"{}\"><title>{}</title></polyline>",
        HtmlEscape(c.color), points, HtmlEscape(c.name));
    // A polyline of one point draws nothing (a held-out loss measured once): mark it.
    if (drawn == 1) {
      out += fmt::format(
          "<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}</title>"
          "</circle>",
          Num(last_x), Num(last_y), HtmlEscape(c.color), HtmlEscape(c.name));
    }
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"3\" fill=\"{}\"/>",
                       Num(left + plot_w + 16), Num(ly - 4), HtmlEscape(c.color));
    out += Text(left + plot_w + 32, ly, c.name);
    ly += 18;
  }
  out += Text(left + plot_w / 2, height - 6, x_label, "middle");
  out += Text(12, top + plot_h / 2, y_label, "middle",
              fmt::format(" transform=\"rotate(-90 12 {})\"", Num(top + plot_h / 2)));
  return out + "</svg>";
}

}  // namespace tritonrl::report::svg
