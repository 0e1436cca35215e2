// tritonrl paired: before/after evaluations of the same tasks (label files of `tritonrl
// calibrate`: passed and Figure 5 outcome counts per task), compared task by task with
// percentile-bootstrap intervals over tasks (metrics/paired_labels.h); with a control's
// before/after (the same run at learning rate 0), also the difference from the control. Prints a
// table and, with --json, writes the numbers (each interval with its bootstrap p-value). `--holm
// JSON...` instead reads several such files and adjusts their p-values together (Holm), for a
// family of comparisons fixed before the runs (docs/demo.md: E1b's two arms, E2's three pairs of
// modes). --before/--after (and the control's) repeated give independent blocks (seeds, leases),
// paired within each block and bootstrapped over blocks then tasks.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/file.h"
#include "cli/command.h"
#include "metrics/paired_labels.h"
#include "rl/task_labels.h"

namespace {

namespace m = tritonrl::metrics;
namespace rl = tritonrl::rl;
using json = nlohmann::json;
using Labels = m::TaskLabels;

struct PairedCli {
  std::vector<std::string> before, after, control_before, control_after;
  std::string json_out;
  std::vector<std::string> holm;
  std::string holm_metric = "pass@1";
  m::BootstrapOptions bootstrap;
};

std::string Show(const m::Interval& i) {
  return fmt::format("{:+.3f} [{:+.3f}, {:+.3f}]", i.estimate, i.low, i.high);
}

// --holm: each file's comparison of `metric` (the difference from the control where the file has
// one, else after - before) with its p-value, and the p-values adjusted together.
int RunHolm(const PairedCli& c) {
  auto fail = [](const std::string& why) {
    std::fprintf(stderr, "tritonrl paired --holm: %s\n", why.c_str());
    return 2;
  };
  struct Row {
    std::string comparison;
    m::Interval interval;
  };
  std::vector<Row> rows;
  std::vector<double> ps;
  for (const std::string& file : c.holm) {
    auto text = tritonrl::ReadFile(file);
    if (!text.ok()) return fail(text.status().message());
    const json j = json::parse(*text, nullptr, false);
    if (j.is_discarded()) return fail(file + ": not JSON (a --json file of tritonrl paired)");
    const auto metric = j.contains("metrics") ? j["metrics"].find(c.holm_metric) : j.end();
    if (!j.contains("metrics") || metric == j["metrics"].end()) {
      return fail(file + ": no metric '" + c.holm_metric + "'");
    }
    const char* which =
        metric->contains("difference_from_control") ? "difference_from_control" : "difference";
    const json& iv = (*metric)[which];
    if (!iv.contains("p")) return fail(file + ": no p-value (written by an older tritonrl paired)");
    rows.push_back({which,
                    {.estimate = iv["estimate"].get<double>(),
                     .low = iv["low"].get<double>(),
                     .high = iv["high"].get<double>(),
                     .p = iv["p"].get<double>()}});
    ps.push_back(rows.back().interval.p);
  }
  const std::vector<double> adjusted = m::HolmAdjusted(ps);
  std::printf("%s: %zu comparisons, Holm-adjusted together\n", c.holm_metric.c_str(), rows.size());
  std::printf("%-26s %-28s %8s %10s  %s\n", "comparison", "estimate [interval]", "p", "Holm p",
              "file");
  for (size_t i = 0; i < rows.size(); ++i) {
    std::printf("%-26s %-28s %8.4f %10.4f  %s\n", rows[i].comparison.c_str(),
                Show(rows[i].interval).c_str(), ps[i], adjusted[i], c.holm[i].c_str());
  }
  return 0;
}

// The pooled plan choices, most frequent first (at most 8 rows, the rest summed).
void PrintPlanChoices(const m::PlanChoiceDistribution& d) {
  double nb = 0, na = 0;
  std::map<std::string, int64_t> both;
  for (const auto& [k, n] : d.before) both[k] += n, nb += static_cast<double>(n);
  for (const auto& [k, n] : d.after) both[k] += n, na += static_cast<double>(n);
  if (nb == 0 || na == 0) return;
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& [k, n] : both) order.push_back({-n, k});
  std::sort(order.begin(), order.end());
  auto share = [](const std::map<std::string, int64_t>& m, const std::string& k, double n) {
    auto it = m.find(k);
    return it == m.end() ? 0.0 : static_cast<double>(it->second) / n;
  };
  std::printf("plan choices (block sizes the plans name), pooled: total variation %.3f\n",
              d.total_variation);
  double rest_b = 0, rest_a = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const std::string& k = order[i].second;
    if (i < 8) {
      std::printf("  %-18s %6.3f -> %6.3f\n", k.c_str(), share(d.before, k, nb),
                  share(d.after, k, na));
    } else {
      rest_b += share(d.before, k, nb);
      rest_a += share(d.after, k, na);
    }
  }
  if (order.size() > 8) std::printf("  %-18s %6.3f -> %6.3f\n", "(others)", rest_b, rest_a);
}

