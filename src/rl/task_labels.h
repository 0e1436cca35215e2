// Difficulty labels of RL tasks from a calibration pass of the current policy (TritonRL's
// difficulty-aware data mixing, with a measured label in place of the paper's LLM judge): each
// task's pass rate over k samples decides its level, which the TaskSampler's level weights mix.
//   level 1 (within reach): 0 < pass rate  -- the policy solves it at least sometimes
//   level 2 (out of reach): pass rate == 0 -- no rollout can earn a reward yet
// TritonRL put all weight on its easier level (p = [1, 0]); the trainer does the same by default
// where tasks have labels (docs/rl.md). Tasks solved every time stay level 1: their groups are
// constant and DAPO's filter drops them. The file is JSONL, one object per task:
//   {"task": ID, "samples": K, "passed": P, "pass_rate": P/K, "level": L, "valid": V,
//    "outcomes": {"invalid_syntax": n, ..., "fast": n}}   (valid, outcomes: optional; the
//    outcomes are TritonRL Figure 5's classes)
// Pure functions and file I/O; callable from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace tritonrl::rl {

struct TaskLabel {
  std::string task;
  int64_t samples = 0, passed = 0;
  double pass_rate = 0;
  int level = 1;
  int64_t valid = 0;                        // samples the static verifier found valid
  std::map<std::string, int64_t> outcomes;  // Figure 5 class name -> samples (ClassifyOutcome)
};

inline constexpr int kLevelWithinReach = 1;
inline constexpr int kLevelOutOfReach = 2;

// The label of a task whose calibration passed `passed` of `samples` (samples >= 1).
TaskLabel LabelOf(const std::string& task, int64_t passed, int64_t samples);

// The share of a task's samples a per-task comparison reads (metrics/paired.h): "pass@1"
// (passed), "valid", "invalid" (both invalid classes) or one Figure 5 class by name. 0 for a task
// without samples.
double LabelShare(const TaskLabel& label, const std::string& metric);

// Writes the labels, one JSONL line each (atomically: a crash leaves the old file or the new).
Status WriteTaskLabels(const std::string& path, const std::vector<TaskLabel>& labels);

// Reads a labels file; a bad line fails naming FILE:LINE, a task twice fails too.
Result<std::map<std::string, TaskLabel>> ReadTaskLabels(const std::string& path);

}  // namespace tritonrl::rl
