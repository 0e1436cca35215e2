#include "demo/calibrate.h"

#include <map>

#include "rl/rewards.h"
#include "rl/rollout_group.h"
#include "scoring/rollout_verdict.h"

namespace tritonrl::demo {

Result<CalibrationResult> Calibrate(const PolicyEvalOptions& options,
                                    const std::vector<EvalTask>& tasks, scoring::Scorer& scorer) {
  auto eval = EvaluatePolicy(options, tasks, scorer);
  if (!eval.ok()) return eval.status();
  std::map<std::string, std::pair<int64_t, int64_t>> counts;  // task -> (passed, samples)
  std::map<std::string, std::map<std::string, int64_t>> outcomes;
  for (const scoring::ScoredSample& v : eval->verdicts) {
    auto& [passed, samples] = counts[v.task];
    ++samples;
    // The reward's own rule: the sample earns R_correct (correct, no flag voids the reward).
    const rl::Rewards rw = rl::ComputeRewards(scoring::RolloutVerdictOf(v), rl::RewardConfig{});
    if (rw.r_correct > 0) ++passed;
    ++outcomes[v.task][rl::OutcomeClassName(rl::ClassifyOutcome(v.outcome, rw, v.speedup))];
  }
  CalibrationResult r;
  for (const EvalTask& t : tasks) {
    const auto& [passed, samples] = counts[t.id];
    r.labels.push_back(rl::LabelOf(t.id, passed, samples));
    r.labels.back().outcomes = outcomes[t.id];
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
