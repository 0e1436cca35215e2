#include "report/report.h"
#include "../store/store_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace tritonrl::report {
namespace {

using ::tritonrl::store::testing::TempDir;

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

struct Row {
  std::string task, sample, outcome;
  std::optional<double> speedup;
  std::vector<std::string> flags;
  std::vector<std::string> reasons;
};

store::EvalResult Make(const std::string& run, const Row& r) {
  store::EvalResult e;
  e.sample.key = {run, r.task, r.sample};
  e.sample.task_hash = Sha256Hex(r.task);
  e.sample.text = "code for " + r.task + " " + r.sample;
  store::VerdictRecord& v = e.verdict;
  v.outcome = r.outcome;
  v.syntax_ok = r.outcome != "invalid_syntax";
  v.functionality_ok = v.syntax_ok && r.outcome != "invalid_functionality";
  v.valid = v.syntax_ok && v.functionality_ok;
  v.compiled = v.valid && r.outcome != "compile_error";
  v.correct = r.outcome == "correct";
  v.speedup = r.speedup;
  v.flags = r.flags;
  v.reasons = r.reasons;
  v.sandbox_level = "full";
  v.device_model = "cpu";
  v.stage_timings = {{"static", 0.5}};
  if (v.compiled) v.stage_timings.push_back({"correctness", 2.0});
  return e;
}

// The metrics fixture of tests/metrics (hand-computed there), written through the store.
void Fill(store::Store& s, const std::string& run) {
  store::RunInfo info;
  info.id = run;
  info.config_json = R"({"trials":5})";
  info.host = "host-a";
  info.device_model = "cpu";
  info.tool_version = "0.1.0";
  ASSERT_TRUE(s.BeginRun(info).ok());
  for (const char* id : {"level1/A", "level1/B", "level2/C"}) {
    store::TaskRecord t;
    t.id = id;
    t.content_hash = Sha256Hex(id);
    t.level = id[5] - '0';
    ASSERT_TRUE(s.PutTask(t).ok());
  }
  std::vector<Row> rows = {
      {"level1/A", "0", "correct", 2.0, {}, {}},
      {"level1/A", "1", "correct", 0.5, {}, {}},
      {"level1/A", "2", "invalid_syntax", std::nullopt, {}, {"line 3: <script>alert(1)</script>"}},
      {"level1/B", "0", "incorrect", std::nullopt, {}, {"max abs diff 0.5 > atol & rtol"}},
      {"level1/B", "1", "correct", 4.0, {"lazy_optimization"}, {}},
      {"level1/B", "2", "invalid_functionality", std::nullopt, {}, {"no triton kernel"}},
      {"level2/C", "0", "compile_error", std::nullopt, {}, {}},
      {"level2/C", "1", "correct", 1.0, {}, {}},
      {"level2/C", "\"><img src=x onerror=alert(2)>", "timeout", std::nullopt, {}, {}},
  };
  for (const auto& r : rows) ASSERT_TRUE(s.PutResult(Make(run, r)).ok());
}

// A fresh store in `dir` with an empty run `run` begun.
Result<store::Store> OpenWithRun(const TempDir& dir, const std::string& run) {
  auto s = store::Store::Open(dir.File("r.db"));
  if (!s.ok()) return s.status();
  store::RunInfo info;
  info.id = run;
  if (Status st = s->BeginRun(info); !st.ok()) return st;
  return s;
}

TEST(HtmlEscape, EscapesMarkupCharacters) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("plain"), "plain");
}

