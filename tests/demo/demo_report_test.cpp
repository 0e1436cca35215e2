// The demo's report page: the before/after table, the curves from metrics files,
// escaping, and errors naming FILE:LINE.
#include "report/demo_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tritonrl::report {
namespace {

std::string TempFile(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(DemoReport, TableRowsCurvesAndNotes) {
  DemoReportInput in;
  DemoEvalRow row;
  row.stage = "sft";
  row.suite = "heldout";
  row.tasks = 2;
  row.samples = 8;
  row.k = 4;
  row.pass_at_1 = 0.125;
  row.pass_at_k = 0.5;
  row.valid_rate = 0.625;
  row.invalid_syntax = 0.375;
  in.rows.push_back(row);
  in.notes.push_back("loss <fell>");
  in.sft_metrics = TempFile("demo_report_sft.jsonl",
                            "{\"step\":1,\"loss\":5.5}\n{\"step\":2,\"loss\":4.0}\n"
                            "{\"step\":2,\"eval_loss\":4.5}\n");
  in.grpo_metrics = TempFile("demo_report_grpo.jsonl",
                             "{\"step\":1,\"reward_correct\":0,\"correct_rate\":0}\n"
                             "{\"step\":2,\"reward_correct\":0.5,\"correct_rate\":0.25}\n");
  auto html = RenderDemoReport(in);
  ASSERT_TRUE(html.ok()) << html.status().message();
  EXPECT_NE(html->find("<tr data-stage=\"sft\" data-suite=\"heldout\">"), std::string::npos);
  EXPECT_NE(html->find("<td class=\"num\">0.125</td><td class=\"num\">0.500</td><td "
                       "class=\"num\">0.625</td>"),
            std::string::npos);
  EXPECT_NE(html->find("<td class=\"num\">n/a</td>"), std::string::npos);  // fast1 untimed
  EXPECT_NE(html->find("loss &lt;fell&gt;"), std::string::npos);
  EXPECT_EQ(html->find("<fell>"), std::string::npos);
  for (const char* id : {"id=\"sft-loss\"", "id=\"grpo-reward\"", "id=\"grpo-rates\""}) {
    EXPECT_NE(html->find(id), std::string::npos) << id;
  }
  EXPECT_NE(html->find("<polyline"), std::string::npos);
}

// Ablation rows name their mode and, for a further GRPO seed, the seed.
TEST(DemoReport, GrpoRowsNameModeAndSeed) {
  DemoReportInput in;
  for (const char* stage : {"grpo", "grpo-uniform", "grpo-binary-seed3"}) {
    DemoEvalRow row;
    row.stage = stage;
    row.suite = "heldout";
    in.rows.push_back(row);
  }
  auto html = RenderDemoReport(in);
  ASSERT_TRUE(html.ok()) << html.status().message();
  for (const char* name :
       {">after GRPO<", ">after GRPO (uniform)<", ">after GRPO (binary, seed 3)<"}) {
    EXPECT_NE(html->find(name), std::string::npos) << name;
  }
}

// The page opens with the paired comparisons; an interval that excludes 0 is marked.
TEST(DemoReport, PairedComparisonsOpenThePage) {
  DemoReportInput in;
  in.notes.push_back("a note");
  in.comparisons.push_back({"heldout", "sft", "grpo", "pass@1", 32, 0.25, 0.40, 0.15, 0.05, 0.26});
  in.comparisons.push_back({"level1", "base", "sft", "valid", 8, 0.0, 0.125, 0.125, -0.01, 0.3});
  auto html = RenderDemoReport(in);
  ASSERT_TRUE(html.ok()) << html.status().message();
  const size_t table = html->find("<table id=\"paired\">");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(table, html->find("id=\"notes\""));
  EXPECT_NE(html->find("data-suite=\"heldout\" data-from=\"sft\" data-to=\"grpo\" "
                       "data-metric=\"pass@1\""),
            std::string::npos);
  EXPECT_NE(html->find(">+0.150<"), std::string::npos);
  EXPECT_NE(html->find(">[+0.050, +0.260] *<"), std::string::npos);
  EXPECT_NE(html->find(">[-0.010, +0.300]<"), std::string::npos);  // includes 0: no mark
}

TEST(DemoReport, BadMetricsLineNamesFileAndLine) {
  DemoReportInput in;
  in.grpo_metrics = TempFile("demo_report_bad.jsonl", "{\"step\":1}\nnot json\n");
  auto html = RenderDemoReport(in);
  ASSERT_FALSE(html.ok());
  EXPECT_NE(html.status().message().find("demo_report_bad.jsonl:2"), std::string::npos)
      << html.status().message();
}

}  // namespace
}  // namespace tritonrl::report
