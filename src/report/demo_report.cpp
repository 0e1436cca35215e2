#include "report/demo_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

#include "report/metrics_log.h"
#include "report/report.h"
#include "report/style.h"
#include "report/svg.h"

namespace tritonrl::report {

namespace {

svg::Curve Pick(const Curves& c, const std::string& key, const std::string& name,
                const std::string& color) {
  svg::Curve v;
  if (auto it = c.find(key); it != c.end()) v = it->second;
  v.name = name;
  v.color = color;
  return v;
}

std::string Num(double v) {
  return fmt::format("{:.3f}", v);
}

std::string Cell(const std::string& text) {
  return "<td class=\"num\">" + text + "</td>";
}

std::string StageName(const std::string& stage) {
  if (stage == "base") return "base model";
  if (stage == "sft") return "after SFT";
  if (stage == "grpo") return "after GRPO";
  if (stage == "control") return "control (SFT weights, lr 0)";
  if (stage.rfind("grpo-", 0) != 0) return stage;
  // grpo-<mode> or grpo-<mode>-seed<N> (the demo's ablation modes and further GRPO seeds).
  std::string mode = stage.substr(5);
  const size_t seed = mode.find("-seed");
  if (seed == std::string::npos) return "after GRPO (" + mode + ")";
  return "after GRPO (" + mode.substr(0, seed) + ", seed " + mode.substr(seed + 5) + ")";
}

std::string SuiteName(const std::string& suite) {
  if (suite == "heldout") return "held-out synthetic";
  if (suite == "level1") return "built-in level 1";
  if (suite == "pool") return "RL pool";
  return suite;
}

std::string BeforeAfterTable(const std::vector<DemoEvalRow>& rows) {
  std::string h =
      "<table id=\"before-after\"><tr><th>task set</th><th>policy</th><th>tasks</th>"
      "<th>samples</th><th>k</th><th>pass@1</th><th>pass@k</th><th>valid</th><th>compiled</th>"
      "<th>correct</th><th>fast1</th><th>invalid syntax</th><th>invalid functionality</th>"
      "<th>incorrect</th><th>correct share</th><th>truncated</th></tr>\n";
  for (const auto& r : rows) {
    h += fmt::format("<tr data-stage=\"{}\" data-suite=\"{}\">", HtmlEscape(r.stage),
                     HtmlEscape(r.suite));
    h += "<td>" + HtmlEscape(SuiteName(r.suite)) + "</td><td>" + HtmlEscape(StageName(r.stage)) +
         "</td>";
    h +=
        Cell(std::to_string(r.tasks)) + Cell(std::to_string(r.samples)) + Cell(std::to_string(r.k));
    h += Cell(Num(r.pass_at_1)) + Cell(Num(r.pass_at_k)) + Cell(Num(r.valid_rate)) +
         Cell(Num(r.compiled_rate)) + Cell(Num(r.correct_rate)) +
         Cell(r.fast1_rate ? Num(*r.fast1_rate) : "n/a") + Cell(Num(r.invalid_syntax)) +
         Cell(Num(r.invalid_functionality)) + Cell(Num(r.incorrect)) + Cell(Num(r.correct)) +
         Cell(std::to_string(r.truncated));
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

std::string ComparisonTable(const std::vector<DemoComparisonRow>& rows) {
  std::string h =
      "<table id=\"paired\"><tr><th>task set</th><th>from</th><th>to</th><th>metric</th>"
      "<th>tasks</th><th>before</th><th>after</th><th>after - before</th><th>95% interval</th>"
      "</tr>\n";
  for (const auto& r : rows) {
    const bool clear = r.low > 0 || r.high < 0;
    h += fmt::format("<tr data-suite=\"{}\" data-from=\"{}\" data-to=\"{}\" data-metric=\"{}\">",
                     HtmlEscape(r.suite), HtmlEscape(r.from), HtmlEscape(r.to),
                     HtmlEscape(r.metric));
    h += "<td>" + HtmlEscape(SuiteName(r.suite)) + "</td><td>" + HtmlEscape(StageName(r.from)) +
         "</td><td>" + HtmlEscape(StageName(r.to)) + "</td><td>" + HtmlEscape(r.metric) + "</td>";
    h += Cell(std::to_string(r.tasks)) + Cell(Num(r.before)) + Cell(Num(r.after)) +
         Cell(fmt::format("{:+.3f}", r.difference)) +
         Cell(fmt::format("[{:+.3f}, {:+.3f}]{}", r.low, r.high, clear ? " *" : ""));
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

std::string WithInterval(double estimate, double low, double high, bool sign) {
  return sign ? fmt::format("{:+.3f} [{:+.3f}, {:+.3f}]", estimate, low, high)
              : fmt::format("{:.3f} [{:.3f}, {:.3f}]", estimate, low, high);
}

std::string LearningSection(const DemoLearningTable& t) {
  std::string h = "<h2>Did GRPO learn? The control against GRPO on the pool</h2>\n";
  if (!t.warning.empty())
    h += "<p class=\"warning\"><strong>" + HtmlEscape(t.warning) + "</strong></p>\n";
  h += "<p>" + HtmlEscape(t.caption) + "</p>\n";
  h += "<table id=\"learning\"><tr><th>metric</th><th>before (control) [95%]</th>"
       "<th>after (GRPO) [95%]</th><th>after - before [95%]</th></tr>\n";
  for (const DemoLearningRow& r : t.rows) {
    const bool clear = r.low > 0 || r.high < 0;
    h += fmt::format("<tr data-metric=\"{}\">", HtmlEscape(r.metric));
    h += "<td>" + HtmlEscape(r.metric) + "</td>";
    h += Cell(WithInterval(r.before, r.before_low, r.before_high, false)) +
         Cell(WithInterval(r.after, r.after_low, r.after_high, false)) +
         Cell(WithInterval(r.difference, r.low, r.high, true) + (clear ? " *" : ""));
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

}  // namespace

Result<std::string> RenderDemoReport(const DemoReportInput& in) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += "<title>" + HtmlEscape(in.title) + "</title><style>" + ReportStyle() +
       "</style></head><body>\n";
  h += "<h1>" + HtmlEscape(in.title) + "</h1>\n";
  if (in.learning) h += LearningSection(*in.learning);

  if (!in.comparisons.empty()) {
    h += "<h2>Before and after, paired by task</h2>\n" + ComparisonTable(in.comparisons);
    h += "<p class=\"note\">Each row compares two policies on the same tasks: per task, the share "
         "of its k samples that are correct (pass@1) or valid, averaged over tasks; the interval "
         "is the 2.5th to 97.5th percentile of that mean difference over 10,000 resamples of the "
         "tasks (a percentile bootstrap). * marks an interval that excludes 0. A difference "
         "inside its interval's reach of 0 is not evidence of a change.</p>\n";
  }
  h += "<h2>What happened</h2>\n<ul id=\"notes\">\n";
  for (const auto& n : in.notes) h += "<li>" + HtmlEscape(n) + "</li>\n";
  h += "</ul>\n";

  h += "<h2>Before and after each stage</h2>\n" + BeforeAfterTable(in.rows);
  h += "<p class=\"note\">Each policy writes k samples per task (same prompt and chat template as "
       "SFT), scored by the static verifier and the sandboxed evaluator. pass@k is the unbiased "
       "estimator averaged over tasks; rates and shares are over all samples. Shares follow "
       "TritonRL's Figure 5: invalid syntax (no parsable code block), invalid functionality "
       "(rejected by the static verifier: not real Triton, or a cheat), incorrect (valid but "
       "wrong, crashed or timed out), correct. fast1 needs GPU timing (n/a otherwise). "
       "truncated: responses cut at the token limit.</p>\n";

  h += "<h2>Outcome shares per stage</h2>\n";
  std::vector<svg::StackedRow> share_rows;
  for (const auto& r : in.rows) {
    share_rows.push_back({SuiteName(r.suite) + ", " + StageName(r.stage),
                          {r.invalid_syntax, r.invalid_functionality, r.incorrect, r.correct},
                          static_cast<long long>(r.samples)});
  }
  h += svg::StackedBars("demo-shares",
                        {{"invalid syntax", "#e15759"},
                         {"invalid functionality", "#f28e2b"},
                         {"incorrect", "#bab0ac"},
                         {"correct", "#59a14f"}},
                        share_rows);

  if (!in.sft_metrics.empty()) {
    auto c = ReadCurves(in.sft_metrics);
    if (!c.ok()) return c.status();
    h += "<h2>SFT loss</h2>\n" + svg::CurveChart("sft-loss",
                                                 {Pick(*c, "loss", "train", "#1f77b4"),
                                                  Pick(*c, "eval_loss", "held-out", "#d62728")},
                                                 "step", "loss (nats/token)");
  }
  if (!in.grpo_metrics.empty()) {
    auto c = ReadCurves(in.grpo_metrics);
    if (!c.ok()) return c.status();
    h += "<h2>GRPO rewards</h2>\n" +
         svg::CurveChart("grpo-reward",
                         {Pick(*c, "reward_correct", "R_correct (mean)", "#59a14f"),
                          Pick(*c, "reward_speedup", "R_speedup (mean)", "#4e79a7")},
                         "step", "reward");
    h += "<h2>GRPO rollout rates</h2>\n" +
         svg::CurveChart("grpo-rates",
                         {Pick(*c, "valid_rate", "valid", "#f28e2b"),
                          Pick(*c, "compiled_rate", "compiled", "#b07aa1"),
                          Pick(*c, "correct_rate", "correct", "#59a14f")},
                         "step", "share of rollouts");
  }

  h += "<h2>Settings</h2>\n<table id=\"settings\">";
  for (const auto& [k, v] : in.settings) {
    h += "<tr><th>" + HtmlEscape(k) + "</th><td>" + HtmlEscape(v) + "</td></tr>";
  }
  h += "</table>\n</body></html>\n";
  return h;
}

}  // namespace tritonrl::report
