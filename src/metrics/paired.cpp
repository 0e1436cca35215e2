#include "metrics/paired.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace tritonrl::metrics {

namespace {

// A uniform index in [0, n) from mt19937_64's specified output (modulo with rejection of the
// 2^64 mod n lowest values), so the draw is the same on every platform, unlike
// std::uniform_int_distribution.
size_t UniformIndex(std::mt19937_64& rng, size_t n) {
  const uint64_t m = static_cast<uint64_t>(n);
  const uint64_t threshold = (0 - m) % m;  // 2^64 mod n
  while (true) {
    const uint64_t x = rng();
    if (x >= threshold) return static_cast<size_t>(x % m);
  }
}

// The percentile of sorted values with linear interpolation (numpy's default).
double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  const size_t j = std::min(i + 1, sorted.size() - 1);
  return sorted[i] + (pos - static_cast<double>(i)) * (sorted[j] - sorted[i]);
}

// The bootstrap of several per-task statistics at once: each resample draws one list of task
// indices and evaluates every statistic's mean over it.
std::vector<Interval> Bootstrap(size_t n, const std::vector<std::function<double(size_t)>>& values,
                                const BootstrapOptions& o) {
  std::vector<Interval> out(values.size());
  if (n == 0) return out;
  std::vector<std::vector<double>> means(values.size());
  for (size_t v = 0; v < values.size(); ++v) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += values[v](i);
    out[v].estimate = sum / static_cast<double>(n);
    means[v].reserve(static_cast<size_t>(std::max(o.resamples, 1)));
  }
  std::mt19937_64 rng(o.seed);
  std::vector<size_t> draw(n);
  for (int r = 0; r < o.resamples; ++r) {
    for (size_t& d : draw) d = UniformIndex(rng, n);
    for (size_t v = 0; v < values.size(); ++v) {
      double sum = 0;
      for (size_t d : draw) sum += values[v](d);
      means[v].push_back(sum / static_cast<double>(n));
    }
  }
  const double tail = (1 - o.level) / 2;
  for (size_t v = 0; v < values.size(); ++v) {
    std::sort(means[v].begin(), means[v].end());
    out[v].low = means[v].empty() ? out[v].estimate : Percentile(means[v], tail);
    out[v].high = means[v].empty() ? out[v].estimate : Percentile(means[v], 1 - tail);
  }
  return out;
}

}  // namespace

PairedComparison ComparePaired(std::span<const TaskPair> pairs, const BootstrapOptions& options) {
  PairedComparison c;
  c.tasks = static_cast<int64_t>(pairs.size());
  const auto iv = Bootstrap(
      pairs.size(),
      {[&](size_t i) { return pairs[i].before; }, [&](size_t i) { return pairs[i].after; },
       [&](size_t i) { return pairs[i].after - pairs[i].before; }},
      options);
  c.before = iv[0];
  c.after = iv[1];
  c.difference = iv[2];
  return c;
}

Interval DifferenceFromControl(std::span<const TaskPair> run, std::span<const TaskPair> control,
                               const BootstrapOptions& options) {
  const size_t n = std::min(run.size(), control.size());
  return Bootstrap(n, {[&](size_t i) {
                     return (run[i].after - run[i].before) - (control[i].after - control[i].before);
                   }},
                   options)[0];
}

}  // namespace tritonrl::metrics
