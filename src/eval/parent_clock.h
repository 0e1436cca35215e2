// The parent clock (docs/measurement.md, "The parent clock"): the engine's own clock of each
// timed call of a worker, which bounds the times the worker reports from below.
// Since tritonrl-eval/27 the engine clocks each timed call's span, from the worker's "span" begin
// frame (sent just before the worker's clock starts) to its end frame (just after the device is
// synchronised and the worker's clock stopped): the call, the cover and flush, and two frames.
// Before, it clocked the whole cycle between "call" frames i and i+1, which also holds the
// audit's own work before and after each call (scanning hooks and settings, the output-writer
// proof): work a candidate's worker does and the reference's does not, which load stretched past
// the tolerance on most honest short kernels (E2's first block, bench/RESULTS.md, 2026-12-06).
// The cycles remain the basis where either side has no spans (a reference cached before v27).
// Every span of a candidate is a model call, and nothing it is sent marks one apart, so it has
// no span it could slow to move a baseline. The baseline, a span's overhead outside the call,
// comes from the trusted reference worker, which runs the very same span: its span minus its
// reported wall (trusted: no candidate code runs there). The call's own time by the engine's
// clock is the lower quartile of the candidate's spans minus the lower quartile of the
// reference's overhead (stalls only add time, so lower quartiles track undisturbed calls), with
// the standard errors of both in quadrature.
// The rule: a reported median wall below that time by more than max(0.02 ms, 25 %, 2 standard
// errors) is flagged parent_clock_gap, which voids the speedup (never fails the sample: the
// bound is statistical and load moves it). Pure functions; any thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "eval/timing_stats.h"

namespace tritonrl::eval {

struct ParentCallClock {
  bool spans = false;             // the basis: spans (true) or cycles between "call" frames
  Stats cycle_ms;                 // the candidate's spans (or cycles)
  Stats unexplained_ms;           // each candidate cycle minus the call's reported wall
  Stats reference_overhead_ms;    // each reference cycle minus its (trusted) reported wall
  std::optional<double> call_ms;  // p25(candidate cycles) - p25(reference overhead)
  double call_se_ms = 0;
  // The cycles themselves, in call order: kept in the evidence so that a rule can be
  // re-evaluated offline on recorded runs (summaries alone could not test a new estimator).
  std::vector<double> cycles_ms, reference_cycles_ms;
};

// The cycles between consecutive call frames (ms since "go"); nullopt unless there is exactly
// one more frame than calls.
std::optional<std::vector<double>> CallCycles(std::span<const double> call_frame_ms,
                                              std::size_t calls);

// One worker's engine clock of its timed calls (views: build it in the call that reads it).
struct EngineCallClock {
  std::span<const double> call_frame_ms;  // "call" frame arrivals, one more than the calls
  std::span<const double> call_span_ms;   // spans, one per call; empty if not clocked
  std::span<const double> wall_ms;        // the worker's reported walls
};

// Spans where both workers have one per call, else cycles. nullopt when the candidate's calls
// are not measurable; call_ms empty when the reference's are not (a cached entry without them).
std::optional<ParentCallClock> MeasureParentCallClock(const EngineCallClock& candidate,
                                                      const EngineCallClock& reference);

struct ParentClockTolerance {
  double abs_ms = 0.02;
  double rel = 0.25;
  double standard_errors = 2.0;
  // Of the reference's cycle overhead (lower quartile): the candidate's own host work per call
  // (its launch code, our launch hooks) is in its cycles but not in the reference's overhead, and
  // grows with host load. On the H200 at 16 jobs it reached 0.33 of the overhead (0.15 of 0.46 ms)
  // on honest short kernels (bench/RESULTS.md, 2026-12-02, recorded in ebdb753).
  double overhead_share = 0.4;
  // The launch cover both workers run in each span (TimingOptions::cover_us, in ms): it is in the
  // reference's overhead, and the candidate's host work runs under it, so overhead_share applies
  // to the rest of the overhead only (else a 1 ms cover would give 0.4 ms of slack).
  double cover_ms = 0;
  // Of the cover, added to the slack: the two workers' covers are one count of SM clock cycles,
  // whose length moves with the clock between their timed phases (honest samples at a 1 ms cover
  // on an H100 at 16 jobs: the reference's overhead spread by about +-0.05 ms, bench/RESULTS.md,
  // 2026-12-07, row 9b).
  double cover_share = 0.1;
};
// Empty when consistent or not measurable; else what the engine clocked against what was
// reported.
std::string CheckParentClock(const ParentCallClock& clock, const std::vector<double>& wall_ms,
                             const ParentClockTolerance& tol = {});

}  // namespace tritonrl::eval
