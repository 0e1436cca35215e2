// Drives one runner worker (python/tritonrl_runner/worker.py) through its fixed
// frame sequence, one deadline per stage:
//   hello, variants, [stage import], per variant: stage build, per trial: trial + slices,
//   [stage timing_ready, go, call..., timing, profile], done.
// A candidate may also send "progress" frames (Triton compiles) at any time: they move its idle
// deadline (EngineConfig::trial_idle_timeout) and nothing else.
// Each state is one function that accepts or rejects the next frame; every
// accepted frame goes to a TrialSink (src/eval/trial_check.h), which spills the
// reference's outputs or checks the candidate's. A candidate learns each trial's
// seed just before that trial. Called from one pool thread per worker; the
// process is killed and reaped before DriveWorker returns.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/process.h"
#include "eval/timing_lease.h"
#include "eval/trial_check.h"
#include "eval/types.h"

namespace tritonrl::eval {

enum class WorkerEnd {
  kDone,
  kError,  // the worker sent an "error" frame
  kEof,    // it closed its pipe (died) before the sequence ended
  kTimeout,
  kMalformed,  // undecodable bytes
  kProtocol,   // a well-formed frame out of sequence or inconsistent
  kSpawnFailed,
  kResource,  // the engine could not hold what the worker sent (spill space)
  kInfra,     // the engine failed (reading its own spill file, the timing lease)
};

// Where the worker was in its sequence; StateName gives the stage names used in verdicts.
enum class WorkerState {
  kStartup,
  kImport,
  kBuild,
  kTrial,
  kSlices,
  kTimingReady,
  kTiming,
  kProfile,
  kDone,
};
const char* StateName(WorkerState state);

struct WorkerRun {
  std::vector<Frame> frames;  // every accepted frame but slices
  WorkerEnd end = WorkerEnd::kSpawnFailed;
  WorkerState pending = WorkerState::kStartup;  // what we were waiting for when it ended
  std::string detail;
  Frame error_frame;
  Finished fin;
  std::string log_tail;
  double wall_ms = 0;
  std::map<std::string, double> stage_ms;  // measured by the engine between frames
  // The worker's own account of its time (device_init, and per trial inputs, hash, forward,
  // null_models, outputs_prev), summed over trials: diagnostics, never judged (a candidate's
  // process could forge them).
  std::map<std::string, double> phase_ms;
  double timing_parent_ms = 0;  // engine clock of the timed phase ("go" -> "timing" frame)
  LeaseFacts lease;             // the timing lease's wait and the GPU's other work around the phase
  std::string lease_error;
  bool timing_skipped = false;  // a candidate stopped before timing: its trials had failed
  bool stopped_after_failed_trial = false;  // ... and before its remaining trials (all_trials off)
  std::vector<double> call_frame_ms;        // arrival of each "call" frame, ms since "go"
  // Per timed call: the engine's clock from its "span" begin frame to its end frame (the call
  // alone, without the audit's work around it; src/eval/parent_clock.h).
  std::vector<double> call_span_ms;
  // A correct candidate stopped at its timing budget (CandidateTimingBudget) after this many
  // finished timed calls.
  bool timing_over_budget = false;
  double timing_budget_ms = 0;
  int timed_calls_done = 0;
};

// `reference`: the task's reference result when driving a candidate (its timed phase sets the
// candidate's timing budget), null when driving the reference itself. `started`: a worker already
// spawned into `dir` (a pre-started one, eval/worker_pool.h), else DriveWorker spawns one. Either
// way the stage deadlines count from the request, sent here.
WorkerRun DriveWorker(const EngineConfig& config, const nlohmann::json& request,
                      const std::string& dir, const ReferenceResult* reference, TrialSink& sink,
                      std::optional<Child> started = std::nullopt);

}  // namespace tritonrl::eval
