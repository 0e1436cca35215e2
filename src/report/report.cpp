#include "report/report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "report/metrics_log.h"
#include "report/style.h"
#include "report/svg.h"

namespace tritonrl::report {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\0':
        out += "&#65533;";
        break;  // NUL is not allowed in HTML text
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// "level12/3_Foo" -> 12; 0 when the id has no such prefix.
int LevelFromTaskId(const std::string& id) {
  if (id.rfind("level", 0) != 0) return 0;
  size_t i = 5;
  int level = 0;
  while (i < id.size() && std::isdigit(static_cast<unsigned char>(id[i])) && level < 1000) {
    level = level * 10 + (id[i] - '0');
    ++i;
  }
  if (i == 5 || i >= id.size() || id[i] != '/') return 0;
  return level;
}

std::string Pct(double rate) {
  return fmt::format("{:.1f}%", rate * 100);
}
std::string OptNum(const std::optional<double>& v, const char* suffix = "") {
  return v ? fmt::format("{:.3f}{}", *v, suffix) : std::string("n/a");
}
std::string OptPct(const std::optional<double>& v) {
  return v ? Pct(*v) : std::string("n/a");
}
std::string Speedup(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}x", *v) : std::string("-");
}

std::string Td(const std::string& escaped, bool num = false) {
  return num ? "<td class=\"num\">" + escaped + "</td>" : "<td>" + escaped + "</td>";
}

std::string JoinEscaped(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + HtmlEscape(s);
  return out;
}

