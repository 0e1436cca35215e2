// The timing stage's trusted side (docs/measurement.md): the exclusive per-GPU
// timing lease, the statistics of the timed trials, the consistency checks
// that bound what a worker reports by the device-synchronised clock and the
// engine's own clock, speedup and the plausibility and lazy-optimisation flags.
// The in-worker protocol is python/tritonrl_runner/timing.py.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "eval/compare.h"
#include "eval/protocol.h"

namespace tritonrl::eval {

// What the engine asks of the timing stage (the request's "timing" object).
struct TimingOptions {
  bool enabled = false;            // GPU runs (or --cpu-timing, a test-only switch)
  int trials = 100;                // timed calls
  int warmup = 5;                  // untimed calls first (covers autotuning)
  int recheck = 10;                // timed calls whose outputs are re-checked
  int sample_count = 4096;         // output positions compared per re-check
  int profile_calls = 3;           // calls under torch.profiler
  std::string baseline = "eager";  // eager | compile: how the reference is timed
  double lazy_threshold = 0.8;     // minimal share of GPU time in the candidate's kernels
  double speedup_cap = 10.0;       // plausibility bound where no roofline is known
  bool strict = false;             // strict policy: lazy_optimization is not correct
  std::string lock_dir;  // where the per-GPU lock files live ("" = $TRITONRL_LOCK_DIR or /tmp)
  std::string device_key = "gpu0";            // one lease per key (the GPU the workers use)
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
  // A candidate's timed positions in order: the index of a timed model call, or -1 for a null
  // call (the same cycle without the model; the engine clocks it to learn the process's own
  // overhead). Empty: the timed calls alone, in order.
  std::vector<int> call_order;
};

// Seeds and re-checked calls for one run, from a secret (the engine's CSPRNG).
void DrawTimingPlan(TimingOptions& options, std::uint64_t secret);

// Which variant is timed: "large" if the task has it, else the last one.
std::string TimedVariant(const std::vector<std::string>& variants);

// The request's "timing" object.
nlohmann::json TimingRequest(const TimingOptions& options, const std::string& variant);

// The "plan" of the reference's "go" frame: everything (the reference runs no candidate code).
nlohmann::json TimingPlan(const TimingOptions& options);
// A candidate's timed positions (timed calls plus null calls), and what stands at one of them:
// the timed call's index, or -1 for a null call.
int TimedPositions(const TimingOptions& options);
int ModelCallAt(const TimingOptions& options, int position);

// The "plan" of a candidate's "go" frame: the warm-up seeds and the number of positions only.
nlohmann::json CandidateTimingPlan(const TimingOptions& options);
// The engine's answer to a candidate's "call" frame for position `index` (0..positions): its
// seed (null after the last), whether it is a null call, and whether the timed call at
// index-1 is re-checked, with its sample seed. A call's fate is decided only after it returned.
nlohmann::json CallAnswer(const TimingOptions& options, int index);

// How long a candidate's timed phase may hold the lease, given the reference's timed phase
// (engine clock, ms): max(slow_floor, slow_factor x reference), never beyond timeout; the
// timeout alone when the reference's phase is unknown.
std::chrono::milliseconds CandidateTimingBudget(const TimingOptions& options,
                                                double reference_phase_ms);

// An exclusive lease on one GPU for timing: an in-process mutex per key plus
// an flock on <lock_dir>/tritonrl-timing-<key>.lock, so engine processes on
// one host serialise too. Released by the destructor.
class TimingLease {
 public:
  TimingLease() = default;
  TimingLease(TimingLease&& other) noexcept;
  TimingLease& operator=(TimingLease&& other) noexcept;
  TimingLease(const TimingLease&) = delete;
  TimingLease& operator=(const TimingLease&) = delete;
  ~TimingLease();
  bool held() const { return fd_ >= 0; }
  double wait_ms() const { return wait_ms_; }
  void Release();