int RunPaired(const PairedCli& c) {
  auto fail = [](const tritonrl::Status& s) {
    std::fprintf(stderr, "tritonrl paired: %s\n", s.message().c_str());
    return 2;
  };
  if (!c.holm.empty()) return RunHolm(c);
  if (c.before.empty() || c.after.empty()) {
    return fail(tritonrl::Status::InvalidArgument("--before and --after are required (or --holm)"));
  }
  const size_t blocks = c.before.size();
  const bool control = !c.control_before.empty() || !c.control_after.empty();
  if (c.after.size() != blocks ||
      (control && (c.control_before.size() != blocks || c.control_after.size() != blocks))) {
    return fail(tritonrl::Status::InvalidArgument(
        "give --before and --after (and --control-before and --control-after, if any) the same "
        "number of times: one of each per block"));
  }
  // Every file read first, so that the NamedLabels below point into a vector that stays put.
  std::vector<std::string> names;
  for (size_t b = 0; b < blocks; ++b) {
    names.insert(names.end(), {c.before[b], c.after[b]});
    if (control) names.insert(names.end(), {c.control_before[b], c.control_after[b]});
  }
  std::vector<Labels> files;
  for (const std::string& n : names) {
    auto l = rl::ReadTaskLabels(n);
    if (!l.ok()) return fail(l.status());
    files.push_back(std::move(l.value()));
  }
  const size_t width = control ? 4 : 2;
  std::vector<std::vector<m::NamedLabels>> named(blocks);
  for (size_t i = 0; i < files.size(); ++i) named[i / width].push_back({names[i], &files[i]});
  auto cmp = m::CompareLabelBlocks(named, c.bootstrap);
  if (!cmp.ok()) return fail(cmp.status());
  if (blocks > 1) {
    std::printf("%zu blocks; intervals resample blocks, then tasks within each block\n", blocks);
  }
  std::printf("%zu tasks paired; %.0f%% percentile-bootstrap intervals over tasks (%d resamples)\n",
              cmp->tasks.size(), 100 * c.bootstrap.level, c.bootstrap.resamples);
  std::printf("%-22s %-28s %-28s %-28s%s\n", "metric", "before", "after", "after - before",
              control ? "   (after - before) - control's" : "");
  bool any_excludes = false;
  for (const m::MetricComparison& mc : cmp->metrics) {
    std::string vs;
    if (mc.difference_from_control) {
      const m::Interval& d = *mc.difference_from_control;
      vs = "   " + Show(d) + (d.Excludes(0) ? " *" : "");
      any_excludes = any_excludes || d.Excludes(0);
    }
    std::printf("%-22s %-28s %-28s %-28s%s\n", mc.metric.c_str(), Show(mc.run.before).c_str(),
                Show(mc.run.after).c_str(), Show(mc.run.difference).c_str(), vs.c_str());
  }
  if (any_excludes) std::printf("* the interval excludes 0\n");
  const m::MetricComparison& pass = cmp->metrics.front();  // pass@1 (PairedLabelMetrics order)
  std::printf("pass@1 bootstrap p (two-sided, of 0): after - before %.4f", pass.run.difference.p);
  if (pass.difference_from_control) {
    std::printf(", from the control %.4f", pass.difference_from_control->p);
  }
  std::printf("\n");
  PrintPlanChoices(cmp->plans);
  const json out = m::LabelComparisonJson(*cmp);
  if (!c.json_out.empty()) {
    if (auto s = tritonrl::WriteFileAtomic(c.json_out, out.dump(2) + "\n"); !s.ok()) return fail(s);
  }
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"paired",
     "Compare before/after evaluations (calibrate label files) task by task, with bootstrap "
     "intervals and a control",
     [](CLI::App& sub) -> tritonrl::cli::CommandAction {
       auto c = std::make_shared<PairedCli>();
       sub.add_option("--before", c->before,
                      "Labels of the policy before (tritonrl calibrate); repeated: one per block");
       sub.add_option("--after", c->after, "Labels of the policy after, on the same tasks");
       sub.add_option("--control-before", c->control_before, "The control's before");
       sub.add_option("--control-after", c->control_after, "The control's after (lr 0)");
       sub.add_option("--resamples", c->bootstrap.resamples)->capture_default_str();
       sub.add_option("--level", c->bootstrap.level, "Interval level")->capture_default_str();
       sub.add_option("--seed", c->bootstrap.seed)->capture_default_str();
       sub.add_option("--json", c->json_out, "Write the numbers as JSON");
       sub.add_option("--holm", c->holm,
                      "Instead: --json files of earlier runs, their p-values adjusted together "
                      "(Holm); the difference from the control where a file has one");
       sub.add_option("--holm-metric", c->holm_metric, "The metric --holm compares")
           ->capture_default_str();
       return [c]() { return RunPaired(*c); };
     }});

}  // namespace