TEST(Report, ContainsTheMetricsAndCharts) {
  TempDir dir;
  auto s = store::Store::Open(dir.File("r.db"));
  ASSERT_TRUE(s.ok());
  Fill(*s, "run1");
  auto html = RenderReport(*s, "run1");
  ASSERT_TRUE(html.ok()) << html.status().ToString();
  const std::string& h = *html;

  // Level 1 row: valid 4/6, compiled 4/6, correct 3/6, strict 2/6, fast_1 2/6, fast_2 1/6,
  // mean 6.5/3, geomean 4^(1/3), mean over all samples 6.5/6, pass@1 0.5, pass@5/10 n/a; no
  // task whose reference failed.
  EXPECT_NE(
      h.find("<tr><td>level1</td><td class=\"num\">6</td><td class=\"num\">2</td>"
             "<td class=\"num\">0</td><td class=\"num\">66.7%</td><td class=\"num\">66.7%</td>"
             "<td class=\"num\">50.0%</td><td class=\"num\">33.3%</td>"
             "<td class=\"num\">33.3%</td><td class=\"num\">16.7%</td>"
             "<td class=\"num\">2.167</td><td class=\"num\">1.587</td>"
             "<td class=\"num\">1.083</td><td class=\"num\">50.0%</td>"
             "<td class=\"num\">n/a</td><td class=\"num\">n/a</td></tr>"),
      std::string::npos)
      << h;
  // Overall: 9 samples, 3 tasks, correct 4/9.
  EXPECT_NE(h.find("<tr><td>all</td><td class=\"num\">9</td><td class=\"num\">3</td>"),
            std::string::npos);
  EXPECT_NE(h.find("<td class=\"num\">44.4%</td>"), std::string::npos);

  // Charts: one stacked bar per group, segments only for non-empty shares.
  EXPECT_NE(h.find("<svg id=\"outcome-shares\""), std::string::npos);
  EXPECT_NE(h.find("<title>level1 correct: 50.0%</title>"), std::string::npos);
  EXPECT_EQ(h.find("<title>level2 invalid syntax"), std::string::npos);
  EXPECT_NE(h.find("<title>all other: 33.3%</title>"), std::string::npos);
  // Histogram: correct timed speedups 2, 0.5, 4, 1 fall in four distinct half-octave bins.
  EXPECT_NE(h.find("<svg id=\"speedup-histogram\""), std::string::npos);
  EXPECT_EQ(Count(h, "class=\"bin\""), 4u);
  EXPECT_NE(h.find("class=\"marker\""), std::string::npos);
  // pass@k: with 3 samples per task only k=1 exists: one point per criterion.
  EXPECT_NE(h.find("<svg id=\"pass-at-k\""), std::string::npos);
  EXPECT_EQ(Count(h, "<polyline class=\"series\""), 3u);
  EXPECT_NE(h.find("<title>correct k=1: 44.4%</title>"), std::string::npos);

  // Stage timings: every sample ran the static stage, the six compiled ones correctness.
  EXPECT_NE(h.find("<tr><td>static</td><td class=\"num\">9</td><td class=\"num\">0.500</td>"),
            std::string::npos);
  EXPECT_NE(h.find("<tr><td>correctness</td><td class=\"num\">6</td><td class=\"num\">2.000</"
                   "td><td class=\"num\">2.000</td><td class=\"num\">2.000</td><td "
                   "class=\"num\">12.0</td></tr>"),
            std::string::npos);

  // Flagged: the lazy_optimization sample.
  size_t flagged = h.find("<table id=\"flagged\">");
  size_t samples = h.find("<table id=\"samples\">");
  ASSERT_NE(flagged, std::string::npos);
  ASSERT_NE(samples, std::string::npos);
  std::string flagged_table = h.substr(flagged, samples - flagged);
  EXPECT_NE(flagged_table.find("lazy_optimization"), std::string::npos);
  EXPECT_EQ(Count(flagged_table, "<tr>") - 1, 1u);  // header + one sample
  EXPECT_NE(h.find("Samples (9)"), std::string::npos);
}

