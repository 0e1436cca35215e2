// One group's metrics as the JSON of `tritonrl eval --json` and `tritonrl bench` (one spelling
// for both): rates over the counted samples, fast_p and pass@k by name, null where n/a.
#pragma once

#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "metrics/metrics.h"

namespace tritonrl::cli {

inline nlohmann::json MetricsJson(const metrics::GroupMetrics& g) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json fast = json::object();
  for (const auto& f : g.fast_p) fast[metrics::FastName(f.p)] = opt(f.rate);
  json pass = json::object();
  for (const auto& p : g.pass_at_k) pass[fmt::format("{}@{}", p.criterion, p.k)] = opt(p.value);
  return {{"name", g.name},
          {"samples", g.samples},
          {"tasks", g.tasks},
          {"failed_tasks", g.failed_tasks},  // the reference could not run: in no figure here
          {"failed_task_samples", g.failed_task_samples},
          {"valid", g.valid_rate},
          {"compiled", g.compiled_rate},
          {"correct", g.correct_rate},
          {"fast_p", fast},
          {"mean_speedup", opt(g.mean_speedup)},
          {"geomean_speedup", opt(g.geomean_speedup)},
          {"mean_speedup_all", opt(g.mean_speedup_all)},
          {"pass_at_k", pass},
          {"outcome_shares",
           {{"invalid_syntax", g.shares.invalid_syntax_share},
            {"invalid_functionality", g.shares.invalid_functionality_share},
            {"correct", g.shares.correct_share},
            {"other", g.shares.other_share},
            {"correct_not_fast", opt(g.shares.correct_not_fast_share)},
            {"fast", opt(g.shares.fast_share)}}}};
}

}  // namespace tritonrl::cli
