// One worker's timing record (docs/measurement.md, protocol steps 4-6): the "timing" and
// "profile" frames validated into a TimingPhase, plus what the engine itself measured (its
// clock of the phase and of each call frame), and the reference's record for the cross-run
// cache. The rule: a frame is untrusted input; counts, types and payload bounds are checked
// here, and anything malformed is an error value (the verdict's protocol_violation).
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "eval/compare.h"
#include "eval/protocol.h"
#include "eval/timing_lease.h"
#include "eval/timing_plan.h"

namespace tritonrl::eval {

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
  // Engine clock: arrival of each "call" frame, ms since "go" (one more than the timed calls:
  // the last asks for the decision on the last call). Set by the engine, never by the frame.
  std::vector<double> call_frame_ms;
  // Engine clock of each timed call's span (its "span" frames), one per timed call; empty when
  // not clocked (a reference cached before tritonrl-eval/27). Set by the engine.
  std::vector<double> call_span_ms;
  LeaseFacts lease;  // set by the engine (WorkerRun): the lease's wait, the GPU's other work
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
  std::string profile_method;  // "events" (covered calls) or "profiler" (torch.profiler)
  std::vector<RecheckSample> rechecks;
  // A candidate's stage runs every call under a trial's audit (issue 34): how many timed calls
  // ran audited (-1: not reported), the ATen ops outside the allowlist its calls dispatched,
  // how many launched none of the candidate's kernels, how many changed process-wide torch
  // settings, whether the audit stayed intact (the innermost dispatch mode, the launch hooks,
  // the call monitor), the guard fields of one call as a trial frame carries them (the first
  // with a finding; src/eval/proof_of_work.h; null: not reported), and per timed call the
  // audit's own time inside the timed span (diagnostic).
  int audited_calls = -1;
  std::vector<std::string> audited_forbidden_ops;
  // The timed model's constructor's findings of the held-tensor rule (docs/eval.md): what it
  // left held beyond the task Model's own tensors.
  std::vector<std::string> audited_held_tables;
  int audited_without_launch = 0;
  int audited_state_changed = 0;
  bool audit_intact = true;
  nlohmann::json audited_guards;
  // The timed model's constructor's host steps, [[steps, 0]] (judged as the build stage's are).
  nlohmann::json audited_build_host_steps;
  std::vector<double> audit_ms;
  // Timed calls whose host side was queued before the device reached the start event (the
  // launch cover held: the events time device work alone; -1 when not reported). Diagnostic:
  // an uncovered call carries its host time past the cover, to its own cost.
  int covered_calls = -1;
  bool recheck_only = false;  // the reference only re-checked; its timings come from the cache
  bool from_cache = false;    // event/wall/tail times of an earlier run (reference only)
};

// Validates a "timing" frame against the plan (counts, types, payload bounds).
// `allow_recheck_only`: the reference's frame may carry re-checks only (the engine asked for it).
Result<TimingPhase> ParseTimingFrame(const Frame& frame, const TimingOptions& options,
                                     bool allow_recheck_only = false);

// Adds the profile pass (its own frame, sent after the lease is released:
// kernel_share, own_kernel_ms, kernel_ms, top_kernels, profile_error, profile_method).
void MergeProfileFrame(const Frame& frame, TimingPhase& phase);

// The reference's timed part (variant, times, the engine's clock of its calls, sizes) for the
// cross-run cache; the re-checks are not kept, they depend on each run's secret seeds.
nlohmann::json ReferenceTimingToJson(const TimingPhase& phase);
// A lease's facts as evidence (the reference's, kept with its cached timings).
nlohmann::json LeaseToJson(const LeaseFacts& lease);
Result<TimingPhase> ReferenceTimingFromJson(const nlohmann::json& j);

}  // namespace tritonrl::eval
