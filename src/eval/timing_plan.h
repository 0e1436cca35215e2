// The timing stage's plan (docs/measurement.md): what the engine asks of the stage, the secret
// seeds and re-checked calls drawn per run, and what a worker learns of them and when.
// The rule: no worker learns a timed call's seed before that call, nor whether a call is
// re-checked (and where) before it returned; every timed position is a model call, so nothing
// a worker is sent distinguishes one timed call from another. The reference worker, when its
// timings come from the cache, gets the whole plan at once (it only re-checks).
// Pure functions of the options; callable from any thread; nothing survives a crash.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tritonrl::eval {

// What the engine asks of the timing stage (the request's "timing" object).
struct TimingOptions {
  bool enabled = false;     // GPU runs (or --cpu-timing, a test-only switch)
  int trials = 100;         // timed calls
  int warmup = 5;           // untimed calls first (covers autotuning)
  int recheck = 10;         // timed calls whose outputs are re-checked
  int sample_count = 4096;  // output positions compared per re-check
  int profile_calls = 3;    // calls under torch.profiler
  // The launch cover (docs/measurement.md, "The device clock"): a device busy-wait of this many
  // microseconds ahead of each timed call's flush, the same for the reference and the candidate.
  // While it runs the host queues the whole call, so the CUDA events time the call's device work
  // alone, without the host's launch code and the audit that runs in a candidate's calls (0.34 ms
  // of a 0.36 ms span on launch-bound kernels, bench/RESULTS.md, OWED row 9). One value for both
  // sides keeps the parent clock exact: each span holds the same cover. 1 ms covers every audited
  // call of row 9's 64 synthetic tasks (at most 0.64 ms of audit); a call whose host side takes
  // longer is timed with its excess, as before.
  int cover_us = 1000;
  std::string baseline = "eager";  // eager | compile: how the reference is timed
  double lazy_threshold = 0.8;     // minimal share of GPU time in the candidate's kernels
  double speedup_cap = 10.0;       // plausibility bound where no roofline is known
  bool strict = false;             // strict policy: lazy_optimization is not correct
  std::string lock_dir;  // where the per-GPU lock files live ("" = $TRITONRL_LOCK_DIR or /tmp)
  std::string device_key = "gpu0";  // one lease per key (the GPU the workers use)
  // No candidate trial of this process on the GPU while a sample is timed (timing_lease.h;
  // docs/measurement.md "Quiet timing").
  bool quiet = false;
  std::chrono::milliseconds timeout{600000};  // the whole timed phase
  // A candidate may hold the lease for slow_factor x the reference's timed phase (engine clock),
  // and at least slow_floor: a correct kernel slower than that is stopped, and its speedup is
  // reported as an upper bound (CandidateTimingBudget).
  double slow_factor = 50.0;
  std::chrono::milliseconds slow_floor{10000};
  // Drawn per run: the timed calls' seeds, the base input seed, the re-checked calls, the seeds
  // of their sampled positions (one per call) and the warm-up calls' seeds.
  std::vector<std::int64_t> seeds;
  std::int64_t input_seed = 0;
  std::vector<int> recheck_indices;
  std::vector<std::int64_t> sample_seeds;
  std::vector<std::int64_t> warmup_seeds;
};

// Seeds and re-checked calls for one run, from a secret (the engine's CSPRNG).
void DrawTimingPlan(TimingOptions& options, std::uint64_t secret);
// Sets `to`'s drawn fields (those DrawTimingPlan sets) to `from`'s: a candidate is timed with the
// plan its reference was timed with, whichever run drew it.
void CopyDrawnPlan(const TimingOptions& from, TimingOptions& to);

// Which variant is timed: "large" if the task has it, else the last one.
std::string TimedVariant(const std::vector<std::string>& variants);

// The request's "timing" object.
nlohmann::json TimingRequest(const TimingOptions& options, const std::string& variant);

// The number of timed calls in the plan.
int TimedCalls(const TimingOptions& options);

// The "plan" of a "go" frame that re-checks only (a reference whose timings are cached):
// everything at once (the reference runs no candidate code).
nlohmann::json TimingPlan(const TimingOptions& options);
// The "plan" of every timed "go" frame, reference and candidate alike: the warm-up seeds and
// the number of calls only; the rest comes per call (CallAnswer).
nlohmann::json PerCallTimingPlan(const TimingOptions& options);
// The engine's answer to a worker's "call" frame for call `index` (0..calls): its seed (null
// after the last) and whether call index-1 is re-checked, with its sample seed. A call's
// re-check is decided only after it returned. Every call a candidate makes in the stage runs
// under the trial's audit (docs/eval.md, "The trust boundary"), so no answer says anything
// about that.
nlohmann::json CallAnswer(const TimingOptions& options, int index);

// How long a candidate's timed phase may hold the lease, given the reference's timed phase
// (engine clock, ms): max(slow_floor, slow_factor x reference), never beyond timeout; the
// timeout alone when the reference's phase is unknown.
std::chrono::milliseconds CandidateTimingBudget(const TimingOptions& options,
                                                double reference_phase_ms);

}  // namespace tritonrl::eval
