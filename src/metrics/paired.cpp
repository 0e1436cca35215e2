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

// Interval::p of sorted resampled means; 1 without resamples (nothing to say beyond the estimate).
double TwoSidedP(const std::vector<double>& sorted) {
  if (sorted.empty()) return 1;
  const auto below = std::lower_bound(sorted.begin(), sorted.end(), 0.0) - sorted.begin();
  const auto above = sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), 0.0);
  const double zero = static_cast<double>(sorted.size()) - static_cast<double>(below + above);
  const double n = static_cast<double>(sorted.size());
  const double low = (static_cast<double>(below) + zero / 2) / n;
  const double high = (static_cast<double>(above) + zero / 2) / n;
  return std::min(1.0, 2 * std::min(low, high));
}

// The indices of each block, in order of first appearance; one group where all share a block.
std::vector<std::vector<size_t>> GroupByBlock(const std::vector<int>& blocks) {
  std::vector<std::vector<size_t>> groups;
  std::vector<int> ids;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const auto at = std::find(ids.begin(), ids.end(), blocks[i]) - ids.begin();
    if (static_cast<size_t>(at) == ids.size()) {
      ids.push_back(blocks[i]);
      groups.emplace_back();
    }
    groups[static_cast<size_t>(at)].push_back(i);
  }
  return groups;
}

// One resample's draw of unit indices: n tasks with replacement; with several blocks, the blocks
// with replacement, then each drawn block's tasks with replacement within it.
void Draw(std::mt19937_64& rng, const std::vector<std::vector<size_t>>& groups, size_t n,
          std::vector<size_t>& draw) {
  draw.clear();
  if (groups.size() <= 1) {
    for (size_t i = 0; i < n; ++i) draw.push_back(UniformIndex(rng, n));
    return;
  }
  for (size_t b = 0; b < groups.size(); ++b) {
    const std::vector<size_t>& g = groups[UniformIndex(rng, groups.size())];
    for (size_t i = 0; i < g.size(); ++i) draw.push_back(g[UniformIndex(rng, g.size())]);
  }
}

// The bootstrap of several per-unit statistics at once: each resample draws one list of unit
// indices (Draw) and evaluates every statistic's mean over it.
std::vector<Interval> Bootstrap(const std::vector<int>& blocks,
                                const std::vector<std::function<double(size_t)>>& values,
                                const BootstrapOptions& o) {
  const size_t n = blocks.size();
  std::vector<Interval> out(values.size());
  if (n == 0) return out;
  std::vector<std::vector<double>> means(values.size());
  for (size_t v = 0; v < values.size(); ++v) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += values[v](i);
    out[v].estimate = sum / static_cast<double>(n);
    means[v].reserve(static_cast<size_t>(std::max(o.resamples, 1)));
  }
  const std::vector<std::vector<size_t>> groups = GroupByBlock(blocks);
  std::mt19937_64 rng(o.seed);
  std::vector<size_t> draw;
  draw.reserve(2 * n);
  for (int r = 0; r < o.resamples; ++r) {
    Draw(rng, groups, n, draw);
    for (size_t v = 0; v < values.size(); ++v) {
      double sum = 0;
      for (size_t d : draw) sum += values[v](d);
      means[v].push_back(sum / static_cast<double>(draw.size()));
    }
  }
  const double tail = (1 - o.level) / 2;
  for (size_t v = 0; v < values.size(); ++v) {
    std::sort(means[v].begin(), means[v].end());
    out[v].low = means[v].empty() ? out[v].estimate : Percentile(means[v], tail);
    out[v].high = means[v].empty() ? out[v].estimate : Percentile(means[v], 1 - tail);
    out[v].p = TwoSidedP(means[v]);
  }
  return out;
}

std::vector<int> BlocksOf(std::span<const TaskPair> pairs, size_t n) {
  std::vector<int> blocks;
  for (size_t i = 0; i < n; ++i) blocks.push_back(pairs[i].block);
  return blocks;
}

}  // namespace

std::vector<double> HolmAdjusted(std::span<const double> p) {
  std::vector<size_t> order(p.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> out(p.size());
  double running = 0;
  const double m = static_cast<double>(p.size());
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const double scaled = std::min(1.0, (m - static_cast<double>(rank)) * p[order[rank]]);
    running = std::max(running, scaled);
    out[order[rank]] = running;
  }
  return out;
}

PairedComparison ComparePaired(std::span<const TaskPair> pairs, const BootstrapOptions& options) {
  PairedComparison c;
  c.tasks = static_cast<int64_t>(pairs.size());
  const auto iv = Bootstrap(
      BlocksOf(pairs, pairs.size()),
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
  return Bootstrap(BlocksOf(run, n), {[&](size_t i) {
                     return (run[i].after - run[i].before) - (control[i].after - control[i].before);
                   }},
                   options)[0];
}

}  // namespace tritonrl::metrics
