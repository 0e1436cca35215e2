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

// The per-task numbers compared: pass@1 and the share of each Figure 5 class (and both invalid
// classes together), in this order.
const std::vector<std::string>& PairedLabelMetrics();

struct MetricComparison {
  std::string metric;
  PairedComparison run;                     // before, after and after - before
  std::optional<PairedComparison> control;  // the control's, when given
  std::optional<Interval> difference_from_control;
};

struct LabelComparison {
  std::vector<std::string> tasks;  // those every evaluation has, in task-id order
  BootstrapOptions bootstrap;
  std::vector<MetricComparison> metrics;  // PairedLabelMetrics() order
};

// The tasks every given evaluation has, in task-id order. A shared task with no samples in one
// of them fails (naming it); so do no shared task at all and a null `labels`.
Result<std::vector<std::string>> CommonTasks(const std::vector<NamedLabels>& evaluations);

// `evaluations`: before, after, and optionally the control's before and after (2 or 4).
Result<LabelComparison> CompareLabels(const std::vector<NamedLabels>& evaluations,
                                      const BootstrapOptions& bootstrap);

// {"tasks", "resamples", "level", "metrics": {METRIC: {"before", "after", "difference"
// [, "control_difference", "difference_from_control"]}}}, each an {"estimate", "low", "high",
// "p"} (p: the two-sided bootstrap p-value of 0, metrics/paired.h).
nlohmann::json LabelComparisonJson(const LabelComparison& c);

}  // namespace tritonrl::metrics
