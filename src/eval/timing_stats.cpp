#include "eval/timing_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

namespace tritonrl::eval {
using nlohmann::json;

namespace {

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

// The finite values, ascending (what every statistic here is taken over).
std::vector<double> SortedFinite(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

double QuantileOf(std::vector<double> values, double q) {
  return Quantile(SortedFinite(std::move(values)), q);
}

double Median(std::vector<double> values) {
  return QuantileOf(std::move(values), 0.5);
}

double QuantileStandardError(std::vector<double> values, double q) {
  const std::vector<double> v = SortedFinite(std::move(values));
  if (v.size() < 2) return 0;
  const double step = std::sqrt(q * (1 - q) / static_cast<double>(v.size()));
  return (Quantile(v, std::min(1.0, q + step)) - Quantile(v, std::max(0.0, q - step))) / 2;
}

Stats Summarize(std::vector<double> values) {
  Stats s;
  const std::vector<double> v = SortedFinite(std::move(values));
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  s.min = v.front();
  s.max = v.back();
  s.median = Quantile(v, 0.5);
  s.p25 = Quantile(v, 0.25);
  s.p75 = Quantile(v, 0.75);
  s.iqr = s.p75 - s.p25;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0.0;
  return s;
}

void to_json(json& j, const Stats& s) {
  j = {{"n", s.n},       {"median", s.median}, {"p25", s.p25}, {"p75", s.p75}, {"iqr", s.iqr},
       {"mean", s.mean}, {"stddev", s.stddev}, {"cv", s.cv},   {"min", s.min}, {"max", s.max}};
}

void from_json(const json& j, Stats& s) {
  s = Stats{};
  if (!j.is_object()) return;
  const auto number = [&j](const char* key, auto& field) {
    const auto it = j.find(key);
    if (it != j.end() && it->is_number())
      field = it->get<std::remove_reference_t<decltype(field)>>();
  };
  number("n", s.n);
  number("median", s.median);
  number("p25", s.p25);
  number("p75", s.p75);
  number("iqr", s.iqr);
  number("mean", s.mean);
  number("stddev", s.stddev);
  number("cv", s.cv);
  number("min", s.min);
  number("max", s.max);
}

}  // namespace tritonrl::eval