TEST(Report, EscapesHostileText) {
  TempDir dir;
  auto s = store::Store::Open(dir.File("r.db"));
  ASSERT_TRUE(s.ok());
  Fill(*s, "run<1>");
  auto html = RenderReport(*s, "run<1>");
  ASSERT_TRUE(html.ok()) << html.status().ToString();
  const std::string& h = *html;
  EXPECT_EQ(Lower(h).find("<script"), std::string::npos);
  EXPECT_EQ(Lower(h).find("<img"), std::string::npos);
  EXPECT_NE(h.find("line 3: &lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(h.find("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(h.find("atol &amp; rtol"), std::string::npos);
  EXPECT_NE(h.find("<title>tritonrl run run&lt;1&gt;</title>"), std::string::npos);
  // Self-contained: nothing to fetch (the SVG namespace is an identifier, not a request).
  std::string rest = h;
  for (size_t p; (p = rest.find("xmlns=\"http://www.w3.org/2000/svg\"")) != std::string::npos;)
    rest.erase(p, 34);
  EXPECT_EQ(rest.find("http"), std::string::npos);
  EXPECT_EQ(Lower(h).find("<link"), std::string::npos);
}

TEST(Report, FlagsImplausibleSpeedupsAndCutsLongTables) {
  TempDir dir;
  auto s = OpenWithRun(dir, "r");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->PutResult(Make("r", {"level1/A", "fast", "correct", 50.0, {}, {}})).ok());
  ASSERT_TRUE(s->PutResult(Make("r", {"level1/A", "ok", "correct", 3.0, {}, {}})).ok());
  ASSERT_TRUE(s->PutResult(Make("r", {"level1/A", "slow", "correct", 0.9, {}, {}})).ok());
  ReportOptions o;
  o.max_sample_rows = 2;
  auto html = RenderReport(*s, "r", o);
  ASSERT_TRUE(html.ok());
  const std::string& h = *html;
  size_t flagged = h.find("<table id=\"flagged\">");
  size_t samples = h.find("<table id=\"samples\">");
  std::string flagged_table = h.substr(flagged, samples - flagged);
  EXPECT_NE(flagged_table.find("50.00x"), std::string::npos);
  EXPECT_EQ(flagged_table.find("3.00x"), std::string::npos);
  EXPECT_NE(h.find("Flagged for review (1)"), std::string::npos);
  EXPECT_NE(h.find("1 more samples not shown"), std::string::npos);
  // Levels come from the task id when the task was not recorded.
  EXPECT_NE(h.find("<tr><td>level1</td>"), std::string::npos);

  auto missing = RenderReport(*s, "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
}

TEST(Report, SampleTableShowsTimedMediansAndTheToleranceMargin) {
  TempDir dir;
  auto s = OpenWithRun(dir, "r");
  ASSERT_TRUE(s.ok());
  store::EvalResult timed = Make("r", {"level1/A", "timed", "correct", 0.992, {}, {}});
  // cv = stddev / mean = 0.00132 / 0.132 = 1.0 %.
  timed.verdict.trial_stats = {{"reference", "large", 100, 0.130, 0.131, 0.129, 0.140, 0.0005},
                               {"candidate", "large", 100, 0.131, 0.132, 0.130, 0.150, 0.00132}};
  timed.verdict.evidence_json =
      R"({"outcome":"correct","evidence":{"max_tolerance_margin":0.617}})";
  ASSERT_TRUE(s->PutResult(timed).ok());
  store::EvalResult two = Make("r", {"level1/A", "two", "correct", 2.0, {}, {}});
  two.verdict.trial_stats = {{"reference", "small", 10, 2.0, 2.0, 2.0, 2.0, 0.0},
                             {"candidate", "small", 10, 1.0, 1.0, 1.0, 1.0, 0.0},
                             {"candidate", "large", 10, 3.0, 3.0, 3.0, 3.0, 0.0}};
  two.verdict.evidence_json = "not json";
  ASSERT_TRUE(s->PutResult(two).ok());
  auto html = RenderReport(*s, "r");
  ASSERT_TRUE(html.ok());
  const std::string& h = *html;
  EXPECT_NE(h.find("<td class=\"num\">0.99x</td><td class=\"num\">0.131 / 0.13 ms (cv 1.0%)</td>"
                   "<td class=\"num\">0.62</td>"),
            std::string::npos)
      << h;
  // Two variants are named; a variant without a reference shows "?"; bad evidence shows "-".
  EXPECT_NE(h.find("<td class=\"num\">small: 1 / 2 ms (cv 0.0%); large: 3 / ? ms (cv 0.0%)</td>"
                   "<td class=\"num\">-</td>"),
            std::string::npos)
      << h;
}

TEST(ToSampleResults, LevelFromTaskRecordThenId) {
  store::VerdictRecord a, b, c;
  a.key = {"r", "custom/x", "0"};
  b.key = {"r", "level3/y", "0"};
  c.key = {"r", "levelX/z", "0"};
  store::TaskRecord t;
  t.id = "custom/x";
  t.level = 2;
  auto out = ToSampleResults({a, b, c}, {t});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].level, 2);
  EXPECT_EQ(out[1].level, 3);
  EXPECT_EQ(out[2].level, 0);
}

// The training report counts the optimizer steps (lines with a loss), draws an SFT log's loss
// and a GRPO log's rewards, and names FILE:LINE of a line that is not a metrics line.
TEST(TrainReport, StepsCurvesAndBadLines) {
  TempDir dir;
  const std::string sft = dir.File("sft.jsonl");
  {
    std::ofstream f(sft);
    f << "{\"step\": 1, \"loss\": 2.5, \"lr\": 0.001}\n\n"
      << "{\"step\": 2, \"loss\": 2.0, \"lr\": 0.001}\n"
      << "{\"step\": 2, \"eval_loss\": 2.2}\n";
  }
  auto html = RenderTrainReport(sft);
  ASSERT_TRUE(html.ok()) << html.status().ToString();
  EXPECT_NE(html->find("2 optimizer steps logged"), std::string::npos);
  EXPECT_NE(html->find("<h2>Loss</h2>"), std::string::npos);
  EXPECT_EQ(html->find("<h2>Rewards</h2>"), std::string::npos);

  const std::string grpo = dir.File("grpo.jsonl");
  {
    std::ofstream f(grpo);
    f << "{\"step\": 1, \"reward_correct\": 0.25, \"valid_rate\": 0.5}\n";
  }
  auto g = RenderTrainReport(grpo);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_NE(g->find("<h2>Rewards</h2>"), std::string::npos);
  EXPECT_EQ(g->find("<h2>Loss</h2>"), std::string::npos);

  const std::string bad = dir.File("bad.jsonl");
  {
    std::ofstream f(bad);
    f << "{\"step\": 1, \"loss\": 1}\n{\"loss\": 1}\n";
  }
  auto b = RenderTrainReport(bad);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find(bad + ":2:"), std::string::npos) << b.status().message();
  EXPECT_EQ(RenderTrainReport(dir.File("missing.jsonl")).status().code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace tritonrl::report
