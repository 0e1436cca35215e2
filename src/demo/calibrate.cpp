#include "demo/calibrate.h"

#include <map>

#include "rl/rewards.h"
#include "scoring/rollout_verdict.h"

namespace tritonrl::demo {

Result<CalibrationResult> Calibrate(const PolicyEvalOptions& options,
                                    const std::vector<EvalTask>& tasks, scoring::Scorer& scorer) {
  auto eval = EvaluatePolicy(options, tasks, scorer);
  if (!eval.ok()) return eval.status();
  std::map<std::string, std::pair<int64_t, int64_t>> counts;  // task -> (passed, samples)
  for (const scoring::ScoredSample& v : eval->verdicts) {
    auto& [passed, samples] = counts[v.task];
    ++samples;
    // The reward's own rule: the sample earns R_correct (correct, no flag voids the reward).
    if (rl::ComputeRewards(scoring::RolloutVerdictOf(v), rl::RewardConfig{}).r_correct > 0) {
      ++passed;
    }
  }
  CalibrationResult r;
  for (const EvalTask& t : tasks) {
    const auto& [passed, samples] = counts[t.id];
    r.labels.push_back(rl::LabelOf(t.id, passed, samples));
  }
  r.eval = std::move(eval.value());
  return r;
}

std::vector<std::string> LearnableTasks(const std::vector<rl::TaskLabel>& labels) {
  std::vector<std::string> out;
  for (const rl::TaskLabel& l : labels) {
    if (l.passed > 0 && l.passed < l.samples) out.push_back(l.task);
  }
  return out;
}

}  // namespace tritonrl::demo
