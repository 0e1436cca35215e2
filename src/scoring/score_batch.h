// Scoring: a batch of model outputs in, verdicts out. One call runs the whole
// pipeline of docs/scoring.md: the static verifier, the verdict cache, the
// sandboxed engine (src/eval, a fresh worker process per candidate) and the
// results store. The CLI (`tritonrl eval`), the trainers and the server call
// this and nothing below it.
//
// Threading: a Scorer is created once (Open) and shared. Score and LoadRun
// may be called from any number of threads at once: each call
// opens its own store connection, and the worker processes of all calls
// together never exceed ScoringConfig::jobs (calls take turns at task
// granularity; a waiting call starts when slots free up). Callbacks of one call
// run on that call's pool threads, one at a time (never two at once for the same
// call), and must not call back into the same Scorer's Score. A Scorer must
// outlive every call on it.
//
// Durability: every finished verdict is committed to the store (SQLite, WAL,
// fsync per commit) as it completes, before on_verdict learns of it. A process
// killed at any point keeps every verdict it reported; calling Score again with
// the same run id returns the stored ones (ScoredSample::resumed) and evaluates
// only the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "metrics/metrics.h"
#include "vocab/verdict_vocab.h"

namespace tritonrl::task {
struct Suite;  // task/task.h
}  // namespace tritonrl::task