constexpr const char* kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;
color:#222;padding:0 16px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:8px 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#f7f7f7;padding:8px;overflow:auto;max-height:300px;white-space:pre-wrap}
.chart text{font-size:11px;fill:#333}.note{color:#666;font-size:.9em}
.scroll{overflow-x:auto}
.reasons{min-width:26em;max-width:600px;white-space:pre-wrap;overflow-wrap:anywhere}
.o-correct{color:#2e7d32}.o-invalid_syntax,.o-invalid_functionality{color:#c62828}
.warn{color:#b45309}
)css";

}  // namespace

const char* ReportStyle() {
  return kStyle;
}

namespace {

const std::vector<svg::Category>& ShareCategories() {
  static const std::vector<svg::Category> kCats = {
      {"invalid syntax", "#e15759"},
      {"invalid functionality", "#f28e2b"},
      {"correct", "#59a14f"},
      {"other", "#bab0ac"},
  };
  return kCats;
}

svg::StackedRow ShareRow(const metrics::GroupMetrics& g) {
  const auto& s = g.shares;
  return {g.name,
          {s.invalid_syntax_share, s.invalid_functionality_share, s.correct_share, s.other_share},
          g.samples};
}

std::string MetricsTable(const metrics::Metrics& m, const metrics::Metrics& strict) {
  std::string out =
      "<table id=\"metrics-table\"><tr><th>group</th><th>samples</th><th>tasks</th>"
      "<th>tasks whose reference "
      "failed</th><th>valid</th><th>compiled</th><th>correct</th><th>correct (strict)</th>";
  for (double p : m.options.fast_p) out += "<th>" + HtmlEscape(metrics::FastName(p)) + "</th>";
  out += "<th>mean speedup</th><th>geomean speedup</th><th>mean speedup (all samples)</th>";
  for (int k : m.options.pass_k) out += fmt::format("<th>pass@{} correct</th>", k);
  out += "</tr>";
  std::vector<std::pair<const metrics::GroupMetrics*, const metrics::GroupMetrics*>> rows;
  for (size_t i = 0; i < m.levels.size(); ++i) rows.push_back({&m.levels[i], &strict.levels[i]});
  rows.push_back({&m.overall, &strict.overall});
  for (const auto& [g, gs] : rows) {
    out += "<tr>" + Td(HtmlEscape(g->name)) + Td(std::to_string(g->samples), true) +
           Td(std::to_string(g->tasks), true) + Td(std::to_string(g->failed_tasks), true) +
           Td(Pct(g->valid_rate), true) + Td(Pct(g->compiled_rate), true) +
           Td(Pct(g->correct_rate), true) + Td(Pct(gs->correct_rate), true);
    for (const auto& f : g->fast_p) out += Td(OptPct(f.rate), true);
    out += Td(OptNum(g->mean_speedup), true) + Td(OptNum(g->geomean_speedup), true) +
           Td(OptNum(g->mean_speedup_all), true);
    for (const auto& p : g->pass_at_k)
      if (p.criterion == "correct") out += Td(OptPct(p.value), true);
    out += "</tr>";
  }
  return out + "</table>";
}

std::string OutcomeCountTable(const std::vector<metrics::SampleResult>& samples) {
  std::set<std::string> outcomes;
  std::map<std::string, std::map<std::string, int>> counts;  // group -> outcome -> n
  std::set<int> levels;
  for (const auto& s : samples) {
    outcomes.insert(s.outcome);
    if (s.level > 0) {
      counts["level" + std::to_string(s.level)][s.outcome]++;
      levels.insert(s.level);
    }
    counts["all"][s.outcome]++;
  }
  std::string out = "<table id=\"outcome-counts\"><tr><th>group</th>";
  for (const auto& o : outcomes) out += "<th>" + HtmlEscape(o) + "</th>";
  out += "</tr>";
  std::vector<std::string> groups;
  for (int l : levels) groups.push_back("level" + std::to_string(l));
  groups.push_back("all");
  for (const auto& g : groups) {
    out += "<tr>" + Td(HtmlEscape(g));
    for (const auto& o : outcomes) out += Td(std::to_string(counts[g][o]), true);
    out += "</tr>";
  }
  return out + "</table>";
}

std::string PassAtKSection(const metrics::Metrics& m) {
  static const char* kColors[] = {"#4e79a7", "#59a14f", "#edc948", "#b07aa1", "#76b7b2", "#ff9da7"};
  std::vector<std::string> criteria = {"correct"};
  for (double p : m.options.fast_p) criteria.push_back(metrics::FastName(p));
  std::vector<svg::Series> series;
  for (size_t c = 0; c < criteria.size(); ++c) {
    svg::Series s;
    s.name = criteria[c];
    s.color = kColors[c % std::size(kColors)];
    for (const auto& p : m.overall.pass_at_k) {
      if (p.criterion == criteria[c] && p.value) {
        s.x.push_back(p.k);
        s.y.push_back(*p.value);
      }
    }
    if (!s.x.empty()) series.push_back(std::move(s));
  }
  std::string out = svg::LineChart("pass-at-k", series, "k", "pass@k (all levels)");
  out += "<table id=\"pass-at-k-table\"><tr><th>group</th><th>criterion</th>";
  for (int k : m.options.pass_k) out += fmt::format("<th>pass@{}</th>", k);
  out += "</tr>";
  std::vector<const metrics::GroupMetrics*> groups;
  for (const auto& g : m.levels) groups.push_back(&g);
  groups.push_back(&m.overall);
  for (const auto* g : groups) {
    for (const auto& crit : criteria) {
      out += "<tr>" + Td(HtmlEscape(g->name)) + Td(HtmlEscape(crit));
      for (const auto& p : g->pass_at_k)
        if (p.criterion == crit) out += Td(OptPct(p.value), true);
      out += "</tr>";
    }
  }
  out +=
      "</table><p class=\"note\">n/a: some task of the group has fewer than k samples, or (fast_p) "
      "the group has correct samples and none of them was timed.</p>";
  return out;
}

// "candidate / reference ms (cv x%)" per timed variant, from the stored trial statistics; the
// variant is named only when more than one was timed.
std::string TimedCell(const store::VerdictRecord& v) {
  std::vector<std::string> parts;
  std::set<std::string> variants;
  for (const auto& t : v.trial_stats) variants.insert(t.variant);
  for (const auto& cand : v.trial_stats) {
    if (cand.subject != "candidate") continue;
    std::string ref = "?";
    for (const auto& r : v.trial_stats)
      if (r.subject == "reference" && r.variant == cand.variant)
        ref = fmt::format("{:.4g}", r.median_ms);
    std::string cell = fmt::format("{:.4g} / {} ms", cand.median_ms, ref);
    if (cand.mean_ms > 0)
      cell += fmt::format(" (cv {:.1f}%)", 100.0 * cand.stddev_ms / cand.mean_ms);
    parts.push_back(variants.size() > 1 ? cand.variant + ": " + cell : cell);
  }
  return parts.empty() ? "-" : JoinEscaped(parts, "; ");
}

// The worst element's share of its tolerance allowance (evidence.max_tolerance_margin).
std::string MarginCell(const store::VerdictRecord& v) {
  if (!v.compiled) return "-";  // no output was compared
  const nlohmann::json j = nlohmann::json::parse(v.evidence_json, nullptr, false);
  if (!j.is_object()) return "-";
  const auto ev = j.find("evidence");
  const nlohmann::json& e = ev != j.end() && ev->is_object() ? *ev : j;
  const auto m = e.find("max_tolerance_margin");
  if (m == e.end() || !m->is_number()) return "-";
  return fmt::format("{:.2f}", m->get<double>());
}

std::string SampleRow(const store::VerdictRecord& v, int level) {
  return "<tr>" + Td(HtmlEscape(v.key.task_id)) + Td(level > 0 ? std::to_string(level) : "-") +
         Td(HtmlEscape(v.key.sample_id)) + "<td class=\"o-" + HtmlEscape(v.outcome) + "\">" +
         HtmlEscape(v.outcome) + "</td>" + Td(v.valid ? "yes" : "no") +
         Td(v.correct ? "yes" : "no") + Td(Speedup(v.speedup), true) + Td(TimedCell(v), true) +
         Td(MarginCell(v), true) + Td(JoinEscaped(v.flags, ", ")) + "<td class=\"reasons\">" +
         JoinEscaped(v.reasons, "\n") + "</td>" + Td(v.from_cache ? "cache" : "") +
         Td(HtmlEscape(v.sandbox_level)) + "</tr>";
}

// Per pipeline stage: how many samples reached it and how long it took.
std::string StageTable(const std::vector<store::VerdictRecord>& verdicts) {
  std::map<std::string, std::vector<double>> by_stage;
  std::vector<std::string> order;  // first-seen order follows the pipeline
  for (const auto& v : verdicts) {
    for (const auto& t : v.stage_timings) {
      auto [it, inserted] = by_stage.try_emplace(t.stage);
      if (inserted) order.push_back(t.stage);
      it->second.push_back(t.seconds);
    }
  }
  if (order.empty()) return "<p class=\"note\">No stage timings recorded.</p>";
  std::string out =
      "<table id=\"stage-timings\"><tr><th>stage</th><th>samples</th><th>median s</th>"
      "<th>p90 s</th><th>max s</th><th>total s</th></tr>";
  for (const auto& stage : order) {
    std::vector<double>& xs = by_stage[stage];
    std::sort(xs.begin(), xs.end());
    double total = 0;
    for (double x : xs) total += x;
    auto q = [&](double f) {
      return xs[static_cast<size_t>(f * static_cast<double>(xs.size() - 1))];
    };
    out += "<tr>" + Td(HtmlEscape(stage)) + Td(std::to_string(xs.size()), true) +
           Td(fmt::format("{:.3f}", q(0.5)), true) + Td(fmt::format("{:.3f}", q(0.9)), true) +
           Td(fmt::format("{:.3f}", xs.back()), true) + Td(fmt::format("{:.1f}", total), true) +
           "</tr>";
  }
  return out + "</table>";
}

constexpr const char* kSampleHeader =
    "<tr><th>task</th><th>level</th><th>sample</th><th>outcome</th><th>valid</th>"
    "<th>correct</th><th>speedup</th><th>timed (candidate / reference median, cv)</th>"
    "<th>tolerance margin</th><th>flags</th><th>reasons</th><th>source</th>"
    "<th>sandbox</th></tr>";

// The run's identity and provenance: ids, times, hosts, devices, tool, sample file, counts,
// sandbox levels, policy and configuration.
std::string RunTable(const store::RunInfo& info, const std::vector<store::RunPart>& parts,
                     const std::vector<store::VerdictRecord>& verdicts, size_t sample_count,
                     int64_t task_count, const ReportOptions& options) {
  std::string h;
  int64_t cached = 0;
  std::map<std::string, int> sandbox_levels, devices;
  for (const auto& v : verdicts) {
    cached += v.from_cache;
    sandbox_levels[v.sandbox_level.empty() ? "unrecorded" : v.sandbox_level]++;
    if (!v.device_model.empty()) devices[v.device_model]++;
  }
  auto kv = [](const std::string& k, const std::string& escaped_value) {
    return "<tr><th>" + HtmlEscape(k) + "</th><td>" + escaped_value + "</td></tr>";
  };
  h += "<h2>Run</h2>\n<table id=\"summary\">";
  h += kv("run", HtmlEscape(info.id));
  h += kv("started", HtmlEscape(info.started_at));
  h += kv("ended", info.ended_at.empty() ? "<span class=\"warn\">not ended (running or killed; "
                                           "resume to finish)</span>"
                                         : HtmlEscape(info.ended_at));
  std::string part_list;
  for (const auto& p : parts) {
    part_list +=
        (part_list.empty() ? "" : "<br>") +
        HtmlEscape(p.host + " shard " + p.shard + " on " + p.device_model + ", " + p.started_at +
                   " to " + (p.ended_at.empty() ? "(not ended)" : p.ended_at));
  }
  h += kv("hosts", part_list.empty() ? HtmlEscape(info.host) : part_list);
  std::string device_list;
  for (const auto& [d, n] : devices)
    device_list += (device_list.empty() ? "" : ", ") + HtmlEscape(fmt::format("{} ({})", d, n));
  h += kv("devices", device_list.empty() ? HtmlEscape(info.device_model) : device_list);
  h += kv("tool", HtmlEscape(info.tool_version +
                             (info.git_revision.empty() ? "" : " (" + info.git_revision + ")")));
  h += kv("sample file",
          HtmlEscape(info.sample_file +
                     (info.sample_file_hash.empty() ? "" : " sha256 " + info.sample_file_hash)));
  h += kv("samples",
          fmt::format("{} ({} tasks; {} served from the cache)", sample_count, task_count, cached));
  std::string sandbox;
  for (const auto& [lvl, n] : sandbox_levels)
    sandbox += (sandbox.empty() ? "" : ", ") + HtmlEscape(fmt::format("{}: {}", lvl, n));
  h += kv("sandbox", sandbox.empty() ? "-" : sandbox);
  h += kv("correctness policy",
          options.metrics.policy == metrics::CorrectnessPolicy::kStrict
              ? "strict (flags " + JoinEscaped(options.metrics.strict_flags, ", ") + " fail)"
              : "standard (the evaluator's verdict; the strict column also fails flagged samples)");
  h += kv("configuration", "<pre>" + HtmlEscape(info.config_json) + "</pre>");
  h += "</table>\n";

  return h;
}

// The samples flagged for review (a flag or an implausible speedup), then every sample (up to
// max_sample_rows).
std::string SampleTables(const std::vector<store::VerdictRecord>& verdicts,
                         const std::vector<metrics::SampleResult>& samples,
                         const ReportOptions& options) {
  std::string h;
  // ---- Flagged
  std::map<std::string, int> level_of;
  for (size_t i = 0; i < samples.size(); ++i) level_of[verdicts[i].key.task_id] = samples[i].level;
  std::vector<const store::VerdictRecord*> flagged;
  for (const auto& v : verdicts) {
    bool implausible = v.speedup && *v.speedup > options.implausible_speedup;
    if (implausible || !v.flags.empty()) flagged.push_back(&v);
  }
  std::stable_sort(flagged.begin(), flagged.end(), [](const auto* a, const auto* b) {
    return a->speedup.value_or(0) > b->speedup.value_or(0);
  });
  h += fmt::format("<h2>Flagged for review ({})</h2>\n", flagged.size());
  h += fmt::format(
      "<p class=\"note\">Samples with a flag or a speedup above {:g}x. A large speedup over an "
      "eager reference can be real; these deserve a look before a number is published.</p>\n",
      options.implausible_speedup);
  // A wide table scrolls in its own box rather than squeezing its text column: breakable
  // anywhere, the reasons column once shrank to one character a line.
  h += "<div class=\"scroll\"><table id=\"flagged\">" + std::string(kSampleHeader);
  for (const auto* v : flagged) h += SampleRow(*v, level_of[v->key.task_id]);
  h += "</table></div>\n";

  // ---- Samples
  h += fmt::format("<h2>Samples ({})</h2>\n", verdicts.size());
  h += "<div class=\"scroll\"><table id=\"samples\">" + std::string(kSampleHeader);
  size_t shown = 0;
  for (const auto& v : verdicts) {
    if (shown++ >= options.max_sample_rows) break;
    h += SampleRow(v, level_of[v.key.task_id]);
  }
  h += "</table></div>\n";
  if (verdicts.size() > options.max_sample_rows) {
    h += fmt::format("<p class=\"note\">{} more samples not shown (max_sample_rows).</p>\n",
                     verdicts.size() - options.max_sample_rows);
  }
  return h;
}

}  // namespace

std::vector<metrics::SampleResult> ToSampleResults(
    const std::vector<store::VerdictRecord>& verdicts,
    const std::vector<store::TaskRecord>& tasks) {
  std::map<std::string, int> level_of;
  for (const auto& t : tasks)
    if (t.level > 0) level_of[t.id] = t.level;
  std::vector<metrics::SampleResult> out;
  out.reserve(verdicts.size());
  for (const auto& v : verdicts) {
    metrics::SampleResult s;
    s.task = v.key.task_id;
    auto it = level_of.find(v.key.task_id);
    s.level = it != level_of.end() ? it->second : LevelFromTaskId(v.key.task_id);
    s.outcome = v.outcome;
    s.valid = v.valid;
    s.compiled = v.compiled;
    s.correct = v.correct;
    s.speedup = v.speedup;
    s.flags = v.flags;
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::string> RenderReport(store::Store& store, const std::string& run_id,
                                 const ReportOptions& options) {
  auto run = store.GetRun(run_id);
  if (!run.ok()) return run.status();
  if (!run->has_value()) return Status::NotFound(store.path() + ": no run " + run_id);
  const store::RunInfo& info = **run;
  auto parts = store.GetRunParts(run_id);
  if (!parts.ok()) return parts.status();
  auto verdicts = store.LoadVerdicts(run_id);
  if (!verdicts.ok()) return verdicts.status();
  auto tasks = store.ListTasks(run_id);
  if (!tasks.ok()) return tasks.status();

  std::vector<metrics::SampleResult> samples = ToSampleResults(*verdicts, *tasks);
  metrics::Metrics m = metrics::ComputeMetrics(samples, options.metrics);
  metrics::MetricsOptions strict_options = options.metrics;
  strict_options.policy = metrics::CorrectnessPolicy::kStrict;
  metrics::Metrics strict = metrics::ComputeMetrics(samples, strict_options);

  std::string title = options.title.empty() ? "tritonrl run " + run_id : options.title;
  std::string h;
  h.reserve(64 * 1024 + verdicts->size() * 512);
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  h += "<title>" + HtmlEscape(title) + "</title><style>" + kStyle + "</style></head><body>\n";
  h += "<h1>" + HtmlEscape(title) + "</h1>\n";

  h += RunTable(info, *parts, *verdicts, samples.size(), m.overall.tasks, options);
  h += options.preface_html;

  // ---- Metrics
  h += "<h2>Metrics</h2>\n" + MetricsTable(m, strict);
  h += "<p class=\"note\">Rates are over all samples of the group. fast_p: correct and speedup "
       "&gt; p. Speedup means are over correct timed samples; \"all samples\" divides their sum "
       "by every sample; fast_p and that mean read n/a where correct samples exist and none was "
       "timed (a CPU run). A task whose reference could not run is the task's failure: its "
       "samples are in no figure of its row (counted under \"tasks whose reference failed\"). "
       "Definitions: docs/metrics.md.</p>\n";

  // ---- Outcomes
  h += "<h2>Outcome shares</h2>\n";
  std::vector<svg::StackedRow> share_rows;
  for (const auto& g : m.levels) share_rows.push_back(ShareRow(g));
  share_rows.push_back(ShareRow(m.overall));
  h += svg::StackedBars("outcome-shares", ShareCategories(), share_rows);
  h += OutcomeCountTable(samples);

  // ---- Speedups
  h += "<h2>Speedup distribution</h2>\n";
  std::vector<double> speedups;
  for (const auto& s : samples)
    if (metrics::IsCorrect(s, options.metrics) && s.speedup) speedups.push_back(*s.speedup);
  h += svg::LogHistogram("speedup-histogram", speedups);

  // ---- pass@k
  h += "<h2>pass@k</h2>\n" + PassAtKSection(m);

  // ---- Timings
  h += "<h2>Stage timings</h2>\n" + StageTable(*verdicts);

  h += SampleTables(*verdicts, samples, options);
  h += "</body></html>\n";
  return h;
}

template <typename CurveOf>
std::string GrpoSections(const CurveOf& curve) {
  std::string h;
  h += "<h2>Rewards</h2>\n" + svg::CurveChart("grpo_reward",
                                              {curve("reward_correct", "R_correct", "#1f77b4"),
                                               curve("reward_speedup", "R_speedup", "#ff7f0e")},
                                              "step", "mean reward");
  h += "<h2>Rates</h2>\n" +
       svg::CurveChart(
           "grpo_rates",
           {curve("valid_rate", "valid", "#2ca02c"), curve("compiled_rate", "compiled", "#9467bd"),
            curve("correct_rate", "correct", "#1f77b4"), curve("fast1_rate", "fast1", "#d62728")},
           "step", "share of rollouts");
  h += "<h2>Outcome shares (TritonRL Figure 5 classes)</h2>\n" +
       svg::CurveChart("grpo_shares",
                       {curve("share_invalid_syntax", "invalid syntax", "#7f7f7f"),
                        curve("share_invalid_functionality", "invalid functionality", "#8c564b"),
                        curve("share_incorrect", "incorrect", "#d62728"),
                        curve("share_correct_not_fast", "correct, not fast", "#1f77b4"),
                        curve("share_fast", "fast", "#2ca02c")},
                       "step", "share of rollouts");
  h += "<h2>Entropy</h2>\n" + svg::CurveChart("grpo_entropy",
                                              {curve("entropy", "entropy", "#17becf")}, "step",
                                              "nats/token");
  h += "<h2>Clip fraction and KL</h2>\n" +
       svg::CurveChart(
           "grpo_clip",
           {curve("clip_fraction", "clip fraction", "#bcbd22"), curve("kl", "k3 KL", "#e377c2")},
           "step", "value");
  h += "<h2>Response length</h2>\n" +
       svg::CurveChart("grpo_len",
                       {curve("response_tokens", "mean tokens", "#1f77b4"),
                        curve("truncated", "truncated (count)", "#d62728")},
                       "step", "tokens");
  h += "<h2>Generation throughput</h2>\n" +
       svg::CurveChart("grpo_tps", {curve("gen_tokens_per_second", "tokens/s", "#ff7f0e")}, "step",
                       "tokens/s");
  h +=
      "<h2>Step time split</h2>\n" + svg::CurveChart("grpo_time",
                                                     {curve("gen_seconds", "generation", "#1f77b4"),
                                                      curve("score_seconds", "scoring", "#ff7f0e"),
                                                      curve("update_seconds", "update", "#2ca02c")},
                                                     "step", "seconds");
  return h;
}

Result<std::string> RenderTrainReport(const std::string& path, const std::string& title_in) {
  int64_t steps = 0;
  bool grpo = false;  // a GRPO log (tritonrl train grpo): its own curves
  auto curves = ReadCurves(path, [&](const nlohmann::json& j) {
    steps += j.contains("loss");
    grpo = grpo || j.contains("reward_correct");
  });
  if (!curves.ok()) return curves.status();
  Curves& c = *curves;
  auto curve = [&](const std::string& key, const std::string& name, const std::string& color) {
    svg::Curve v = c[key];
    v.name = name;
    v.color = color;
    return v;
  };
  const std::string title = title_in.empty() ? "tritonrl training " + path : title_in;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += "<title>" + HtmlEscape(title) + "</title><style>" + kStyle + "</style></head><body>\n";
  h += "<h1>" + HtmlEscape(title) + "</h1>\n";
  h += fmt::format("<p>{} optimizer steps logged.</p>\n", steps);
  if (grpo) {
    h += GrpoSections(curve);
    h += "</body></html>\n";
    return h;
  }
  h += "<h2>Loss</h2>\n" +
       svg::CurveChart(
           "loss", {curve("loss", "train", "#1f77b4"), curve("eval_loss", "held-out", "#d62728")},
           "step", "loss (nats/token)");
  h += "<h2>Learning rate</h2>\n" +
       svg::CurveChart("lr", {curve("lr", "lr", "#2ca02c")}, "step", "lr");
  h += "<h2>Gradient norm</h2>\n" +
       svg::CurveChart("grad_norm", {curve("grad_norm", "before clipping", "#9467bd")}, "step",
                       "L2 norm");
  h += "<h2>Throughput</h2>\n" + svg::CurveChart("tokens_per_s",
                                                 {curve("tokens_per_s", "tokens/s", "#ff7f0e")},
                                                 "step", "tokens/s");
  h += "</body></html>\n";
  return h;
}

}  // namespace tritonrl::report
