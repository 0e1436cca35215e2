#include "demo/calibrate.h"

#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "rl/rewards.h"
#include "rl/rollout_group.h"
#include "scoring/rollout_verdict.h"
#include "verify/output.h"

namespace tritonrl::demo {

std::vector<rl::TaskLabel> LabelTasks(const std::vector<EvalTask>& tasks,
                                      const PolicyEvalResult& eval) {
  std::vector<rl::TaskLabel> labels;
  std::map<std::string, size_t> index;
  for (const EvalTask& t : tasks) {
    index[t.id] = labels.size();
    labels.push_back(rl::LabelOf(t.id, 0, 0));
  }
  std::map<std::pair<std::string, std::string>, const GeneratedSample*> texts;
  for (const GeneratedSample& g : eval.generated) texts[{g.task, g.id}] = &g;
  for (const scoring::ScoredSample& v : eval.verdicts) {
    auto it = index.find(v.task);
    if (it == index.end()) continue;
    rl::TaskLabel& l = labels[it->second];
    const rl::Rewards rw = rl::ComputeRewards(scoring::RolloutVerdictOf(v), rl::RewardConfig{});
    ++l.samples;
    l.passed += rw.r_correct > 0;
    l.valid += v.valid;
    ++l.outcomes[rl::OutcomeClassName(rl::ClassifyOutcome(v.outcome, rw, v.speedup))];
    l.speedup_sum += rl::CountedSpeedup(v.outcome, rw, v.speedup);
    if (auto g = texts.find({v.task, v.id}); g != texts.end()) {
      const std::optional<std::string_view> plan = verify::PlanText(g->second->text);
      ++l.plan_choices[plan ? rl::PlanChoice(*plan) : rl::kNoPlan];
    }
  }
  for (rl::TaskLabel& l : labels) {  // pass rate and level from the counts
    const rl::TaskLabel counted = rl::LabelOf(l.task, l.passed, l.samples);
    l.pass_rate = counted.pass_rate;
    l.level = counted.level;
  }
  return labels;
}

Result<CalibrationResult> Calibrate(const PolicyEvalOptions& options,
                                    const std::vector<EvalTask>& tasks, scoring::Scorer& scorer) {
  auto eval = EvaluatePolicy(options, tasks, scorer);
  if (!eval.ok()) return eval.status();
  CalibrationResult r;
  r.labels = LabelTasks(tasks, *eval);
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

PoolSelection SelectPool(const std::vector<rl::TaskLabel>& labels, int minimum, bool take_all) {
  PoolSelection p;
  p.minimum = minimum;
  p.take_all = take_all;
  for (const rl::TaskLabel& l : labels) {
    const bool never = l.passed == 0, always = l.passed == l.samples;
    p.never += never;
    p.always += always && !never;
    p.sometimes += !never && !always;
    if (!take_all && (never || always)) continue;
    rl::TaskLabel in = l;
    in.level = rl::kLevelWithinReach;
    p.pool.push_back(std::move(in));
  }
  p.meets_minimum = static_cast<int64_t>(p.pool.size()) >= minimum;
  return p;
}

}  // namespace tritonrl::demo
