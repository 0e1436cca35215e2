#include "eval/timing_plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace tritonrl::eval {
using nlohmann::json;

void DrawTimingPlan(TimingOptions& o, std::uint64_t secret) {
  std::mt19937_64 rng(secret);
  o.seeds.clear();
  for (int i = 0; i < o.trials; ++i) o.seeds.push_back(static_cast<std::int64_t>(rng() >> 2));
  o.input_seed = static_cast<std::int64_t>(rng() >> 2);
  std::vector<int> idx(static_cast<std::size_t>(o.trials));
  std::iota(idx.begin(), idx.end(), 0);
  std::shuffle(idx.begin(), idx.end(), rng);
  idx.resize(static_cast<std::size_t>(std::clamp(o.recheck, 1, std::max(o.trials, 1))));
  std::sort(idx.begin(), idx.end());
  o.recheck_indices = idx;
  o.sample_seeds.clear();
  for (int i = 0; i < o.trials; ++i)
    o.sample_seeds.push_back(static_cast<std::int64_t>(rng() >> 2));
  o.warmup_seeds.clear();
  for (int i = 0; i < std::max(o.warmup, 1); ++i)
    o.warmup_seeds.push_back(static_cast<std::int64_t>(rng() >> 2));
}

void CopyDrawnPlan(const TimingOptions& from, TimingOptions& to) {
  to.seeds = from.seeds;
  to.input_seed = from.input_seed;
  to.recheck_indices = from.recheck_indices;
  to.sample_seeds = from.sample_seeds;
  to.warmup_seeds = from.warmup_seeds;
}

int TimedCalls(const TimingOptions& o) {
  return static_cast<int>(o.seeds.size());
}

std::string TimedVariant(const std::vector<std::string>& variants) {
  if (std::find(variants.begin(), variants.end(), "large") != variants.end()) return "large";
  return variants.empty() ? "default" : variants.back();
}

json TimingRequest(const TimingOptions& o, const std::string& variant) {
  return {{"variant", variant},
          {"input_seed", o.input_seed},
          {"warmup", o.warmup},
          {"sample_count", o.sample_count},
          {"profile_calls", o.profile_calls},
          {"cover_us", o.cover_us},
          {"baseline", o.baseline}};
}

json TimingPlan(const TimingOptions& o) {
  return {{"seeds", o.seeds},
          {"recheck", o.recheck_indices},
          {"sample_seeds", o.sample_seeds},
          {"warmup_seeds", o.warmup_seeds}};
}

json PerCallTimingPlan(const TimingOptions& o) {
  return {{"warmup_seeds", o.warmup_seeds}, {"calls", TimedCalls(o)}};
}

json CallAnswer(const TimingOptions& o, int index) {
  json a = {{"type", "call"}, {"index", index}, {"recheck_prev", false}};
  a["seed"] = index >= 0 && index < TimedCalls(o) ? json(o.seeds[static_cast<std::size_t>(index)])
                                                  : json(nullptr);
  const int prev = index - 1;
  if (prev >= 0 && prev < TimedCalls(o) &&
      std::binary_search(o.recheck_indices.begin(), o.recheck_indices.end(), prev) &&
      static_cast<std::size_t>(prev) < o.sample_seeds.size()) {
    a["recheck_prev"] = true;
    a["sample_seed"] = o.sample_seeds[static_cast<std::size_t>(prev)];
  }
  return a;
}

std::chrono::milliseconds CandidateTimingBudget(const TimingOptions& o, double reference_phase_ms) {
  if (!(reference_phase_ms > 0) || !std::isfinite(reference_phase_ms) || !(o.slow_factor > 0))
    return o.timeout;
  const double ms =
      std::max(static_cast<double>(o.slow_floor.count()), o.slow_factor * reference_phase_ms);
  if (ms >= static_cast<double>(o.timeout.count())) return o.timeout;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(ms)));
}

}  // namespace tritonrl::eval
