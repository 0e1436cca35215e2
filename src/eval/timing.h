// The timing stage's trusted side (docs/measurement.md), one header per concept:
//   timing_plan.h     options, the secret plan, what a worker learns per call, the slow budget
//   timing_lease.h    the exclusive per-GPU lease
//   timing_stats.h    order statistics and a quantile's standard error
//   timing_frame.h    the validated timing/profile frames and the reference's cache record
//   timing_checks.h   consistency checks, each finding forgery or contention
//   timing_recheck.h  re-checks of timed outputs against the reference
//   parent_clock.h    the engine's own clock of each call against the reported times
//   timing_verdict.h  the judgement and the load rule (what fails, what only voids a speedup)
// The in-worker protocol is python/tritonrl_runner/timing.py.
#pragma once

#include "eval/parent_clock.h"    // IWYU pragma: export
#include "eval/timing_checks.h"   // IWYU pragma: export
#include "eval/timing_frame.h"    // IWYU pragma: export
#include "eval/timing_lease.h"    // IWYU pragma: export
#include "eval/timing_plan.h"     // IWYU pragma: export
#include "eval/timing_recheck.h"  // IWYU pragma: export
#include "eval/timing_stats.h"    // IWYU pragma: export
#include "eval/timing_verdict.h"  // IWYU pragma: export
