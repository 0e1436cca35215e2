#include "eval/schedule.h"

#include <sys/random.h>

#include <algorithm>
#include <random>

#include "eval/timing_plan.h"

namespace tritonrl::eval {

std::uint64_t DrawSecretSeed() {
  std::uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
    std::random_device rd;  // fallback; still not derivable from the task
    v = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  return v & ((1ull << 62) - 1);
}

std::vector<TrialSpec> MakeSchedule(int trials, std::uint64_t secret_seed) {
  trials = std::max(trials, 1);
  std::vector<TrialSpec> out;
  const int secret_at = static_cast<int>(secret_seed % static_cast<std::uint64_t>(trials));
  int pub = 0;
  for (int i = 0; i < trials; ++i) {
    TrialSpec t;
    t.secret = i == secret_at;
    t.seed = t.secret ? static_cast<std::int64_t>(secret_seed) : 42 + 1000003LL * pub++;
    t.train = i % 4 == 0 || i % 4 == 2;
    t.grad = i % 4 == 0 || i % 4 == 3;
    out.push_back(t);
  }
  return out;
}

std::vector<int> TrialIndicesFor(const EngineConfig& cfg, const std::string& variant) {
  const int n = static_cast<int>(cfg.schedule.size());
  const int cap = cfg.large_variant_trials;
  std::vector<int> out;
  if (variant != "large" || cap <= 0 || cap >= n) {
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  int publics = cap - 1;
  for (int i = 0; i < n; ++i) {
    if (cfg.schedule[static_cast<std::size_t>(i)].secret) {
      out.push_back(i);
    } else if (publics > 0) {
      out.push_back(i);
      --publics;
    }
  }
  return out;
}

std::vector<int> RecordedTrials(const ReferenceResult& ref, const std::string& variant) {
  std::vector<int> out;
  for (const TrialRecord& t : ref.trials)
    if (t.variant == variant) out.push_back(t.index);
  return out;
}

EngineConfig CandidateConfig(const EngineConfig& config, const ReferenceResult& ref) {
  EngineConfig c = config;
  if (ref.schedule.empty()) return c;
  c.schedule = ref.schedule;
  c.init_seed = ref.init_seed;
  CopyDrawnPlan(ref.timing_plan, c.timing);
  return c;
}

}  // namespace tritonrl::eval
