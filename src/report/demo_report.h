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

// One row of the learning experiment's opening table: a per-task metric (pass@1 or a Figure 5
// share) of the control (before) and the GRPO policy (after) on the pool, paired by task, each
// with its 95% bootstrap interval over tasks.
struct DemoLearningRow {
  std::string metric;
  double before = 0, before_low = 0, before_high = 0;
  double after = 0, after_low = 0, after_high = 0;
  double difference = 0, low = 0, high = 0;  // after - before
};

// The learning experiment's result, which the page opens with (docs/demo.md, "Does GRPO learn?").
struct DemoLearningTable {
  std::string caption;  // what was compared: the pool, k, the seeds, the GRPO run
  std::string warning;  // non-empty: the run missed the design (shown before the table)
  std::vector<DemoLearningRow> rows;
};

struct DemoReportInput {
  std::string title = "tritonrl demo";
  std::vector<std::pair<std::string, std::string>> settings;  // shown as a key/value table
  std::optional<DemoLearningTable> learning;                  // the page opens with it
  std::vector<DemoComparisonRow> comparisons;                 // then with these
  std::vector<DemoEvalRow> rows;
  std::string sft_metrics;         // the SFT trainer's metrics.jsonl; empty: no SFT curve
  std::string grpo_metrics;        // JSONL of GRPO steps ("step", reward_*, *_rate); empty: none
  std::vector<std::string> notes;  // what happened, in words (plain text, escaped here)
};

// Numbers in the table are printed with three decimals (the test reads them back).
Result<std::string> RenderDemoReport(const DemoReportInput& input);

}  // namespace tritonrl::report
