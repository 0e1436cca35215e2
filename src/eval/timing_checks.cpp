#include "eval/timing_checks.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "eval/timing_stats.h"

namespace tritonrl::eval {

std::vector<TimingFinding> CheckConsistency(const TimingPhase& p, const TimingTolerance& tol) {
  std::vector<TimingFinding> bad;
  const auto forgery = [&](std::string text) {
    bad.push_back({TimingEvidence::kForgery, std::move(text)});
  };
  if (!p.tampered.empty()) forgery(fmt::format("timers replaced: {}", fmt::join(p.tampered, ", ")));
  if (p.stream_changed) forgery("forward left a different current CUDA stream");
  if (p.threads_before >= 0 && p.threads_after > p.threads_before) {
    forgery(
        fmt::format("threads started during timing: {} -> {}", p.threads_before, p.threads_after));
  }
  if (p.event_ms.empty()) return bad;
  const double ev = Median(p.event_ms), wall = Median(p.wall_ms);
  // The worker's own device work still running after the end event completed (side streams,
  // work queued after return). The window is one device synchronise (~10 us): a host stall
  // lands in it on a small share of calls at most, and other processes' work is not waited for.
  int over = 0;
  for (std::size_t i = 0; i < p.tail_ms.size(); ++i) {
    if (p.tail_ms[i] > tol.tail_abs_ms + tol.tail_rel * p.event_ms[i]) ++over;
  }
  if (over > tol.tail_trial_share * static_cast<double>(p.tail_ms.size())) {
    forgery(fmt::format(
        "device busy after the end event in {}/{} calls (median tail {:.4f} ms, event {:.4f} ms)",
        over, p.tail_ms.size(), Median(p.tail_ms), ev));
  }
  // The synchronised clock wider than the events, with no device work of the worker's own left
  // after the end event (the tail): a host thread descheduled between its clock and its launch,
  // or another process's kernels ahead of the pre event on the GPU. Hidden work that outlives
  // the events is the tail's finding; this one alone is contention. Judged at the lower quartile
  // over the calls: stalls widen only some.
  std::vector<double> gaps;
  for (std::size_t i = 0; i < p.event_ms.size() && i < p.wall_ms.size(); ++i)
    gaps.push_back(p.wall_ms[i] - p.event_ms[i]);
  const double gap = QuantileOf(gaps, tol.wall_gap_quantile);
  if (gap > tol.wall_gap_abs_ms + tol.wall_gap_rel * ev) {
    bad.push_back({TimingEvidence::kContention,
                   fmt::format("device-synchronised clock {:.4f} ms vs CUDA events {:.4f} ms "
                               "(median; lower-quartile gap {:.4f} ms)",
                               wall, ev, gap)});
  }
  int event_over = 0;
  for (std::size_t i = 0; i < p.event_ms.size(); ++i) {
    if (p.event_ms[i] > p.wall_ms[i] * (1 + tol.event_over_wall_rel) + tol.event_over_wall_abs_ms)
      ++event_over;
  }
  if (event_over > 0)
    forgery(fmt::format("{} event times exceed their synchronised wall window", event_over));
  const double sum_wall = std::accumulate(p.wall_ms.begin(), p.wall_ms.end(), 0.0);
  const double sum_ev = std::accumulate(p.event_ms.begin(), p.event_ms.end(), 0.0);
  if (p.parent_ms > 0 && std::max(sum_wall, sum_ev) > p.parent_ms + tol.parent_slack_ms) {
    forgery(
        fmt::format("reported {:.3f} ms of timed calls in a phase the engine clocked at {:.3f} ms",
                    std::max(sum_wall, sum_ev), p.parent_ms));
  }
  return bad;
}

}  // namespace tritonrl::eval
