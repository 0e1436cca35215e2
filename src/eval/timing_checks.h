// The consistency checks of a timed phase (docs/measurement.md, "The checks" and "The load
// rule"): what the worker reported is held against a second in-process clock (the
// device-synchronised wall), against physics (an event span inside its wall window) and against
// the engine's own clock of the phase.
// The rule: each finding says whether it proves forgery or is consistent with contention.
// Forgery: something no host or GPU load can produce for an honest worker (a timer replaced, a
// stream switched, a thread started, the worker's own device work still running after the end
// event on many calls, an event span longer than its window, more reported time than the engine
// clocked). Contention: a disagreement that host stalls or another process on the GPU produce
// for honest code (the synchronised clock wider than the events while no device work of the
// worker's own remained). Pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "eval/timing_frame.h"

namespace tritonrl::eval {

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

enum class TimingEvidence {
  kForgery,     // fails the sample (timing_inconsistent)
  kContention,  // voids its speedup only (timing_contended)
};

struct TimingFinding {
  TimingEvidence kind = TimingEvidence::kForgery;
  std::string text;  // "<what>: <numbers>"
};

// Failed checks of one phase (empty: consistent).
std::vector<TimingFinding> CheckConsistency(const TimingPhase& phase,
                                            const TimingTolerance& tol = {});

}  // namespace tritonrl::eval