namespace tritonrl::scoring {

// Bumped whenever a change can alter a verdict: cached verdicts of another version never match.
inline constexpr const char* kEvaluatorVersion = "tritonrl-eval/35";

enum class TextKind {
  kOutput,  // a full model output (plan and code); the code is extracted by the verifier
  kCode,    // bare Python code
};

// One model output to score.
struct Sample {
  std::string task;  // task id in the scorer's suite, e.g. "level1/1_ReLU"
  std::string id;    // unique per task within a run (the store's key is run, task, id)
  std::string text;
  TextKind kind = TextKind::kOutput;
};

// Fixed for the lifetime of a Scorer: everything that can change a verdict is here (and in the
// run's config, so the cache and resume see it).
struct ScoringConfig {
  std::string tasks;                // the suite folder (levelN/*.py); only its tasks are scored
  std::string db;                   // the results store (SQLite file, created if missing); required
  std::string device = "auto";      // auto, cpu (Triton interpreter, small variant) or cuda
  std::string policy = "standard";  // static policy: standard or strict (docs/verify.md)
  int jobs = 1;                     // worker processes at once, over all concurrent Score calls
  int trials = 5;                   // correctness trials per variant (at least 5)
  int large_trials = 2;             // correctness trials of the "large" variant
  // A variant whose outputs reach this many MiB runs large_trials trials too (its reference decides
  // on its first trial; EngineConfig::large_output_bytes); 0 = off.
  double large_output_mb = 1024;
  // Variants to run, of those a task has (e.g. {"medium"}); empty, or none of them in a task:
  // the device's default (cpu: small; cuda: all).
  std::vector<std::string> variants;
  // The timing stage (docs/measurement.md); on the GPU unless no_timing.
  int timing_trials = 100;
  // The launch cover ahead of each timed call, in microseconds (eval::TimingOptions::cover_us).
  int timing_cover_us = 1000;
  std::string baseline = "eager";  // eager or compile
  double lazy_threshold = 0.8;
  double speedup_cap = 10.0;
  double slow_factor = 50.0;   // a candidate's timed phase may last this many times the reference's
  double slow_floor_s = 10.0;  // ...and always this long
  bool no_timing = false;
  bool cpu_timing = false;     // TEST ONLY: time on the CPU (numbers meaningless)
  double stage_timeout_s = 0;  // per import, build and trial stage; 0 = the engine's defaults
  // GPU only: a candidate's stage with no frame and no Triton compile for this long times out
  // (EngineConfig::trial_idle_timeout); 0 = off.
  double idle_timeout_s = 30;
  bool use_cache = true;     // reuse verdicts of identical work from any earlier run
  bool static_stage = true;  // false is TEST ONLY (fault injection reaches the runtime)
  bool sandbox = true;       // false is TEST ONLY
  bool keep_work = false;    // keep the workers' folders and logs (debugging)
  bool all_trials = false;   // run a failing candidate's remaining trials (EngineConfig)
  // AutoTriton's reward inputs beside our verdict (the binary ablation arm, docs/rl.md): every
  // trial runs, code our verifier rejects runs too if it parses (the rejection still decides the
  // outcome), and each verdict gets evidence.autotriton {is_triton (the paper's @triton.jit
  // rule, verify/autotriton.h), outputs_match (eval::OutputsMatched)}.
  bool autotriton_check = false;
  bool cold_workers = false;  // a fresh interpreter per worker instead of a fork of the zygote
  // Workers started ahead of their samples (eval::EngineConfig::prestart_workers): -1 one per job,
  // 0 off. Still one fresh process per sample; verdicts say so in sandbox.spawn.
  int prestart_workers = -1;
  // The pre-started workers outlive a Score call: the Scorer keeps prestart_workers of them idle
  // (and refills them) between calls, so they make their CUDA contexts while the caller generates
  // and updates, instead of during the next call (eval/worker_pool.h, "Lifetime"). Between calls
  // each holds a worker's base memory (on the GPU a CUDA context, about 500 MB); off, no worker
  // outlives its call. Never changes a verdict.
  bool keep_idle_workers = false;
  // No other candidate's trial on the GPU while a sample is timed (eval::TimingOptions::quiet;
  // docs/measurement.md "Quiet timing"). Part of the run configuration only when on.
  bool quiet_timing = false;
  // Admission control (eval/admission.h): memory the workers may hold at once; 0 = 90% of what
  // is free at the pool's start.
  std::uint64_t memory_budget_mb = 0, device_memory_budget_mb = 0;
  // Spilled reference outputs held at once on the work folder's disk (0: its free space alone).
  std::uint64_t spill_budget_mb = 0;
  // Spilled reference outputs held in memory before the disk (-1: a third of MemAvailable at
  // start, 0: none); admission control's default budget leaves it out.
  std::int64_t spill_memory_mb = -1;
  // A task's reference run serves later calls for this long (its secret seeds with it: a
  // candidate keeps no state between runs), so a call of a few samples skips it; at most
  // 4 x jobs references (a GRPO run cycles through its tasks) and this many spilled output bytes
  // are kept. 0 s: every call runs its own.
  double reference_keep_s = 900;
  std::uint64_t reference_keep_mb = 8192;
  std::string tolerance = "ours";  // ours | kernelbench | kernelbench-v0 (docs/tasks.md)
  std::string python;              // runner interpreter; default $TRITONRL_PYTHON, .venv, python3
  std::string runner;              // folder holding tritonrl_runner/; default: located
  std::string work_dir;  // the workers' private folders; default $TMPDIR/tritonrl-eval-PID
};

// Per call: which run the verdicts belong to.
struct BatchOptions {
  // Empty: derived from the batch and the config ("eval-<hash>"), so the same batch scored
  // again resumes; with use_cache false, a fresh id every call. An existing id resumes that run
  // (its config must match: FailedPrecondition otherwise).
  std::string run_id;
  std::string sample_file;       // provenance recorded in the run; may be empty
  std::string sample_file_hash;  // SHA-256 of that file; empty: a hash of the batch
  std::string shard = "0/1";     // "i/n" this call scores (recorded; the caller picks the lines)
};

// One verdict with the reward inputs (docs/rl.md) at the top.
struct ScoredSample {
  std::string task;
  std::string id;
  vocab::Outcome outcome = vocab::Outcome::kRuntimeError;
  bool syntax_ok = false;
  bool functionality_ok = false;
  bool valid = false;              // syntax_ok && functionality_ok
  bool compiled = false;           // imported, built and ran at least one forward call
  bool correct = false;            // outcome == correct
  std::optional<double> speedup;   // reference / candidate median time; none if not timed
  std::vector<std::string> flags;  // vocab::flag names
  // AutoTriton's reward inputs (ScoringConfig::autotriton_check; none otherwise): its is_Triton
  // rule, and its "test passed" (the outputs matched on every trial, proof of work aside).
  std::optional<bool> is_triton, outputs_match;
  bool from_cache = false;  // copied from an earlier identical evaluation
  bool resumed = false;     // already in the store for this run before this call
  // The full verdict as stored (reasons, sandbox, timings_ms, evidence, device...).
  nlohmann::json verdict = nlohmann::json::object();
};

// The verdict JSON of `tritonrl eval --json`/`--jsonl` and the server: the stored verdict with
// task, sample, outcome and the reward inputs (syntax_ok, functionality_ok, valid, compiled,
// correct, speedup, flags) set from the fields above. `tritonrl advantages` reads it as is.
nlohmann::json ToJson(const ScoredSample& s);

// A verdict as the metrics count it (metrics/metrics.h); `level` groups it (0: overall only).
metrics::SampleResult MetricsInput(const ScoredSample& s, int level = 0);

// A call's progress and control. Both optional.
struct Callbacks {
  // Once per sample of the batch: first every verdict this run already had in the store
  // (ScoredSample::resumed, before anything runs), then each new verdict once it is committed
  // to the store. `done` of `total` (the batch size) are finished.
  std::function<void(const ScoredSample& s, std::size_t done, std::size_t total)> on_verdict;
  // Polled before each sample is handed to a worker; true stops the call once the samples in
  // flight are done (their verdicts are kept). Samples not started get no verdict and
  // BatchResult::cancelled is set.
  std::function<bool()> cancelled;
  // Human-readable notes (sandbox level reached, degradations, resume counts); default: none.
  std::function<void(const std::string& line)> on_note;
};

struct BatchResult {
  std::string run_id;
  // Verdicts in the batch's order; on cancellation only the finished ones (still in order).
  std::vector<ScoredSample> samples;
  std::size_t resumed = 0;     // taken from the store for this run
  std::size_t from_cache = 0;  // copied from earlier identical work
  std::size_t evaluated = 0;   // ran through the static stage or the engine in this call
  bool cancelled = false;
  std::string sandbox;  // "full", "no-seccomp"..., "off" or "not started" (nothing ran)
};

// A run as stored: every verdict (sorted by task, sample) and its metrics.
struct RunSummary {
  std::string run_id;
  std::vector<ScoredSample> samples;
  metrics::Metrics metrics;
};

// What Scorer::WarmReferences did: of `tasks`, references computed now, found kept already, and
// failed; the seconds it took.
struct WarmResult {
  std::int64_t tasks = 0, computed = 0, kept_already = 0, failed = 0;
  double seconds = 0;
};

class Scorer {
 public:
  // Validates the config, loads the suite, finds the runner and its interpreter, opens (creates)
  // the store, prepares the sandbox filter. Errors are InvalidArgument (config), NotFound
  // (suite, runner) or the store's. The sandbox probe runs at the first call that needs a worker.
  static Result<std::unique_ptr<Scorer>> Open(const ScoringConfig& config);
  ~Scorer();  // removes the private work files unless keep_work
  Scorer(const Scorer&) = delete;
  Scorer& operator=(const Scorer&) = delete;

