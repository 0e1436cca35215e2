// The one adapter from a scored sample (scoring's verdict with its reward inputs) to the
// reward layer's input (rl::RolloutVerdict), used by the trainer and the reward service alike,
// so both read the same fields of a verdict into the reward formulas of rl/.
#pragma once

#include <cmath>
#include <limits>

#include "eval/evidence.h"
#include "rl/rewards.h"
#include "scoring/score_batch.h"

namespace tritonrl::scoring {

// A speedup the scorer did not measure becomes NaN (no speedup reward; rl/rewards.h). The
// speedup's spread comes from the timing evidence's quartiles of the timed calls (CUDA events
// of the reference and the candidate): [ref p25 / cand p75, ref p75 / cand p25].
inline rl::RolloutVerdict RolloutVerdictOf(const ScoredSample& s) {
  rl::RolloutVerdict v;
  v.syntax_ok = s.syntax_ok;
  v.functionality_ok = s.functionality_ok;
  v.correct = s.correct;
  v.is_triton = s.is_triton;
  v.outputs_match = s.outputs_match;
  v.speedup = s.speedup.value_or(std::numeric_limits<double>::quiet_NaN());
  v.flags = s.flags;
  const auto e = s.verdict.find("evidence");
  if (e == s.verdict.end()) return v;
  const auto timed = eval::ReadEvidence<eval::TimedCallsEvidence>(*e);
  if (!timed || !timed->reference_event_ms || !timed->candidate_event_ms) return v;
  const eval::Stats& r = *timed->reference_event_ms;
  const eval::Stats& c = *timed->candidate_event_ms;
  if (std::isfinite(r.p25) && std::isfinite(r.p75) && c.p25 > 0 && c.p75 > 0) {
    v.speedup_low = r.p25 / c.p75;
    v.speedup_high = r.p75 / c.p25;
  }
  return v;
}

}  // namespace tritonrl::scoring
