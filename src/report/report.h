// A static, self-contained HTML report of one run (inline CSS and SVG; no script, no
// network): summary, metrics per level, outcome shares, speedup histogram, pass@k,
// flagged samples and the sample table. All stored text is escaped (it is hostile).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "metrics/metrics.h"
#include "store/store.h"

namespace tritonrl::report {

struct ReportOptions {
  metrics::MetricsOptions metrics;    // thresholds, k values, correctness policy
  double implausible_speedup = 10.0;  // speedups above this are listed for review
  size_t max_sample_rows = 5000;      // the sample table is cut after this many rows
  std::string title;                  // defaults to "tritonrl run <id>"
  // The caller's own section, placed after the run summary (trusted HTML: the caller escapes
  // what it puts in; `tritonrl bench` says there which prompt and size rule made the run).
  std::string preface_html;
};

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

// Converts stored verdicts to metrics inputs. The level comes from the task record of the
// sample's task, else from a "levelN/" prefix of the task id, else 0.
std::vector<metrics::SampleResult> ToSampleResults(
    const std::vector<store::VerdictRecord>& verdicts, const std::vector<store::TaskRecord>& tasks);

// Loads run `run_id` from the store and renders the report.
Result<std::string> RenderReport(store::Store& store, const std::string& run_id,
                                 const ReportOptions& options = {});

// A training log (the trainer's metrics.jsonl) as curves: training and held-out
// loss, learning rate, gradient norm and tokens/s over steps. A line that is
// not JSON fails with "FILE:LINE".
Result<std::string> RenderTrainReport(const std::string& metrics_path,
                                      const std::string& title = "");

}  // namespace tritonrl::report
