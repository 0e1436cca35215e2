// Scaling a suite's problem sizes by a stated rule, for machines where a task's default sizes do
// not fit (KernelBench level 1 makes inputs of several GB): `tritonrl bench --scale-sizes F`.
//
// The rule: every module-level integer constant of a task (not a bool, not LEVEL) whose value is
// at least `min_value` is multiplied by `factor` and rounded to the nearest integer, at least 1.
// Smaller constants (kernel sizes, strides, dims, channel counts of 3) keep their value: they
// choose the operator, not the problem's size. The scaled sizes become a new variant named
// kScaledVariant of each task (the existing variant machinery: the runner sets a variant's
// overrides as module globals), written into a copy of the suite with a VARIANTS line appended to
// every file; the originals are never touched. Pure file work: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "task/task.h"

namespace tritonrl::task {

inline constexpr const char* kScaledVariant = "scaled";

struct ScaleRule {
  double factor = 1.0;
  std::int64_t min_value = 64;
};

// What the rule did to one task: {"NAME": [from, to], ...}.
struct ScaledTask {
  std::string id;
  Json changed = Json::object();
};

// The overrides of kScaledVariant for `task` under `rule` (the constants that change).
ScaledTask ScaleTask(const TaskInfo& task, const ScaleRule& rule);

// Writes every task of `suite` into `out_dir` (same relative paths, so the same ids) with the
// variant appended; returns what changed per task. InvalidArgument for a factor that is not a
// finite number > 0; IoError naming the file that could not be written.
Result<std::vector<ScaledTask>> WriteScaledSuite(const Suite& suite, const ScaleRule& rule,
                                                 const std::string& out_dir);

}  // namespace tritonrl::task
