// The HTML reports as a browser lays them out: each page (the eval report, the training report
// of an SFT and of a GRPO log, the demo page) is rendered by headless Chromium with a small
// script added that measures the layout, and the test asserts on what it measured:
//   - every label of every chart lies inside its SVG's view box (nothing cut off);
//   - every series is drawn: a polyline with extent, or the marker of a one-point curve;
//   - no cell of the sample tables is squeezed (the "reasons" column keeps a readable width).
// A screenshot of each page is left in the test's working folder for a human to look at.
// Chromium is a Debian package (scripts/setup.sh --tests); without it the test fails, naming it.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../store/store_test_util.h"
#include "report/demo_report.h"
#include "report/report.h"

namespace tritonrl::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::tritonrl::store::testing::TempDir;

// Measures the laid-out page and leaves the result, as JSON, in <body data-check="...">.
constexpr const char* kLayoutProbe = R"js(
<script>
(() => {
  const out = {charts: [], cells: []};
  for (const svg of document.querySelectorAll('svg.chart')) {
    // Screen boxes, so that a rotated axis label is measured as drawn; the SVG's own box is its
    // view box as laid out (the charts draw at scale 1).
    const box = svg.getBoundingClientRect();
    const chart = {id: svg.id, texts_outside: [], series: 0, series_drawn: 0, points: 0};
    for (const t of svg.querySelectorAll('text')) {
      const b = t.getBoundingClientRect();
      if (b.left < box.left - 1 || b.top < box.top - 1 || b.right > box.right + 1 ||
          b.bottom > box.bottom + 1)
        chart.texts_outside.push(t.textContent);
    }
    const markers = [...svg.querySelectorAll('circle.point')].map(c => c.getAttribute('fill'));
    chart.points = markers.length;
    for (const p of svg.querySelectorAll('polyline.series')) {
      chart.series += 1;
      const b = p.getBBox();
      if (b.width > 0 || b.height > 0 || markers.includes(p.getAttribute('stroke')))
        chart.series_drawn += 1;
    }
    out.charts.push(chart);
  }
  for (const table of document.querySelectorAll('table#flagged, table#samples')) {
    for (const td of table.querySelectorAll('td')) {
      out.cells.push({table: table.id, cls: td.className, width: td.getBoundingClientRect().width,
                      chars: td.textContent.length});
    }
  }
  document.body.setAttribute('data-check', JSON.stringify(out));
})();
</script>
)js";

std::string Chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/snap/bin"}) {
      const fs::path p = fs::path(dir) / name;
      if (fs::exists(p)) return p.string();
    }
  }
  return "";
}

// Runs `cmd`, returns its stdout (empty and a failed expectation when it fails).
std::string Capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd << "\n" << out.substr(0, 400);
  return out;
}

std::string Unescape(std::string s) {
  const std::pair<const char*, const char*> kEntities[] = {
      {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : kEntities) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1))
      s.replace(at, std::string(from).size(), to);
  }
  return s;
}

// Lays `html` out at a desktop width and returns the probe's measurements; a screenshot of
// the page goes to <name>.png in the working folder.
json Layout(const std::string& html, const std::string& name, const TempDir& dir) {
  const std::string chromium = Chromium();
  if (chromium.empty()) {
    ADD_FAILURE() << "chromium not found: it renders the reports (scripts/setup.sh --tests "
                     "installs the Debian package)";
    return json::object();
  }
  std::string page = html;
  const size_t body_end = page.rfind("</body>");
  page.insert(body_end == std::string::npos ? page.size() : body_end, kLayoutProbe);
  const std::string path = dir.File(name + ".html");
  std::ofstream(path) << page;
  // --no-sandbox: the test may run as root in a container, where Chromium's sandbox cannot start.
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2400 ";
  Capture(chromium + flags + "--screenshot=" + fs::absolute(name + ".png").string() + " file://" +
          path + " 2>/dev/null");
  EXPECT_TRUE(fs::exists(name + ".png") && fs::file_size(name + ".png") > 1000) << name;
  const std::string dom = Capture(chromium + flags + "--dump-dom file://" + path + " 2>/dev/null");
  const std::string key = "data-check=\"";
  const size_t at = dom.find(key);
  if (at == std::string::npos) {
    ADD_FAILURE() << name << ": the layout probe left no result";
    return json::object();
  }
  const size_t end = dom.find('"', at + key.size());
  return json::parse(Unescape(dom.substr(at + key.size(), end - at - key.size())));
}

void ExpectChartsWhole(const json& layout, const std::string& page, size_t min_charts) {
  ASSERT_TRUE(layout.contains("charts")) << page;
  EXPECT_GE(layout["charts"].size(), min_charts) << page;
  for (const auto& c : layout["charts"]) {
    EXPECT_TRUE(c["texts_outside"].empty())
        << page << " chart " << c["id"] << ": labels outside the view box "
        << c["texts_outside"].dump();
    EXPECT_EQ(c["series_drawn"], c["series"]) << page << " chart " << c["id"];
  }
}

