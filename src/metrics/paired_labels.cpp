#include "metrics/paired_labels.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tritonrl::metrics {

namespace {

using json = nlohmann::json;

// The pairs of one metric over every block's tasks (block k's tasks carry block k).
std::vector<TaskPair> Pairs(const std::vector<std::vector<NamedLabels>>& blocks,
                            const std::vector<std::vector<std::string>>& tasks, size_t before,
                            size_t after, const std::string& metric) {
  std::vector<TaskPair> out;
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (const std::string& t : tasks[b]) {
      out.push_back({t, rl::LabelShare(blocks[b][before].labels->at(t), metric),
                     rl::LabelShare(blocks[b][after].labels->at(t), metric), static_cast<int>(b)});
    }
  }
  return out;
}

PlanChoiceDistribution PooledPlans(const std::vector<std::vector<NamedLabels>>& blocks,
                                   const std::vector<std::vector<std::string>>& tasks) {
  PlanChoiceDistribution d;
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (const std::string& t : tasks[b]) {
      for (const auto& [k, n] : blocks[b][0].labels->at(t).plan_choices) d.before[k] += n;
      for (const auto& [k, n] : blocks[b][1].labels->at(t).plan_choices) d.after[k] += n;
    }
  }
  auto total = [](const std::map<std::string, int64_t>& m) {
    int64_t n = 0;
    for (const auto& [k, c] : m) n += c;
    return static_cast<double>(n);
  };
  const double nb = total(d.before), na = total(d.after);
  if (nb == 0 || na == 0) return d;
  std::map<std::string, double> diff;
  for (const auto& [k, c] : d.before) diff[k] += static_cast<double>(c) / nb;
  for (const auto& [k, c] : d.after) diff[k] -= static_cast<double>(c) / na;
  for (const auto& [k, x] : diff) d.total_variation += std::abs(x) / 2;
  return d;
}

json CountsJson(const std::map<std::string, int64_t>& m) {
  json j = json::object();
  for (const auto& [k, n] : m) j[k] = n;
  return j;
}

json IntervalJson(const Interval& i) {
  return {{"estimate", i.estimate}, {"low", i.low}, {"high", i.high}, {"p", i.p}};
}

}  // namespace

const std::vector<std::string>& PairedLabelMetrics() {
  static const std::vector<std::string> kMetrics = {
      "pass@1",           "invalid", "invalid_syntax", "invalid_functionality", "incorrect",
      "correct_not_fast", "fast",    "mean_speedup",   "plan_concentration"};
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
  return CompareLabelBlocks({evaluations}, bootstrap);
}

Result<LabelComparison> CompareLabelBlocks(const std::vector<std::vector<NamedLabels>>& blocks,
                                           const BootstrapOptions& bootstrap) {
  if (blocks.empty()) return Status::InvalidArgument("no block of evaluations to compare");
  const size_t width = blocks[0].size();
  if (width != 2 && width != 4) {
    return Status::InvalidArgument(
        "compare before and after, or before, after and the control's before and after");
  }
  LabelComparison out;
  out.blocks = static_cast<int>(blocks.size());
  out.bootstrap = bootstrap;
  std::vector<std::vector<std::string>> tasks;
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].size() != width) {
      return Status::InvalidArgument("block " + std::to_string(b + 1) + " has " +
                                     std::to_string(blocks[b].size()) + " evaluations, block 1 " +
                                     std::to_string(width) + ": every block compares alike");
    }
    auto common = CommonTasks(blocks[b]);
    if (!common.ok()) return common.status();
    for (const std::string& t : *common) {
      out.tasks.push_back(blocks.size() == 1 ? t : "b" + std::to_string(b + 1) + "/" + t);
    }
    tasks.push_back(std::move(common.value()));
  }
  const bool control = width == 4;
  for (const std::string& metric : PairedLabelMetrics()) {
    MetricComparison m;
    m.metric = metric;
    const auto run = Pairs(blocks, tasks, 0, 1, metric);
    m.run = ComparePaired(run, bootstrap);
    if (control) {
      const auto ctl = Pairs(blocks, tasks, 2, 3, metric);
      m.control = ComparePaired(ctl, bootstrap);
      m.difference_from_control = DifferenceFromControl(run, ctl, bootstrap);
    }
    out.metrics.push_back(std::move(m));
  }
  out.plans = PooledPlans(blocks, tasks);
  return out;
}

json LabelComparisonJson(const LabelComparison& c) {
  json out = {{"tasks", c.tasks.size()},
              {"blocks", c.blocks},
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
  out["plan_choices"] = {{"before", CountsJson(c.plans.before)},
                         {"after", CountsJson(c.plans.after)},
                         {"total_variation", c.plans.total_variation}};
  return out;
}

}  // namespace tritonrl::metrics
