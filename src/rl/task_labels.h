// Difficulty labels of RL tasks from a calibration pass of the current policy (TritonRL's
// difficulty-aware data mixing, with a measured label in place of the paper's LLM judge): each
// task's pass rate over k samples decides its level, which the TaskSampler's level weights mix.
//   level 1 (within reach): 0 < pass rate  -- the policy solves it at least sometimes
//   level 2 (out of reach): pass rate == 0 -- no rollout can earn a reward yet
// TritonRL put all weight on its easier level (p = [1, 0]); the trainer does the same by default
// where tasks have labels (docs/rl.md). Tasks solved every time stay level 1: their groups are
// constant and DAPO's filter drops them. The file is JSONL, one object per task:
//   {"task": ID, "samples": K, "passed": P, "pass_rate": P/K, "level": L, "valid": V,
//    "outcomes": {"invalid_syntax": n, ..., "fast": n}, "speedup_sum": S,
//    "plan_choices": {"256": n, "none": n, ...}}
// (valid, outcomes, speedup_sum, plan_choices: optional; the outcomes are TritonRL Figure 5's
// classes; speedup_sum adds each sample's counted speedup, rl/rollout_group.h CountedSpeedup;
// plan_choices tallies each sample's PlanChoice).
// Pure functions and file I/O; callable from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace tritonrl::rl {

struct TaskLabel {
  std::string task;
  int64_t samples = 0, passed = 0;
  double pass_rate = 0;
  int level = 1;
  int64_t valid = 0;                            // samples the static verifier found valid
  std::map<std::string, int64_t> outcomes;      // Figure 5 class name -> samples (ClassifyOutcome)
  double speedup_sum = 0;                       // sum of the samples' CountedSpeedup
  std::map<std::string, int64_t> plan_choices;  // PlanChoice key -> samples
};

// A plan's choice, for the distribution of plan choices (docs/demo.md, E2): the distinct powers
// of two from 16 to 65,536 that the plan names as numbers (block sizes, tile widths), ascending,
// joined by '+' ("256", "64+128"); a number followed by "-bit" or after '^' is not a choice
// (64-bit offsets, 2^31). "none" where the plan names none; `kNoPlan` for a sample without plan.
inline constexpr const char* kNoPlan = "no_plan";
std::string PlanChoice(std::string_view plan);

inline constexpr int kLevelWithinReach = 1;
inline constexpr int kLevelOutOfReach = 2;

// The label of a task whose calibration passed `passed` of `samples` (samples >= 1).
TaskLabel LabelOf(const std::string& task, int64_t passed, int64_t samples);

// The per-task number a comparison reads (metrics/paired.h): a share of the task's samples,
// "pass@1" (passed), "valid", "invalid" (both invalid classes) or one Figure 5 class by name
// ("fast" is fast1); "mean_speedup" (speedup_sum / samples: a sample not correct or not timed
// counts 0, as TritonRL's mean speedup); "plan_concentration" (the chance that two different
// samples of the task make the same plan choice, sum n_k (n_k - 1) / (n (n - 1)) over the
// plan_choices; 0 with fewer than two tallied). 0 for a task without samples.
double LabelShare(const TaskLabel& label, const std::string& metric);

// Writes the labels, one JSONL line each (atomically: a crash leaves the old file or the new).
Status WriteTaskLabels(const std::string& path, const std::vector<TaskLabel>& labels);

// Reads a labels file; a bad line fails naming FILE:LINE, a task twice fails too.
Result<std::map<std::string, TaskLabel>> ReadTaskLabels(const std::string& path);

}  // namespace tritonrl::rl
