// Before/after evaluations of the same tasks, as per-task label tallies (rl/task_labels.h:
// samples, passed and Figure 5 outcome counts per task), compared task by task with
// percentile-bootstrap intervals over tasks (metrics/paired.h); with a control's before/after
// (the same run at learning rate 0), also the difference from the control. The one home of the
// comparison `tritonrl paired` prints and the demo's learning stage reports. Pure functions;
// any thread.
//
//   auto c = metrics::CompareLabels({{"before.jsonl", &before}, {"after.jsonl", &after}}, {});
//   if (c.ok()) for (const auto& m : c->metrics) use(m.metric, m.run.difference);
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "metrics/paired.h"
#include "rl/task_labels.h"

namespace tritonrl::metrics {

using TaskLabels = std::map<std::string, rl::TaskLabel>;

// One evaluation's labels and the name its errors use (a file, a stage).
struct NamedLabels {
  std::string name;
  const TaskLabels* labels = nullptr;
};

// The per-task numbers compared (rl::LabelShare): pass@1, the share of each Figure 5 class (and
// both invalid classes together; "fast" is fast1), the mean speedup over all samples and the plan
// concentration, in this order.
const std::vector<std::string>& PairedLabelMetrics();

// The plan choices of the compared tasks' samples pooled (rl::TaskLabel::plan_choices), before
// and after, and the total variation distance between the two distributions (half the sum of
// the shares' absolute differences; 0 where either side has none). Descriptive: no interval.
struct PlanChoiceDistribution {
  std::map<std::string, int64_t> before, after;
  double total_variation = 0;
};

struct MetricComparison {
  std::string metric;
  PairedComparison run;                     // before, after and after - before
  std::optional<PairedComparison> control;  // the control's, when given
  std::optional<Interval> difference_from_control;
};

struct LabelComparison {
  // Those every evaluation of a block has, in task-id order; with several blocks each is
  // "bK/TASK" (K from 1, the block's place in the call).
  std::vector<std::string> tasks;
  int blocks = 1;
  BootstrapOptions bootstrap;
  std::vector<MetricComparison> metrics;  // PairedLabelMetrics() order
  PlanChoiceDistribution plans;
};

// The tasks every given evaluation has, in task-id order. A shared task with no samples in one
// of them fails (naming it); so do no shared task at all and a null `labels`.
Result<std::vector<std::string>> CommonTasks(const std::vector<NamedLabels>& evaluations);

// `evaluations`: before, after, and optionally the control's before and after (2 or 4).
Result<LabelComparison> CompareLabels(const std::vector<NamedLabels>& evaluations,
                                      const BootstrapOptions& bootstrap);

// Several independent blocks of the same comparison (each 2 or 4 evaluations, all blocks alike):
// tasks paired within their block, the bootstrap two-stage over blocks then tasks
// (metrics/paired.h). A block's tasks need not be another's (each lease has its own pool). One
// block is CompareLabels.
Result<LabelComparison> CompareLabelBlocks(const std::vector<std::vector<NamedLabels>>& blocks,
                                           const BootstrapOptions& bootstrap);

// {"tasks", "blocks", "resamples", "level", "metrics": {METRIC: {"before", "after", "difference"
// [, "control_difference", "difference_from_control"]}}, "plan_choices": {"before", "after",
// "total_variation"}}, each interval an {"estimate", "low", "high", "p"} (p: the two-sided
// bootstrap p-value of 0, metrics/paired.h).
nlohmann::json LabelComparisonJson(const LabelComparison& c);

}  // namespace tritonrl::metrics
