#include "metrics/paired_labels.h"

namespace tritonrl::metrics {

namespace {

using json = nlohmann::json;

std::vector<TaskPair> Pairs(const TaskLabels& before, const TaskLabels& after,
                            const std::vector<std::string>& tasks, const std::string& metric) {
  std::vector<TaskPair> out;
  for (const std::string& t : tasks) {
    out.push_back({t, rl::LabelShare(before.at(t), metric), rl::LabelShare(after.at(t), metric)});
  }
  return out;
}

json IntervalJson(const Interval& i) {
  return {{"estimate", i.estimate}, {"low", i.low}, {"high", i.high}, {"p", i.p}};
}

}  // namespace

const std::vector<std::string>& PairedLabelMetrics() {
  static const std::vector<std::string> kMetrics = {
      "pass@1",           "invalid", "invalid_syntax", "invalid_functionality", "incorrect",
      "correct_not_fast", "fast"};
  return kMetrics;
}

Result<std::vector<std::string>> CommonTasks(const std::vector<NamedLabels>& evaluations) {
  if (evaluations.empty()) return Status::InvalidArgument("no evaluation to compare");
  for (const NamedLabels& e : evaluations) {
    if (e.labels == nullptr) return Status::InvalidArgument(e.name + ": no labels");
  }
  std::vector<std::string> tasks;
  for (const auto& [task, label] : *evaluations[0].labels) {
    bool everywhere = true;
    for (const NamedLabels& e : evaluations) everywhere = everywhere && e.labels->count(task);
    if (!everywhere) continue;
    for (const NamedLabels& e : evaluations) {
      if (e.labels->at(task).samples <= 0) {
        return Status::InvalidArgument(e.name + ": task " + task + " has no samples");
      }
    }
    tasks.push_back(task);
  }
  if (tasks.empty()) return Status::InvalidArgument("the evaluations share no task");
  return tasks;
}

Result<LabelComparison> CompareLabels(const std::vector<NamedLabels>& evaluations,
                                      const BootstrapOptions& bootstrap) {
  if (evaluations.size() != 2 && evaluations.size() != 4) {
    return Status::InvalidArgument(
        "compare before and after, or before, after and the control's before and after");
  }
  auto tasks = CommonTasks(evaluations);
  if (!tasks.ok()) return tasks.status();
  const bool control = evaluations.size() == 4;
  LabelComparison out;
  out.tasks = std::move(tasks.value());
  out.bootstrap = bootstrap;
  for (const std::string& metric : PairedLabelMetrics()) {
    MetricComparison m;
    m.metric = metric;
    const auto run = Pairs(*evaluations[0].labels, *evaluations[1].labels, out.tasks, metric);
    m.run = ComparePaired(run, bootstrap);
    if (control) {
      const auto ctl = Pairs(*evaluations[2].labels, *evaluations[3].labels, out.tasks, metric);
      m.control = ComparePaired(ctl, bootstrap);
      m.difference_from_control = DifferenceFromControl(run, ctl, bootstrap);
    }
    out.metrics.push_back(std::move(m));
  }
  return out;
}

json LabelComparisonJson(const LabelComparison& c) {
  json out = {{"tasks", c.tasks.size()},
              {"resamples", c.bootstrap.resamples},
              {"level", c.bootstrap.level},
              {"metrics", json::object()}};
  for (const MetricComparison& m : c.metrics) {
    json j = {{"before", IntervalJson(m.run.before)},
              {"after", IntervalJson(m.run.after)},
              {"difference", IntervalJson(m.run.difference)}};
    if (m.control) j["control_difference"] = IntervalJson(m.control->difference);
    if (m.difference_from_control) {
      j["difference_from_control"] = IntervalJson(*m.difference_from_control);
    }
    out["metrics"][m.metric] = j;
  }
  return out;
}

}  // namespace tritonrl::metrics
