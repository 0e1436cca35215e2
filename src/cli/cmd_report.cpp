// `tritonrl report`: renders one run of a results store as a self-contained HTML file.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/file.h"
#include "cli/command.h"
#include "report/report.h"
#include "store/store.h"

namespace {

struct ReportCliOptions {
  std::string db;
  std::string run;
  std::string out;
  std::string train_log;  // a trainer's metrics.jsonl instead of a store
  bool strict = false;
  double implausible = 10.0;
  std::vector<double> fast_p = {1.0, 2.0};
  std::vector<int> pass_k = {1, 5, 10};
  size_t max_rows = 5000;
};

int RunReport(const ReportCliOptions& o) {
  using namespace tritonrl;
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "tritonrl report: error: %s\n", s.message().c_str());
    return 2;
  };
  if (!o.train_log.empty()) {
    auto html = report::RenderTrainReport(o.train_log);
    if (!html.ok()) return fail(html.status());
    if (auto s = WriteFileAtomic(o.out, *html); !s.ok()) return fail(s);
    std::printf("wrote %s (training log %s)\n", o.out.c_str(), o.train_log.c_str());
    return 0;
  }
  if (o.db.empty()) return fail(Status::InvalidArgument("give --db STORE or --train-log FILE"));
  store::OpenOptions open;
  open.read_only = true;  // a report never changes the store, and may run beside a writer
  auto st = store::Store::Open(o.db, open);
  if (!st.ok()) return fail(st.status());
  std::string run_id = o.run;
  if (run_id.empty()) {
    auto runs = st->ListRuns();
    if (!runs.ok()) return fail(runs.status());
    if (runs->empty()) return fail(Status::NotFound(o.db + ": the store holds no run"));
    run_id = runs->back().id;  // the newest
  }
  report::ReportOptions ro;
  ro.metrics.fast_p = o.fast_p;
  ro.metrics.pass_k = o.pass_k;
  ro.metrics.policy =
      o.strict ? metrics::CorrectnessPolicy::kStrict : metrics::CorrectnessPolicy::kStandard;
  ro.implausible_speedup = o.implausible;
  ro.max_sample_rows = o.max_rows;
  auto html = report::RenderReport(*st, run_id, ro);
  if (!html.ok()) return fail(html.status());
  if (auto s = WriteFileAtomic(o.out, *html); !s.ok()) return fail(s);
  std::printf("wrote %s (run %s)\n", o.out.c_str(), run_id.c_str());
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"report", "Render a run of a results store as a self-contained HTML report",
     [](CLI::App& sub) -> tritonrl::cli::CommandAction {
       auto o = std::make_shared<ReportCliOptions>();
       auto* db = sub.add_option("--db", o->db, "Results store (SQLite file)");
       sub.add_option("--train-log", o->train_log,
                      "A trainer's metrics.jsonl: loss, eval loss, lr, grad norm, tokens/s curves")
           ->excludes(db);
       sub.add_option("--run", o->run, "Run id (default: the newest run)");
       sub.add_option("--out", o->out, "Output HTML file")->required();
       sub.add_flag("--strict", o->strict,
                    "Count flagged samples (lazy_optimization, timing_inconsistent, "
                    "implausible_speedup, parent_clock_gap) as not correct");
       sub.add_option("--implausible", o->implausible,
                      "List samples with a speedup above this for review")
           ->check(CLI::PositiveNumber);
       sub.add_option("--fast-p", o->fast_p, "fast_p thresholds")->delimiter(',');
       sub.add_option("--k", o->pass_k, "k values for pass@k")
           ->delimiter(',')
           ->check(CLI::PositiveNumber);
       sub.add_option("--max-rows", o->max_rows, "Rows of the sample table");
       return [o]() { return RunReport(*o); };
     }});

}  // namespace
