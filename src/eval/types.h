// The evaluation engine's shared types: its configuration (EngineConfig), the trial schedule
// (TrialSpec), a task's reference run (ReferenceResult, with its trial and output records) and a
// sample's Verdict with its Reasons. Plain structs, no behaviour: the engine (eval/engine.h), the
// pool, admission, the trial and sandbox checks and the scoring library all speak them, and none
// of those needs the engine's functions to do so. Verdict's JSON: docs/eval.md.
#pragma once

#include <linux/filter.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/compare.h"
#include "eval/process.h"
#include "eval/spill.h"
#include "eval/timing.h"
#include "vocab/verdict_vocab.h"

namespace tritonrl::eval {

// One forward call of the correctness protocol.
struct TrialSpec {
  std::int64_t seed = 0;
  bool train = true;    // nn.Module mode
  bool grad = true;     // torch.set_grad_enabled
  bool secret = false;  // the trial seeded with the run's secret
};

struct ReferenceResult;
class WorkerPool;  // eval/worker_pool.h

struct EngineConfig {
  std::string python;          // the runner's interpreter
  std::string runner_dir;      // folder holding tritonrl_runner/
  std::string allowlist_path;  // src/verify/allowlist.json (aten_ops)
  std::string work_dir;        // private per-worker folders are made (and removed) here
  std::string device = "cpu";  // "cpu" (TRITON_INTERPRET=1, small variant) or "cuda" (all variants)
  std::vector<TrialSpec> schedule;
  // Correctness trials of the "large" variant (0: the whole schedule). Large variants are sized
  // for timing; shipping and hashing GB-sized outputs every trial would dominate a GPU run. The
  // secret trial is always among them.
  int large_variant_trials = 0;
  // A variant whose first trial's outputs reach this many bytes runs the large variant's trials
  // only (KernelBench's default sizes have 6-8 GB outputs under any variant name: five of them
  // spilled per task filled the disk). The reference decides after its first trial and says so;
  // the candidate runs what the reference ran. 0: off.
  std::uint64_t large_output_bytes = 0;
  // Variants the reference runs, of those a task has; empty or none present: the device's
  // default. The candidate runs the reference's list.
  std::vector<std::string> variants;
  std::int64_t init_seed = 42;  // torch seed before Model(...) and ModelNew(...)
  SandboxOptions sandbox;
  std::vector<sock_filter> seccomp_program;  // BuildSeccompProgram(sandbox.forbid_fork)
  int malloc_perturb = 1;  // glibc M_PERTURB byte for candidates (fresh malloc memory reads 0xFE..)
  std::chrono::milliseconds startup_timeout{120000};  // interpreter start, torch import, task load
  std::chrono::milliseconds import_timeout{120000};   // candidate import
  std::chrono::milliseconds build_timeout{60000};     // ModelNew(...) per variant
  std::chrono::milliseconds trial_timeout{120000};    // one forward call, incl. first-call compile
  // A candidate's import, build or trial that shows no progress (no frame, no Triton compile in
  // flight) for this long, or 20x the reference's forward time or 2x its worker's run if longer
  // (IdleLimit, worker_driver.cpp), times out before the stage limit: a hung sample must not hold
  // a GRPO step for two minutes. 0: off (the CPU interpreter reports no compiles, and its trials
  // are slow).
  std::chrono::milliseconds trial_idle_timeout{0};
  std::vector<std::string> extra_env;  // passed through ("KEY=VALUE")
  TimingOptions timing;                // the timing stage (src/eval/timing.h); off on the CPU
  std::string device_model;            // nvidia-smi name: roofline peaks
  bool keep_work = false;              // keep worker folders (debugging)
  // A candidate is stopped at its first failure: after a trial header that failed (its outputs
  // are not read) or after the trial whose outputs failed. The verdict is settled, and the rest
  // of a KernelBench-sized task would ship gigabytes for nothing. true: every trial runs and is
  // compared (diagnostics: all the trials' reasons).
  bool all_trials = false;
  // Workers forked from a zygote that imported torch and triton once (SpawnWorker, process.h);
  // false: a fresh interpreter per worker. Same sandbox either way; verdicts say which in
  // sandbox.spawn.
  bool warm_workers = true;
  // Pre-started workers (eval/worker_pool.h): RunPool keeps this many workers spawned, sandboxed
  // and (GPU) with their CUDA context made ahead of their samples; -1: one per pool thread; 0:
  // off. Bounded by the threads and the memory budgets (WorkerPool::ReadyCount). Verdicts say
  // "+prestarted" in sandbox.spawn.
  int prestart_workers = -1;
  // Where RunReference and RunCandidate take a pre-started worker from. Null: RunPool makes one
  // for its run (per prestart_workers) and drains it at the run's end. Set by the caller: a pool
  // that outlives the run (the scorer's kept idle workers, ScoringConfig::keep_idle_workers);
  // RunPool takes from it, counts its idle workers off the budgets and leaves it undrained.
  std::shared_ptr<WorkerPool> worker_pool;
  // "ours" (the task's tolerance, allclose and relative L2), "kernelbench" (KernelBench's harness:
  // 1e-4 fp32, 1e-2 fp16/bf16, allclose alone) or "kernelbench-v0" (1e-2, allclose alone); the
  // reference worker resolves it (taskmod.tolerance), docs/tasks.md compares them.
  std::string tolerance_policy = "ours";
  // Free space left on work_dir's file system when reference outputs are spilled there; a
  // reference that would need more fails its task's samples with resource_exhausted.
  std::uint64_t spill_reserve_bytes = 1ull << 30;
  // The run's own quota of spilled bytes over all references at once (limit 0: none); null:
  // none. Shared by the copies of this config.
  std::shared_ptr<SpillBudget> spill_budget;
  // The memory tier in front of the disk (SpillFile): the bytes of reference outputs held in
  // anonymous memory at once, and the MemAvailable that must remain. Null or limit 0: disk only.
  // Admission control's default host budget leaves this limit out.
  std::shared_ptr<SpillBudget> memory_spill_budget;
  // Admission control (src/eval/admission.h): the host and device memory the pool's workers may
  // hold at once. 0: MemAvailable (host) and nvidia-smi's free memory (device, CUDA runs) read at
  // the pool's start. A sample whose estimate exceeds a budget gets resource_exhausted.
  std::uint64_t host_memory_budget = 0;
  std::uint64_t device_memory_budget = 0;
  // The reference timing cache across runs (the CLI keeps it in the results store). With a hit
  // the reference worker only re-checks; both may be empty. Called from pool threads.
  std::function<std::optional<TimingPhase>(const std::string& task_path)> cached_reference_timing;
  std::function<void(const std::string& task_path, const TimingPhase&)> store_reference_timing;
  // References kept across pool runs (the scoring library keeps recent ones per task file): a
  // kept one serves its task's samples with the seeds it ran with. Both may be empty; called
  // from pool threads.
  std::function<std::shared_ptr<const ReferenceResult>(const std::string& task_path)>
      reuse_reference;
  std::function<void(const std::string& task_path, std::shared_ptr<const ReferenceResult>)>
      keep_reference;
  // Drops the kept references that hold spilled outputs (their disk space is freed once no run
  // uses them): asked before a reference that ran out of spill space runs again. May be empty.
  std::function<void()> drop_kept_spills;
  // Concurrent runs of one scorer share a reference in flight: claim_reference is asked before
  // this run computes a task's reference (false: another run computes it now; its samples wait for
  // reuse_reference to find it kept) and release_reference after it is kept or failed. Both may
  // be empty; called from pool threads.
  std::function<bool(const std::string& task_path)> claim_reference;
  std::function<void(const std::string& task_path)> release_reference;
};

// A reference output: its description, and where its bytes lie in the reference's spill file
// (src/eval/spill.h). Outputs are never held whole in memory.
struct OutputRecord {
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  std::string device;
  std::int64_t nbytes = 0;
  std::int64_t spill_offset = 0;
  // Row-major in its storage (torch's is_contiguous): the bytes the worker sends are then the
  // storage's own, in place; otherwise the worker's .contiguous() rearranged them.
  bool contiguous = true;
};

struct TrialRecord {
  std::string variant;
  int index = 0;
  std::int64_t seed = 0;
  std::string input_sha256;
  std::int64_t input_bytes = 0;  // the trial's input tensors (admission estimates)
  std::vector<OutputRecord> outputs;
};

struct Reason {
  std::string stage;  // static, reference, startup, import, build, correctness, sandbox
  std::string code;   // stable id, e.g. not_allclose, no_triton_launch, signal
  std::string message;
};

// The reference run of one task (computed once per run and task).
struct ReferenceResult {
  bool ok = false;
  Reason error;  // when !ok
  // When !ok: the worker ran out of GPU memory (reason out_of_memory), which other workers on the
  // same GPU may have caused (the pool runs it again with room for oom_device_bytes, then alone).
  bool out_of_memory = false;
  // With out_of_memory: what the worker held plus what it asked for when it ran out, from torch's
  // message (DeviceBytesAtOom); 0 when the message did not say.
  std::uint64_t oom_device_bytes = 0;
  // How the pool ran it again after running out of GPU memory, in order (evidence.pool).
  std::vector<std::string> oom_reruns;
  // When !ok: the spill file's disk ran short (resource_exhausted), which other references
  // spilling at the same time may have caused (RunPool waits for their spills, then retries).
  bool out_of_space = false;
  std::vector<std::string> variants;
  Tolerance tolerance;
  std::string dtype;
  std::vector<TrialRecord> trials;   // variants x schedule, in order
  std::shared_ptr<SpillFile> spill;  // the trials' output bytes
  // The largest trial's input and output bytes: what a candidate's worker will hold at once.
  std::int64_t max_input_bytes = 0, max_output_bytes = 0;
  // CUDA: the most device memory torch's allocator had reserved in the reference's worker by the
  // end of a trial (0: not reported). Candidates' admission estimates start from it.
  std::int64_t peak_device_bytes = 0;
  double ms = 0;
  std::map<std::string, double> phase_ms;  // WorkerRun::phase_ms of the reference's worker
  SandboxReport sandbox;
  std::optional<TimingPhase> timing;  // the reference timed by the same protocol
  std::string timing_error;
  // Null models (zeros, the mean, an input passed through: taskmod.null_models_passing) that
  // passed the trusted check against the reference's outputs on every trial of this run: such a
  // task cannot certify correctness, and its correct samples get the flag weak_task.
  std::vector<std::string> null_models_passed;
  // The run's secrets the reference ran with (EngineConfig::schedule, init_seed and the timing
  // plan): its task's candidates run with the same ones (CandidateConfig), which lets a kept
  // reference serve a later run. An empty schedule: the candidate's run's own.
  std::vector<TrialSpec> schedule;
  std::int64_t init_seed = 0;
  TimingOptions timing_plan;
};

struct Verdict {
  std::string sample;
  std::string task;
  // Written as vocab::OutcomeName(outcome) (src/vocab/verdict_vocab.h, docs/eval.md). Every path
  // of the engine and the scorer sets it; the default is a failure, never correct.
  vocab::Outcome outcome = vocab::Outcome::kRuntimeError;
  std::vector<Reason> reasons;
  std::vector<std::string> flags;
  nlohmann::json sandbox = nlohmann::json::object();
  nlohmann::json timings_ms = nlohmann::json::object();
  nlohmann::json evidence = nlohmann::json::object();
  std::optional<double> speedup;  // reference / candidate time; null when not timed
  std::string device;
  bool provisional = false;    // CPU verdicts: the GPU verdict is the one that counts
  bool infra_failure = false;  // the harness, not the sample, failed: never cached
  bool from_cache = false;
  bool syntax_ok = true;
  bool functionality_ok = true;
  bool compiled = false;  // the candidate imported, built and ran at least one forward
  double wall_ms = 0;
  nlohmann::json ToJson() const;
};

}  // namespace tritonrl::eval