  // Ok if `task_id` is a task of the suite; NotFound naming the suite (and the file's load
  // error, if a file of that name failed to load) otherwise. Callers that read samples from a
  // file check each line with it to name FILE:LINE.
  Status CheckTask(const std::string& task_id) const;

  // Scores `batch`. Bad input (an unknown task id, a duplicate (task, id), an empty id) fails
  // the whole call before anything runs, naming the sample by its index and id. A store error
  // during the call is returned after the samples in flight finish; verdicts committed before it
  // stay in the store.
  Result<BatchResult> Score(const std::vector<Sample>& batch, const BatchOptions& options = {},
                            const Callbacks& callbacks = {});

  // Computes and keeps the references of `task_ids` (kept references, docs/scoring.md), so that
  // later calls on those tasks skip them: a fixed RL pool's references before GRPO's first step,
  // run beside the policy's loading and first generation. Runs no candidate and stores no
  // verdict; tasks already kept cost nothing, and a Score call meeting a reference in flight
  // waits for it rather than running its own. InvalidArgument when references are not kept
  // (reference_keep_s 0) or an id is given twice; NotFound for an unknown task, before anything
  // runs. A failed reference is counted, not an error: the task's samples run it again and say
  // why. `cancelled` (Callbacks) stops taking tasks.
  Result<WarmResult> WarmReferences(const std::vector<std::string>& task_ids,
                                    const Callbacks& callbacks = {});

  // Everything stored for `run_id` (also verdicts of earlier, killed or resumed calls), with
  // the metrics under the given options. NotFound if the run does not exist.
  Result<RunSummary> LoadRun(const std::string& run_id,
                             const metrics::MetricsOptions& options = {});

  const ScoringConfig& config() const;
  // The suite loaded by Open (the tasks a batch may name); the server resolves ids in it.
  const task::Suite& suite() const;
  const std::string& device() const;        // "cpu" or "cuda" (auto resolved)
  const std::string& device_model() const;  // e.g. "NVIDIA H200" or "cpu"
  // The run configuration as recorded in the store (what the cache key and run id hash).
  const nlohmann::json& run_config() const;

 private:
  struct Impl;
  explicit Scorer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tritonrl::scoring
