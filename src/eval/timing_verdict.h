// The timing part of a verdict (docs/measurement.md, "The load rule"): everything measured of a
// candidate's timed phase against the reference's, and what it does to the verdict.
// The load rule: a sample fails in timing only on evidence that it forged its timing
// (TimingEvidence::kForgery: timers replaced, a stream switched, a thread started, its own device
// work after the end event, an event span longer than its window, more reported time than the
// engine clocked) or on a wrong re-checked timed output. Evidence that host or GPU contention
// produces for honest code (the synchronised clock wider than the events; a parent clock gap)
// never changes the outcome: the sample keeps it, its speedup is void (null) and a flag says why
// (timing_contended, parent_clock_gap). Load can therefore move a speedup to null, never a
// verdict to incorrect. Pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/compare.h"
#include "eval/proof_of_work.h"
#include "eval/timing_checks.h"
#include "eval/timing_frame.h"
#include "eval/timing_plan.h"

namespace tritonrl::eval {

// Everything measured, before the rule is applied.
struct TimingJudgement {
  std::optional<double> speedup;              // median reference / median candidate events
  std::vector<std::string> forgery;           // TimingEvidence::kForgery findings
  std::vector<std::string> contention;        // TimingEvidence::kContention findings
  std::vector<std::string> recheck_failures;  // wrong re-checked timed outputs
  // What the audit of the stage's calls found (every call runs as a trial does, issue 34).
  std::string audit_forbidden;             // ATen compute in a call
  std::string audit_held_tables;           // the constructor left a table held
  std::string audit_no_launch;             // a call launched no own kernel
  std::string audit_state;                 // a call changed process-wide torch settings
  std::vector<GuardFailure> audit_guards;  // a call's guard fields, checked as a trial's
  bool audit_torch_did_work = false;       // host compute or a torch-written output
  std::string parent_clock_gap;            // CheckParentClock's finding, if any
  bool lazy = false;                       // kernel share below the threshold
  std::string lazy_why;
  bool implausible = false;
  std::string implausible_why;
  nlohmann::json evidence = nlohmann::json::object();
};

// `device_model` selects the roofline peaks (src/eval/roofline.h). The parent clock uses both
// phases' call_frame_ms (set by the engine).
TimingJudgement JudgeTiming(const TimingPhase& candidate, const TimingPhase& reference,
                            const TimingOptions& options, const Tolerance& tolerance,
                            const std::string& device_model, const TimingTolerance& tol = {});

// What the judgement does to a sample that was correct when its timing began.
struct TimingRuling {
  struct Reason {
    std::string code, message;
  };
  bool incorrect = false;         // forged timing or a wrong timed output (or strict + lazy)
  std::optional<double> speedup;  // null when failed, contended or flagged by the parent clock
  std::vector<std::string> flags;
  std::vector<Reason> reasons;  // stage "timing"
};

// The load rule above; `strict`: lazy_optimization fails too.
TimingRuling RuleOnTiming(const TimingJudgement& judgement, bool strict);

}  // namespace tritonrl::eval
