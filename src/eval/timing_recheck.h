// The re-check of timed outputs (docs/measurement.md, "re-check"): the sampled outputs of the
// timed calls chosen after each call returned, against the reference worker's samples for the
// same inputs. The rule: the same comparison as correctness; a missing, extra, mistyped or
// reshaped sample fails, as a wrong value does (timed_output_mismatch). Pure; any thread.
#pragma once

#include <string>
#include <vector>

#include "eval/compare.h"
#include "eval/timing_frame.h"

namespace tritonrl::eval {

std::vector<std::string> CheckRechecks(const TimingPhase& candidate, const TimingPhase& reference,
                                       const Tolerance& tolerance);

}  // namespace tritonrl::eval
