// The one adapter from a scored sample (scoring's verdict with its reward inputs) to the
// reward layer's input (rl::RolloutVerdict), used by the trainer and the reward service alike,
// so both read the same fields of a verdict into the reward formulas of rl/.
#pragma once

#include <cmath>
#include <limits>

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
  v.speedup = s.speedup.value_or(std::numeric_limits<double>::quiet_NaN());
  v.flags = s.flags;
  const nlohmann::json* timing = nullptr;
  if (auto e = s.verdict.find("evidence"); e != s.verdict.end() && e->is_object()) {
    if (auto t = e->find("timing"); t != e->end() && t->is_object()) timing = &*t;
  }
  auto quartile = [&](const char* series, const char* q) {
    if (timing == nullptr) return std::numeric_limits<double>::quiet_NaN();
    auto it = timing->find(series);
    if (it == timing->end() || !it->is_object()) return std::numeric_limits<double>::quiet_NaN();
    auto x = it->find(q);
    return x != it->end() && x->is_number() ? x->get<double>()
                                            : std::numeric_limits<double>::quiet_NaN();
  };
  const double r25 = quartile("reference_event_ms", "p25");
  const double r75 = quartile("reference_event_ms", "p75");
  const double c25 = quartile("candidate_event_ms", "p25");
  const double c75 = quartile("candidate_event_ms", "p75");
  if (std::isfinite(r25) && std::isfinite(r75) && c25 > 0 && c75 > 0) {
    v.speedup_low = r25 / c75;
    v.speedup_high = r75 / c25;
  }
  return v;
}

}  // namespace tritonrl::scoring
