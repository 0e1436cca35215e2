// The calibration pass of a policy over RL tasks (TritonRL's difficulty-aware data mixing, with
// measured labels): k samples per task, scored, each task's pass rate turned into a difficulty
// label (rl/task_labels.h) that GRPO's task sampler mixes by level. Also the RL pool of an
// experiment: the tasks the policy solves sometimes (0 < pass rate < 1). libtorch-free
// interface; uses the caller's Scorer. What survives a crash: the verdicts in the Scorer's
// store (a rerun resumes them) and the labels file once written (atomically).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "demo/policy_eval.h"
#include "rl/task_labels.h"
#include "scoring/score_batch.h"

namespace tritonrl::demo {

struct CalibrationResult {
  std::vector<rl::TaskLabel> labels;  // task order
  PolicyEvalResult eval;              // the samples and verdicts behind them
};

// Each task's samples tallied (task order): how many earned R_correct (the reward's own rule:
// correct, no flag voids the reward), how many were valid, each Figure 5 class, the counted
// speedups' sum and each plan choice (rl::PlanChoice of the plan verify::SplitModelOutput finds
// in the generated text with the verdict's task and id); the level from the pass rate. Verdicts
// of tasks not listed are ignored. The one per-task tally of the calibration and of the demo's
// paired comparisons.
std::vector<rl::TaskLabel> LabelTasks(const std::vector<EvalTask>& tasks,
                                      const PolicyEvalResult& eval);

// Samples options.k per task, scores them and labels each task by its pass rate.
Result<CalibrationResult> Calibrate(const PolicyEvalOptions& options,
                                    const std::vector<EvalTask>& tasks, scoring::Scorer& scorer);

// The tasks of a calibration strictly between never and always solved, in task order.
std::vector<std::string> LearnableTasks(const std::vector<rl::TaskLabel>& labels);

// The fixed RL pool of a learning experiment (docs/demo.md, "Does GRPO learn?"): the candidates
// solved sometimes (LearnableTasks' rule), or with `take_all` every candidate (a smoke test at a
// size where the policy solves nothing; not the experiment). Every pool label has level 1, so
// GRPO's default level weights sample all of them.
struct PoolSelection {
  std::vector<rl::TaskLabel> pool;               // candidate order
  int64_t never = 0, sometimes = 0, always = 0;  // of the candidates
  int minimum = 0;                               // the design's minimum pool size
  bool take_all = false;
  bool meets_minimum = false;  // pool.size() >= minimum
};

PoolSelection SelectPool(const std::vector<rl::TaskLabel>& labels, int minimum, bool take_all);

}  // namespace tritonrl::demo
