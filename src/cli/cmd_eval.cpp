// tritonrl eval: score a sample file against a task suite. The flags, the sample file's lines
// (FILE:LINE errors), the shard, and the printing: a table, one JSON document (--json) or one
// verdict per line as each completes (--jsonl). The pipeline itself is src/scoring.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "cli/command.h"
#include "cli/metrics_json.h"
#include "cli/scoring_progress.h"
#include "metrics/metrics.h"
#include "report/report.h"
#include "scoring/score_batch.h"
#include "store/store.h"
#include "vocab/verdict_vocab.h"

namespace {

namespace fs = std::filesystem;
namespace sc = tritonrl::scoring;
using nlohmann::json;

// The scoring configuration itself, bound flag by flag (as `train` binds its options), and
// what the command does around it: the sample file, the shard and the outputs.
struct Options {
  sc::ScoringConfig scoring;
  std::string samples, report, shard = "0/1", run_id, jsonl;
  bool json_out = false;
};

struct Line {
  int line = 0;
  sc::Sample sample;
};

[[noreturn]] void Fail(const std::string& message) {
  throw std::runtime_error(message);
}

std::vector<Line> ReadSamples(const std::string& path, const sc::Scorer& scorer) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(fmt::format("{}: cannot open the sample file", path));
  std::vector<Line> out;
  std::set<std::pair<std::string, std::string>> seen;
  std::string text;
  int n = 0;
  while (std::getline(in, text)) {
    ++n;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      Fail(fmt::format("{}:{}: not a JSON object (truncated line?)", path, n));
    Line l;
    l.line = n;
    if (!j.contains("task") || !j["task"].is_string())
      Fail(fmt::format("{}:{}: missing string field \"task\"", path, n));
    l.sample.task = j["task"].get<std::string>();
    if (j.contains("sample")) {
      l.sample.id = j["sample"].is_string() ? j["sample"].get<std::string>() : j["sample"].dump();
    } else {
      l.sample.id = fmt::format("line{}", n);
    }
    if (j.contains("code") && j["code"].is_string()) {
      l.sample.text = j["code"].get<std::string>();
      l.sample.kind = sc::TextKind::kCode;
    } else if (j.contains("output") && j["output"].is_string()) {
      l.sample.text = j["output"].get<std::string>();
      l.sample.kind = sc::TextKind::kOutput;
    } else {
      Fail(fmt::format("{}:{}: needs a string field \"output\" or \"code\"", path, n));
    }
    if (auto s = scorer.CheckTask(l.sample.task); !s.ok())
      Fail(fmt::format("{}:{}: {}", path, n, s.message()));
    if (!seen.insert({l.sample.task, l.sample.id}).second) {
      Fail(fmt::format("{}:{}: duplicate sample \"{}\" for task {}", path, n, l.sample.id,
                       l.sample.task));
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::pair<int, int> ParseShard(const std::string& s) {
  int i = 0, n = 0;
  char slash = 0;
  std::istringstream in(s);
  if (!(in >> i >> slash >> n) || slash != '/' || n < 1 || i < 0 || i >= n || !in.eof()) {
    Fail(fmt::format("--shard {}: expected i/n with 0 <= i < n", s));
  }
  return {i, n};
}

// --jsonl: one verdict per line, appended and flushed to the disk as each completes, so a
// killed run keeps every verdict it reported. Rewritten from the store's verdicts on resume.
class JsonlSink {
 public:
  explicit JsonlSink(const std::string& path) : path_(path) {
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_) Fail(fmt::format("{}: cannot open for writing", path));
  }
  ~JsonlSink() {
    if (f_) std::fclose(f_);
  }
  JsonlSink(const JsonlSink&) = delete;
  JsonlSink& operator=(const JsonlSink&) = delete;
  // Called on the scorer's threads one at a time.
  void Write(const json& verdict) {
    if (!error_.empty()) return;
    const std::string line = verdict.dump() + "\n";
    if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0 ||
        fdatasync(fileno(f_)) != 0)
      error_ = fmt::format("{}: write failed", path_);
  }
  void Close() {
    if (f_ && std::fclose(f_) != 0 && error_.empty())
      error_ = fmt::format("{}: close failed", path_);
    f_ = nullptr;
    if (!error_.empty()) Fail(error_);
  }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  std::string error_;
};

// The outcome and flag counts and the metrics per level, as a table on stdout.
void PrintTable(const sc::RunSummary& summary, const std::string& run_id, const std::string& db,
                const std::string& device) {
  const auto& metrics = summary.metrics;
  // Flags mark verdicts to review (a suspect speedup, a verdict near its tolerance, ...).
  std::map<tritonrl::vocab::Outcome, int> counts;
  std::map<std::string, int> flags;
  for (const auto& s : summary.samples) {
    ++counts[s.outcome];
    for (const auto& f : s.flags) ++flags[f];
  }
  fmt::print("\n{:<22} {:>7}\n", "outcome", "samples");
  for (const auto outcome : tritonrl::vocab::kAllOutcomes)
    fmt::print("{:<22} {:>7}\n", tritonrl::vocab::OutcomeName(outcome), counts[outcome]);
  if (!flags.empty()) {
    fmt::print("\n{:<22} {:>7}\n", "flag", "samples");
    for (const auto& [flag, n] : flags) fmt::print("{:<22} {:>7}\n", flag, n);
  }
  fmt::print("\n{:<8} {:>7} {:>7} {:>9} {:>8} {:>7} {:>8}\n", "group", "samples", "valid",
             "compiled", "correct", "fast_1", "geomean");
  auto row = [](const tritonrl::metrics::GroupMetrics& g) {
    // n/a where correct samples exist but none was timed (tritonrl::metrics::SpeedKnown).
    const std::optional<double> fast1 =
        g.fast_p.empty() ? std::optional(0.0) : g.fast_p.front().rate;
    fmt::print("{:<8} {:>7} {:>6.1f}% {:>8.1f}% {:>7.1f}% {:>7} {:>8}\n", g.name, g.samples,
               100 * g.valid_rate, 100 * g.compiled_rate, 100 * g.correct_rate,
               fast1 ? fmt::format("{:.1f}%", 100 * *fast1) : "n/a",
               g.geomean_speedup ? fmt::format("{:.2f}x", *g.geomean_speedup) : "-");
  };
  for (const auto& g : metrics.levels) row(g);
  row(metrics.overall);
  if (metrics.overall.failed_tasks > 0)
    fmt::print("tasks whose reference failed: {} ({} samples, in no figure above)\n",
               metrics.overall.failed_tasks, metrics.overall.failed_task_samples);
  fmt::print(
      "\nrun {} ({} samples) in {}{}\n", run_id, summary.samples.size(), db,
      device == "cpu" ? "; CPU verdicts are provisional on precision, the GPU verdict counts" : "");
}

// Without --db, the results database is this process's own (no resume): removed when the
// command ends, also when it fails (Fail throws), unless --keep-work asks to keep everything.
struct TemporaryDb {
  std::string path;  // empty: the user's --db, never removed
  bool keep = false;
  TemporaryDb() = default;
  TemporaryDb(const TemporaryDb&) = delete;
  TemporaryDb& operator=(const TemporaryDb&) = delete;
  ~TemporaryDb() {
    if (path.empty() || keep) return;
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
  }
};

int RunEval(const Options& o) {
  const auto [shard_i, shard_n] = ParseShard(o.shard);
  sc::ScoringConfig config = o.scoring;
  TemporaryDb temporary_db;
  if (config.db.empty()) {
    config.db =
        (fs::path(tritonrl::TempFolder()) / fmt::format("tritonrl-eval-{}-results.db", getpid()))
            .string();
    temporary_db.path = config.db;
    temporary_db.keep = o.scoring.keep_work;
  }
  auto scorer = sc::Scorer::Open(config);
  if (!scorer.ok()) Fail(scorer.status().message());
  const std::vector<Line> lines = ReadSamples(o.samples, **scorer);
  std::vector<sc::Sample> mine;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(shard_n)) == shard_i)
      mine.push_back(lines[i].sample);
  }
  auto sample_bytes = tritonrl::ReadFile(o.samples);
  if (!sample_bytes.ok()) Fail(sample_bytes.status().message());
  sc::BatchOptions batch;
  batch.run_id = o.run_id;
  batch.sample_file = o.samples;
  batch.sample_file_hash = tritonrl::Sha256Hex(*sample_bytes);
  batch.shard = o.shard;

  std::unique_ptr<JsonlSink> jsonl;
  if (!o.jsonl.empty()) jsonl = std::make_unique<JsonlSink>(o.jsonl);
  tritonrl::cli::ScoringProgress progress;
  sc::Callbacks callbacks;
  callbacks.on_note = [](const std::string& line) { fmt::print(stderr, "eval: {}\n", line); };
  callbacks.on_verdict = [&](const sc::ScoredSample& s, std::size_t done, std::size_t total) {
    if (jsonl) jsonl->Write(sc::ToJson(s));
    progress.OnVerdict(s, done, total);
  };
  const sc::ScoringConfig& cfg = (*scorer)->config();
  fmt::print(stderr, "eval: {} samples on {} ({}), {} jobs, {} trials{}\n", mine.size(),
             (*scorer)->device(), (*scorer)->device_model(), cfg.jobs, cfg.trials,
             cfg.sandbox ? "" : ", no sandbox (test only)");
  auto result = (*scorer)->Score(mine, batch, callbacks);
  progress.Finish();
  if (!result.ok()) Fail(result.status().message());
  if (jsonl) jsonl->Close();
  if (result->sandbox != "not started")
    fmt::print(stderr, "eval: run {}, sandbox {}\n", result->run_id, result->sandbox);

  // Everything of this run (also what a resumed run had done before).
  auto summary = (*scorer)->LoadRun(result->run_id);
  if (!summary.ok()) Fail(summary.status().message());
  const auto& metrics = summary->metrics;
  if (!o.report.empty()) {
    tritonrl::store::OpenOptions open;
    open.create = false;
    auto store = tritonrl::store::Store::Open(cfg.db, open);
    if (!store.ok()) Fail(store.status().message());
    auto html = tritonrl::report::RenderReport(*store, result->run_id);
    if (!html.ok()) Fail(html.status().message());
    if (auto s = tritonrl::WriteFileAtomic(o.report, *html); !s.ok()) Fail(s.message());
  }
  const std::string& device = (*scorer)->device();
  if (o.json_out) {
    json doc = {{"run_id", result->run_id},
                {"device", device},
                {"device_model", (*scorer)->device_model()},
                {"trials", cfg.trials},
                {"resumed_samples", result->resumed}};  // already done by this run before this call
    json levels = json::array();
    for (const auto& g : metrics.levels) levels.push_back(tritonrl::cli::MetricsJson(g));
    doc["summary"] = {{"overall", tritonrl::cli::MetricsJson(metrics.overall)}, {"levels", levels}};
    json samples = json::array();
    for (const auto& s : summary->samples) samples.push_back(sc::ToJson(s));
    doc["samples"] = samples;
    fmt::print("{}\n", doc.dump(2));
  } else {
    PrintTable(*summary, result->run_id,
               temporary_db.path.empty() || temporary_db.keep
                   ? cfg.db
                   : "a temporary database, removed at exit (--db keeps one)",
               device);
    if (!o.report.empty()) fmt::print("report: {}\n", o.report);
  }
  scorer->reset();  // removes its work files
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"eval", "evaluate a sample file (JSONL) against a task suite in sandboxed workers",
     [](CLI::App& sub) {
       auto o = std::make_shared<Options>();
       sub.add_option("--tasks", o->scoring.tasks, "task suite folder (levelN/*.py)")->required();
       sub.add_option("--samples", o->samples, "JSONL: {task, sample, output|code} per line")
           ->required();
       sub.add_option("--db", o->scoring.db, "results database (SQLite); default: a temporary one");
       sub.add_option("--device", o->scoring.device,
                      "auto, cpu (Triton interpreter, small variant) or cuda");
       sub.add_option("--jobs", o->scoring.jobs, "samples evaluated in parallel");
       sub.add_option("--trials", o->scoring.trials, "correctness trials per variant (at least 5)");
       sub.add_option("--large-trials", o->scoring.large_trials,
                      "correctness trials of the 'large' variant, the secret one included "
                      "(default 2; large variants are sized for timing)");
       sub.add_option(
           "--large-output-mb", o->scoring.large_output_mb,
           "a variant whose first trial's outputs reach this many MiB runs only "
           "--large-trials trials (default 1024, e.g. KernelBench's default sizes; 0: off)");
       sub.add_option("--variants", o->scoring.variants,
                      "comma-separated variants to run, of those each task has (e.g. medium); "
                      "a task with none of them runs the default (cpu: small, cuda: all)")
           ->delimiter(',');
       sub.add_flag("--json", o->json_out,
                    "print one JSON document (metrics and per-sample verdicts)");
       sub.add_option("--jsonl", o->jsonl,
                      "write each verdict as one JSON line as soon as it is stored (flushed to "
                      "the disk; rewritten from the store when a run resumes)");
       sub.add_option("--report", o->report, "write a self-contained HTML report");
       sub.add_flag(
           "--no-cache", [o](std::int64_t) { o->scoring.use_cache = false; },
           "re-evaluate everything (a fresh run, no cached verdicts)");
       sub.add_option("--shard", o->shard,
                      "evaluate only lines with index % n == i (i/n); merge with tritonrl merge");
       sub.add_option("--run-id", o->run_id,
                      "run id (default: derived from the samples and the config)");
       sub.add_option("--policy", o->scoring.policy,
                      "standard or strict (static verifier; strict also fails lazy_optimization)");
       sub.add_option("--timing-trials", o->scoring.timing_trials,
                      "timed calls per sample on the GPU (default 100)");
       sub.add_option("--timing-cover-us", o->scoring.timing_cover_us,
                      "device busy-wait ahead of each timed call, long enough for the host to "
                      "queue the call, so that the events time device work (default 1000)");
       sub.add_option("--baseline", o->scoring.baseline,
                      "how the reference is timed: eager (default) or compile");
       sub.add_option("--lazy-threshold", o->scoring.lazy_threshold,
                      "minimal share of GPU time in the candidate's own kernels (default 0.8)");
       sub.add_option(
           "--speedup-cap", o->scoring.speedup_cap,
           "speedups above this are flagged implausible_speedup where no roofline applies (10)");
       sub.add_option("--slow-factor", o->scoring.slow_factor,
                      "a candidate's timed phase may last this many times the reference's "
                      "(default 50); a slower correct sample is stopped, flagged "
                      "slow_over_budget and given an upper-bound speedup");
       sub.add_option("--slow-floor", o->scoring.slow_floor_s,
                      "seconds a candidate's timed phase may always last (default 10)");
       sub.add_flag("--no-timing", o->scoring.no_timing,
                    "skip the timing stage on the GPU (correctness only; speedup null)");
       sub.add_flag("--cpu-timing", o->scoring.cpu_timing,
                    "TEST ONLY: run the timing stage on the CPU (host clock; numbers meaningless)");
       sub.add_option("--stage-timeout", o->scoring.stage_timeout_s,
                      "seconds allowed per import, build and trial stage");
       sub.add_option("--idle-timeout", o->scoring.idle_timeout_s,
                      "GPU: seconds a candidate's stage may pass with no progress and no Triton "
                      "compile before it times out (default 30; 0: off)");
       sub.add_option("--python", o->scoring.python,
                      "the runner's interpreter (default: $TRITONRL_PYTHON, .venv, python3)");
       sub.add_option("--runner", o->scoring.runner, "folder holding tritonrl_runner/");
       sub.add_option("--work-dir", o->scoring.work_dir,
                      "folder for the workers' private folders and the reference outputs spilled "
                      "to disk (put it on a disk, not a tmpfs)");
       sub.add_option("--memory-budget-mb", o->scoring.memory_budget_mb,
                      "host memory the workers may hold at once (admission control; default: 90% "
                      "of MemAvailable at start); a sample that cannot fit is resource_exhausted");
       sub.add_option("--device-memory-budget-mb", o->scoring.device_memory_budget_mb,
                      "the same for GPU memory (default: 90% of nvidia-smi's free memory)");
       sub.add_option("--spill-budget-mb", o->scoring.spill_budget_mb,
                      "disk space the spilled reference outputs may take at once (default: the "
                      "work folder's free space less 1 GiB); a reference that runs out waits for "
                      "others' to be freed, then runs again");
       sub.add_option("--spill-memory-mb", o->scoring.spill_memory_mb,
                      "reference output bytes held in anonymous memory before the disk (default "
                      "-1: a third of MemAvailable at start, taken out of --memory-budget-mb's "
                      "default; 0: disk only)")
           ->check(CLI::Range(std::int64_t{-1}, std::int64_t{1} << 40));
       sub.add_flag("--keep-work", o->scoring.keep_work,
                    "keep the workers' folders and logs (debugging)");
       sub.add_flag("--autotriton-check", o->scoring.autotriton_check,
                    "also give AutoTriton's reward inputs (evidence.autotriton: its @triton.jit "
                    "rule and whether the outputs matched on every trial, proof of work aside); "
                    "code our verifier rejects runs too if it parses");
       sub.add_flag("--all-trials", o->scoring.all_trials,
                    "run a candidate's remaining trials after one has failed (default: stop "
                    "there; the verdict is settled) to see every trial's reasons");
       sub.add_flag(
           "--no-static", [o](std::int64_t) { o->scoring.static_stage = false; },
           "TEST ONLY: skip the static verifier (fault-injection candidates would be "
           "rejected by it)");
       sub.add_flag(
           "--no-sandbox", [o](std::int64_t) { o->scoring.sandbox = false; },
           "TEST ONLY: run workers without rlimits, namespaces or seccomp");
       sub.add_option("--tolerance", o->scoring.tolerance,
                      "the correctness rule: ours (the task's ATOL/RTOL, allclose and relative "
                      "L2), kernelbench (KernelBench's harness: 1e-4 fp32, 1e-2 fp16/bf16, "
                      "allclose alone) or kernelbench-v0 (1e-2, allclose alone); docs/tasks.md")
           ->check(CLI::IsMember({"ours", "kernelbench", "kernelbench-v0"}));
       sub.add_flag("--quiet-timing", o->scoring.quiet_timing,
                    "hold other candidates' trials back while a sample is timed, so that no "
                    "correctness work of this run shares the GPU with a timed phase (slower; "
                    "docs/measurement.md, \"Quiet timing\")");
       sub.add_flag("--cold-workers", o->scoring.cold_workers,
                    "start every worker as a fresh interpreter (exec) instead of forking it from "
                    "the warm zygote (same sandbox; slower start)");
       sub.add_option(
              "--prestart-workers", o->scoring.prestart_workers,
              "workers started ahead of their samples (spawned, sandboxed and, on the GPU, with "
              "their CUDA context made; each runs one sample): -1 one per job, 0 off; "
              "docs/eval.md, \"Pre-started workers\"")
           ->capture_default_str();
       return [o]() -> int {
         try {
           return RunEval(*o);
         } catch (const std::runtime_error& e) {
           fmt::print(stderr, "tritonrl eval: {}\n", e.what());
           return 2;
         }
       };
     }});

}  // namespace
