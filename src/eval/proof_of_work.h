// The run-time guards' evidence in a candidate's trial frame, checked by the engine:
// who last wrote each output (a candidate kernel, a torch op, nobody), forward hooks on the
// model, calls the worker's call monitor refused (host compute, internals) and the thread ban
// (python/tritonrl_runner/guard.py and hooks.py; docs/eval.md, "Threat model").
//
// Default deny: the frame is untrusted, so a field that is missing or malformed fails the trial
// (evidence_missing) as surely as a field that reports a violation. Pure functions, callable
// from any thread; nothing is kept.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tritonrl::eval {

struct GuardFailure {
  std::string code;  // output_not_from_kernel, forward_hook, host_compute, internal_access,
                     // evidence_missing
  std::string message;
};

// What the guards reported over all trials of a sample (for the verdict's evidence).
struct GuardEvidence {
  std::set<std::string> host_calls, internal_calls, output_writers, module_hooks;
  std::string thread_ban;  // "on", "off" (GPU) or why it could not be installed
  // The most host steps one forward call of the candidate made: its loops' iterations and its
  // functions' starts, outside kernel bodies (guard.py, _make_step_counter). More than
  // HostStepBudget(launches of that call) fails the trial as host_compute.
  long long host_steps = 0;
  // Torch or the host did (part of) the work: a host_compute call, or an output last written by
  // a torch op (not merely allocated and never written). Flags the verdict lazy_optimization.
  bool torch_did_work = false;
};

// Whether a failure with this reason code means torch or precomputed data did (part of) the
// work, which flags the verdict lazy_optimization beside the reason: ATen compute in a call or
// in the constructor (forbidden_aten_op), a table the import or constructor left held
// (constructor_table). One list for the trials (engine.cpp) and the timing stage
// (timing_verdict.cpp).
inline bool ReasonMeansTorchDidWork(std::string_view code) {
  return code == "forbidden_aten_op" || code == "constructor_table";
}

// The host steps (loop iterations and function starts of the candidate's code outside kernel
// bodies, guard.py) one forward call may make with `launches` kernel launches and still be
// bookkeeping: a fixed part for shapes, strides, grids and a model's layers, and a part per
// launch for the loop iteration, grid callable and hooks around each (a launch per row, an
// autotuner's benchmark runs). A host table of n values takes about n steps or more, however
// its code is spelled. Measured on honest code in docs/eval.md ("The host-step budget").
constexpr long long kHostStepsBase = 256;
constexpr long long kHostStepsPerLaunch = 8;
inline long long HostStepBudget(long long launches) {
  return kHostStepsBase + kHostStepsPerLaunch * launches;
}

// Checks one trial frame's guard fields; `where` names the trial in messages. Adds what the
// frame reported to `evidence`.
std::vector<GuardFailure> CheckGuards(const nlohmann::json& trial_header, const std::string& where,
                                      GuardEvidence* evidence);

// The host steps of the candidate's import or of one constructor run (a stage frame's
// host_steps: one [steps, launches] pair), judged with a call's budget: a table computed there
// is kept for every call. Missing or malformed is evidence_missing.
std::vector<GuardFailure> CheckStageHostSteps(const nlohmann::json& stage_frame,
                                              const std::string& where);

nlohmann::json GuardEvidenceJson(const GuardEvidence& evidence);

}  // namespace tritonrl::eval