 private:
  friend Result<TimingLease> AcquireTimingLease(const std::string& lock_dir,
                                                const std::string& key);
  int fd_ = -1;
  void* mutex_ = nullptr;  // the in-process mutex (std::timed_mutex) held with the lock
  double wait_ms_ = 0;
};

Result<TimingLease> AcquireTimingLease(const std::string& lock_dir, const std::string& key);

// Order statistics of a sample.
struct Stats {
  int n = 0;
  double median = 0, p25 = 0, p75 = 0, iqr = 0, mean = 0, stddev = 0, cv = 0, min = 0, max = 0;
};
Stats Summarize(std::vector<double> values);
// Standard error of the q-quantile of `values` (non-finite ones dropped), read off the sample:
// half the distance between its q -/+ sqrt(q (1 - q) / n) quantiles (one binomial standard
// deviation of the share below the quantile). Distribution-free: a bimodal sample (a host stalled
// on some cycles) whose quantile sits inside one dense mode gets that mode's spread, not the gap
// between the modes, as IQR / sqrt(n) would. 0 for fewer than two values.
double QuantileStandardError(std::vector<double> values, double q);
nlohmann::json ToJson(const Stats& s);

// Sampled output values of one re-checked timed call.
struct RecheckSample {
  int trial = 0;
  int output = 0;
  bool type_ok = false;
  DType dtype = DType::kFloat32;
  std::int64_t numel = 0;
  std::vector<std::int64_t> shape;  // the full output's shape
  std::string bytes;
};

// One worker's timing frame, validated, plus the engine's clock of the phase.
struct TimingPhase {
  std::string variant;
  std::vector<double> event_ms, wall_ms, tail_ms;
  std::vector<int> recheck_trials;  // the calls whose outputs were sampled
  double parent_ms = 0;             // engine clock: "go" written -> "timing" frame read
  double lease_wait_ms = 0;         // how long the engine waited for the lease
  double stage_ms = 0, warmup_ms = 0;
  std::int64_t l2_bytes = 0, flush_bytes = 0, input_bytes = 0, output_bytes = 0;
  std::optional<double> flops;  // one forward's FLOPs where countable (reference only; trusted)
  bool l2_persist_reset = false;
  std::vector<std::string> tampered;  // clock / CUDA entry points replaced by the candidate
  int threads_before = -1, threads_after = -1;
  bool stream_changed = false;
  std::optional<double> kernel_share;
  double own_kernel_ms = 0, kernel_ms = 0;
  nlohmann::json top_kernels = nlohmann::json::array();
  std::string profile_error;
  std::vector<RecheckSample> rechecks;
  bool recheck_only = false;  // the reference only re-checked; its timings come from the cache
  bool from_cache = false;    // event/wall/tail times of an earlier run (reference only)
};

// The reference's timed part (variant, times, sizes) for the cross-run cache; the re-checks are
// not kept, they depend on each run's secret seeds.
nlohmann::json ReferenceTimingToJson(const TimingPhase& phase);
Result<TimingPhase> ReferenceTimingFromJson(const nlohmann::json& j);

// The engine's own clock of a candidate's timed calls: the time between its "call" frames i and
// i+1 (`call_frame_ms`, ms since "go") is the whole cycle of call i (new inputs, L2 reset, cover
// and flush, the call, synchronisation, the exchange); minus the call's reported wall time it is
// the overhead the reported numbers leave unexplained. Evidence only for now (docs/measurement.md).
// nullopt unless there is one more frame than reported calls.
// With null calls among the positions, the difference of the timed and null cycles' lower
// quartiles is the timed call's own time by the engine's clock (`call_ms`), `call_se_ms` its
// standard error (QuantileStandardError of each set, in quadrature).
struct ParentCallClock {
  Stats cycle_ms, unexplained_ms, null_cycle_ms;
  std::optional<double> call_ms;
  double call_se_ms = 0;
  // The cycles themselves, in position order: kept in the evidence so that a rule can be
  // re-evaluated offline on recorded runs (summaries alone could not test a new estimator).
  std::vector<double> timed_cycles_ms, null_cycles_ms;
};
std::optional<ParentCallClock> MeasureParentCallClock(const std::vector<double>& call_frame_ms,
                                                      const std::vector<double>& wall_ms,
                                                      const TimingOptions& options);

// The reported median wall time falls short of the engine's clock of the call (`call_ms`) by
// more than max(abs_ms, rel x call_ms, standard_errors x call_se_ms): the reported numbers are
// smaller than the time the calls took. Empty when consistent or not measurable. The error term
// keeps host noise from flagging honest samples (docs/measurement.md has the H200 figures).
struct ParentClockTolerance {
  double abs_ms = 0.02;
  double rel = 0.25;
  double standard_errors = 2.0;
};
std::string CheckParentClock(const ParentCallClock& clock, const std::vector<double>& wall_ms,
                             const ParentClockTolerance& tol = {});

// Validates a "timing" frame against the plan (counts, types, payload bounds).
// `allow_recheck_only`: the reference's frame may carry re-checks only (the engine asked for it).
Result<TimingPhase> ParseTimingFrame(const Frame& frame, const TimingOptions& options,
                                     bool allow_recheck_only = false);

// Adds the profile pass (its own frame, sent after the lease is released:
// kernel_share, own_kernel_ms, kernel_ms, top_kernels, profile_error).
void MergeProfileFrame(const Frame& frame, TimingPhase& phase);

// Tolerances of the consistency checks (docs/measurement.md says why).
struct TimingTolerance {
  double tail_abs_ms = 0.05;       // device still busy after the end event completed
  double tail_rel = 0.10;          // ... relative to the call's event time
  double tail_trial_share = 0.10;  // share of trials allowed over the tail bound
  double wall_gap_abs_ms = 0.08;   // per-call synced wall - event time, at the quantile below
  double wall_gap_rel = 0.25;      // ... plus this share of the median event time
  double wall_gap_quantile = 0.25;
  double event_over_wall_rel = 0.02;  // an event span cannot exceed its synced wall window
  double event_over_wall_abs_ms = 0.01;
  double parent_slack_ms = 1.0;  // sum of reported walls <= engine's clock of the phase
};

// Failed checks (empty: consistent). Each string is "<check>: <numbers>".
std::vector<std::string> CheckConsistency(const TimingPhase& phase,
                                          const TimingTolerance& tol = {});

// Re-check of the timed calls: candidate samples vs reference samples.
std::vector<std::string> CheckRechecks(const TimingPhase& candidate, const TimingPhase& reference,
                                       const Tolerance& tolerance);

// The timing part of a verdict.
struct TimingJudgement {
  std::optional<double> speedup;
  std::vector<std::string> inconsistent;      // -> outcome incorrect, flag timing_inconsistent
  std::vector<std::string> recheck_failures;  // -> outcome incorrect (timed_output_mismatch)
  bool lazy = false;                          // kernel share below the threshold
  bool implausible = false;
  std::string implausible_why;
  nlohmann::json evidence = nlohmann::json::object();
};

// `device_model` selects the roofline peaks (src/eval/roofline.h).
TimingJudgement JudgeTiming(const TimingPhase& candidate, const TimingPhase& reference,
                            const TimingOptions& options, const Tolerance& tolerance,
                            const std::string& device_model, const TimingTolerance& tol = {});

}  // namespace tritonrl::eval
