#include "eval/parent_clock.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace tritonrl::eval {

std::optional<std::vector<double>> CallCycles(std::span<const double> call_frame_ms,
                                              std::size_t calls) {
  if (calls == 0 || call_frame_ms.size() != calls + 1) return std::nullopt;
  std::vector<double> cycles;
  for (std::size_t i = 0; i < calls; ++i) cycles.push_back(call_frame_ms[i + 1] - call_frame_ms[i]);
  return cycles;
}

namespace {

// One worker's per-call times on the chosen basis.
std::optional<std::vector<double>> CallTimes(const EngineCallClock& c, bool spans) {
  if (spans) return std::vector<double>(c.call_span_ms.begin(), c.call_span_ms.end());
  return CallCycles(c.call_frame_ms, c.wall_ms.size());
}

}  // namespace

std::optional<ParentCallClock> MeasureParentCallClock(const EngineCallClock& candidate,
                                                      const EngineCallClock& reference) {
  const std::span<const double> wall_ms = candidate.wall_ms;
  const std::span<const double> reference_wall_ms = reference.wall_ms;
  const bool spans = !wall_ms.empty() && candidate.call_span_ms.size() == wall_ms.size() &&
                     !reference_wall_ms.empty() &&
                     reference.call_span_ms.size() == reference_wall_ms.size();
  auto cycles = CallTimes(candidate, spans);
  if (!cycles) return std::nullopt;
  ParentCallClock out;
  out.spans = spans;
  out.cycles_ms = std::move(*cycles);
  std::vector<double> unexplained;
  for (std::size_t i = 0; i < wall_ms.size(); ++i)
    unexplained.push_back(out.cycles_ms[i] - wall_ms[i]);
  out.cycle_ms = Summarize(out.cycles_ms);
  out.unexplained_ms = Summarize(std::move(unexplained));
  auto ref_cycles = CallTimes(reference, spans);
  if (!ref_cycles) return out;
  out.reference_cycles_ms = std::move(*ref_cycles);
  std::vector<double> overhead;
  for (std::size_t i = 0; i < reference_wall_ms.size(); ++i)
    overhead.push_back(out.reference_cycles_ms[i] - reference_wall_ms[i]);
  out.reference_overhead_ms = Summarize(overhead);
  // Lower quartiles: a stalled host (preemption, other workers compiling) only adds time to a
  // cycle, so they track the undisturbed cycle where medians moved with the load. The two sets
  // come from different processes: their standard errors add in quadrature.
  out.call_ms = out.cycle_ms.p25 - out.reference_overhead_ms.p25;
  const double a = QuantileStandardError(out.cycles_ms, 0.25),
               b = QuantileStandardError(std::move(overhead), 0.25);
  out.call_se_ms = std::sqrt(a * a + b * b);
  return out;
}

std::string CheckParentClock(const ParentCallClock& clock, const std::vector<double>& wall_ms,
                             const ParentClockTolerance& tol) {
  if (!clock.call_ms || wall_ms.empty()) return "";
  const double reported = Median(wall_ms);
  const double overhead = std::isfinite(clock.reference_overhead_ms.p25)
                              ? std::max(0.0, clock.reference_overhead_ms.p25 - tol.cover_ms)
                              : 0.0;
  const double slack =
      std::max({tol.abs_ms, tol.rel * *clock.call_ms, tol.standard_errors * clock.call_se_ms,
                tol.overhead_share * overhead}) +
      tol.cover_share * tol.cover_ms;
  if (reported >= *clock.call_ms - slack) return "";
  return fmt::format(
      "parent_clock: the engine clocked {:.4f} ms per call (lower quartiles: candidate cycle "
      "{:.4f} ms - reference overhead {:.4f} ms; standard error {:.4f} ms), the worker reported "
      "{:.4f} ms (median)",
      *clock.call_ms, clock.cycle_ms.p25, clock.reference_overhead_ms.p25, clock.call_se_ms,
      reported);
}

}  // namespace tritonrl::eval
