// The demo's HTML page (`tritonrl demo`, docs/demo.md): the before/after table of
// every evaluated policy (base, after SFT, after GRPO) on each task set, the
// outcome shares per stage (TritonRL Figure 5), the SFT loss curve and the GRPO
// reward and rate curves, and the notes that say what happened. Pure function of
// its input plus the two metrics files it reads; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace tritonrl::report {

// One row of the before/after table.
struct DemoEvalRow {
  std::string stage;  // base, sft, grpo
  std::string suite;  // heldout, level1
  int64_t tasks = 0, samples = 0;
  int k = 0;
  double pass_at_1 = 0, pass_at_k = 0;
  double valid_rate = 0, compiled_rate = 0, correct_rate = 0;
  std::optional<double> fast1_rate;  // absent when nothing was timed
  double invalid_syntax = 0, invalid_functionality = 0, incorrect = 0, correct = 0;  // shares
  int64_t truncated = 0;
  std::string run_id;
};

// One before/after comparison of two policies on the same tasks, paired by task, with 95%
// bootstrap intervals over tasks (metrics/paired.h).
struct DemoComparisonRow {
  std::string suite;     // heldout, level1
  std::string from, to;  // stages, e.g. sft -> grpo
  std::string metric;    // pass@1, valid
  int64_t tasks = 0;
  double before = 0, after = 0;              // means over tasks
  double difference = 0, low = 0, high = 0;  // after - before and its interval
};

struct DemoReportInput {
  std::string title = "tritonrl demo";
  std::vector<std::pair<std::string, std::string>> settings;  // shown as a key/value table
  std::vector<DemoComparisonRow> comparisons;                 // the page opens with these
  std::vector<DemoEvalRow> rows;
  std::string sft_metrics;         // the SFT trainer's metrics.jsonl; empty: no SFT curve
  std::string grpo_metrics;        // JSONL of GRPO steps ("step", reward_*, *_rate); empty: none
  std::vector<std::string> notes;  // what happened, in words (plain text, escaped here)
};

// Numbers in the table are printed with three decimals (the test reads them back).
Result<std::string> RenderDemoReport(const DemoReportInput& input);

}  // namespace tritonrl::report