// An eval run whose flagged samples carry what made the table unreadable: a long traceback,
// an unbroken path, several flags and an implausible speedup.
std::string EvalReport(const TempDir& dir) {
  auto s = store::Store::Open(dir.File("r.db"));
  EXPECT_TRUE(s.ok());
  store::RunInfo info;
  info.id = "run1";
  info.device_model = "NVIDIA H200";
  EXPECT_TRUE(s->BeginRun(info).ok());
  const std::string path = "/tmp/tritonrl-eval-12345/w-AbCdEf/candidate.py";
  std::string traceback;
  for (int i = 0; i < 12; ++i)
    traceback += "File \"" + path + "\", line " + std::to_string(40 + i) + ", in forward\n";
  traceback +=
      "RuntimeError: CUDA error: an illegal memory access was encountered" + std::string(120, 'x');
  for (int i = 0; i < 12; ++i) {
    store::EvalResult e;
    e.sample.key = {"run1", i % 2 ? "level1/19_ReLU" : "level2/76_Gemm_Add_ReLU",
                    "sample-" + std::to_string(i)};
    e.sample.task_hash = Sha256Hex(e.sample.key.task_id);
    store::VerdictRecord& v = e.verdict;
    v.outcome = i % 3 ? "correct" : "runtime_error";
    v.valid = v.compiled = true;
    v.correct = v.outcome == "correct";
    if (v.correct) v.speedup = i % 4 ? 1.0 + i : 250.0;
    if (i % 2) v.flags = {"implausible_speedup", "lazy_optimization", "near_tolerance"};
    v.reasons = {traceback, "tolerance margin 0.93 of atol+rtol*|ref| at output 0 index 1048575"};
    v.sandbox_level = "full";
    v.device_model = "NVIDIA H200";
    v.stage_timings = {{"static", 0.5}, {"correctness", 210.0}};
    EXPECT_TRUE(s->PutResult(e).ok());
  }
  auto html = RenderReport(*s, "run1");
  EXPECT_TRUE(html.ok()) << html.status().ToString();
  return html.ok() ? *html : "";
}

TEST(ReportLayout, EvalReportChartsAndTablesAreReadable) {
  TempDir dir;
  const json layout = Layout(EvalReport(dir), "eval_report", dir);
  ExpectChartsWhole(layout, "eval report", 1);
  ASSERT_TRUE(layout.contains("cells"));
  int reasons = 0;
  for (const auto& c : layout["cells"]) {
    // One character of 0.9em is about 8 px: a cell with text narrower than 3 characters is
    // the squeezed column of before (one character a line).
    if (c["chars"].get<int>() >= 3) {
      EXPECT_GE(c["width"].get<double>(), 24.0) << c.dump();
    }
    if (c["cls"] == "reasons") {
      ++reasons;
      EXPECT_GE(c["width"].get<double>(), 250.0) << c.dump();
    }
  }
  EXPECT_GE(reasons, 12);  // the flagged table and the sample table
}

TEST(ReportLayout, TrainingReportsDrawEverySeriesInsideTheirCharts) {
  TempDir dir;
  // SFT: a held-out loss measured once (a one-point curve), a long run of training steps.
  const std::string sft = dir.File("sft.jsonl");
  {
    std::ofstream f(sft);
    for (int step = 1; step <= 40; ++step) {
      f << "{\"step\": " << step << ", \"loss\": " << 3.0 / step << ", \"lr\": 0.0003"
        << ", \"grad_norm\": " << 1.0 + step % 3 << ", \"tokens_per_second\": 12000}\n";
    }
    f << "{\"step\": 40, \"eval_loss\": 0.41}\n";
  }
  auto html = RenderTrainReport(sft, "SFT of builtin:small");
  ASSERT_TRUE(html.ok()) << html.status().ToString();
  const json s = Layout(*html, "train_sft", dir);
  ExpectChartsWhole(s, "SFT report", 2);
  int points = 0;
  for (const auto& c : s["charts"]) points += c["points"].get<int>();
  EXPECT_GE(points, 1) << "the one-point held-out loss has no marker";

  // GRPO: a few steps (the axis ticks once read 1 2 2 2 3), rewards and rates.
  const std::string grpo = dir.File("grpo.jsonl");
  {
    std::ofstream f(grpo);
    for (int step = 1; step <= 3; ++step) {
      f << "{\"step\": " << step << ", \"reward_correct\": " << 0.1 * step
        << ", \"reward_speedup\": " << 0.05 * step << ", \"valid_rate\": " << 0.3 * step
        << ", \"correct_rate\": " << 0.2 * step << "}\n";
    }
  }
  auto g = RenderTrainReport(grpo, "GRPO");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectChartsWhole(Layout(*g, "train_grpo", dir), "GRPO report", 1);
}

TEST(ReportLayout, DemoPageBarsAndCurvesFit) {
  TempDir dir;
  DemoReportInput in;
  in.settings = {{"model", "builtin:small"}, {"device", "cuda"}};
  for (const char* stage : {"base", "sft", "grpo"}) {
    for (const char* suite : {"heldout", "level1"}) {
      DemoEvalRow r;
      r.stage = stage;
      r.suite = suite;
      r.tasks = 32;
      r.samples = 512;
      r.k = 16;
      r.invalid_syntax = 0.5;
      r.invalid_functionality = 0.1;
      r.incorrect = 0.2;
      r.correct = 0.2;
      in.rows.push_back(r);
    }
  }
  in.sft_metrics = dir.File("sft.jsonl");
  std::ofstream(in.sft_metrics) << "{\"step\": 1, \"loss\": 2.5}\n{\"step\": 2, \"loss\": 2.0}\n"
                                << "{\"step\": 2, \"eval_loss\": 2.2}\n";
  in.grpo_metrics = dir.File("grpo.jsonl");
  std::ofstream(in.grpo_metrics) << "{\"step\": 1, \"reward_correct\": 0.1, \"valid_rate\": 0.2}\n"
                                 << "{\"step\": 2, \"reward_correct\": 0.3, \"valid_rate\": 0.4}\n";
  in.notes = {"GRPO had informative groups in 2 of 3 steps."};
  auto html = RenderDemoReport(in);
  ASSERT_TRUE(html.ok()) << html.status().ToString();
  ExpectChartsWhole(Layout(*html, "demo", dir), "demo page", 2);
}

}  // namespace
}  // namespace tritonrl::report
