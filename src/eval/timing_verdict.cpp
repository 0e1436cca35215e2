#include "eval/timing_verdict.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "eval/evidence.h"
#include "eval/parent_clock.h"
#include "eval/roofline.h"
#include "eval/timing_recheck.h"
#include "eval/timing_stats.h"

namespace tritonrl::eval {
using nlohmann::json;

namespace {

// The engine's clock of each call, into the evidence (and the parent clock's finding).
void AddParentClock(const TimingPhase& c, const TimingPhase& r, const TimingOptions& o,
                    TimingJudgement& j) {
  const auto clock = MeasureParentCallClock({c.call_frame_ms, c.call_span_ms, c.wall_ms},
                                            {r.call_frame_ms, r.call_span_ms, r.wall_ms});
  if (!clock) return;
  const auto micro = [](std::vector<double> ms) {  // to 0.1 us: the frames' own resolution
    for (double& x : ms) x = std::round(x * 1e4) / 1e4;
    return ms;
  };
  json& e = j.evidence;
  e["parent_clock_basis"] = clock->spans ? "spans" : "cycles";
  e["parent_call_cycle_ms"] = json(clock->cycle_ms);
  e["parent_call_unexplained_ms"] = json(clock->unexplained_ms);
  e["parent_cycles_ms"] = {{"candidate", micro(clock->cycles_ms)},
                           {"reference", micro(clock->reference_cycles_ms)}};
  if (!clock->call_ms) {
    e["parent_call_ms"] = nullptr;
    e["parent_clock_unmeasured"] = "the reference's calls were not clocked (cached before v9)";
    return;
  }
  e["parent_reference_overhead_ms"] = json(clock->reference_overhead_ms);
  e["parent_call_ms"] = *clock->call_ms;
  e["parent_call_se_ms"] = clock->call_se_ms;
  ParentClockTolerance tol;
  tol.cover_ms = o.cover_us / 1000.0;
  j.parent_clock_gap = CheckParentClock(*clock, c.wall_ms, tol);
  if (!j.parent_clock_gap.empty()) e["parent_clock_gap"] = j.parent_clock_gap;
}

// Every call of the stage ran as a trial runs (issue 34): every timed call audited, the audit
// intact, no ATen compute, a launch of the candidate's kernels in each, no process-wide setting
// changed, and the guard fields (output writers, forward hooks, host compute, internals) checked
// as a trial frame's are. Nothing in the stage is unaudited, so there is no call to tell apart.
void CheckAuditedCalls(const TimingPhase& c, const TimingOptions& o, TimingJudgement& j) {
  const int planned = TimedCalls(o);
  if (planned == 0 || c.recheck_only) return;
  if (c.audited_calls != planned) {
    j.forgery.push_back(fmt::format("{} of {} timed calls ran audited", c.audited_calls, planned));
  }
  if (!c.audit_intact) j.forgery.push_back("the audit was lifted or replaced in a timed call");
  if (!c.audited_forbidden_ops.empty()) {
    j.audit_forbidden = fmt::format("ATen compute ops outside the allowlist in timed calls: {}",
                                    fmt::join(c.audited_forbidden_ops, ", "));
  }
  if (!c.audited_held_tables.empty()) {
    j.audit_held_tables = fmt::format("the timed model's constructor left a table held: {}",
                                      fmt::join(c.audited_held_tables, "; "));
  }
  if (c.audited_without_launch > 0) {
    j.audit_no_launch = fmt::format(
        "{} call(s) of the timing stage launched no own kernel (none defined in the "
        "candidate file)",
        c.audited_without_launch);
  }
  if (c.audited_state_changed > 0) {
    j.audit_state =
        fmt::format("{} call(s) of the timing stage changed process-wide torch settings",
                    c.audited_state_changed);
  }
  // Default deny, as for a trial frame: missing guard fields are evidence_missing.
  GuardEvidence guards;
  const json& g = c.audited_guards.is_object() ? c.audited_guards : json::object();
  const auto call = g.find("call");
  const std::string where = call != g.end() && call->is_number_integer()
                                ? fmt::format("timed call {}", call->get<std::int64_t>())
                                : std::string("the timing stage");
  j.audit_guards = CheckGuards(g, where, &guards);
  // The timed model is built again for the stage: its constructor meets the build stage's
  // host-step budget too (one that computes a table only when it runs a second time).
  for (GuardFailure& f : CheckStageHostSteps({{"host_steps", c.audited_build_host_steps}},
                                             "the timed model's constructor")) {
    guards.torch_did_work = guards.torch_did_work || f.code == "host_compute";
    j.audit_guards.push_back(std::move(f));
  }
  j.audit_torch_did_work = guards.torch_did_work;
}

// The audit's own time inside the timed spans, as reported (finite values only; diagnostic:
// it is in the reported times, never taken off, docs/measurement.md).
json AuditMsJson(const TimingPhase& c) {
  std::vector<double> v;
  for (double x : c.audit_ms)
    if (std::isfinite(x) && x >= 0) v.push_back(x);
  if (v.empty()) return nullptr;
  return {{"n", v.size()},
          {"median", Median(v)},
          {"max", *std::max_element(v.begin(), v.end())},
          {"sum", std::accumulate(v.begin(), v.end(), 0.0)}};
}

}  // namespace

TimingJudgement JudgeTiming(const TimingPhase& c, const TimingPhase& r, const TimingOptions& o,
                            const Tolerance& tolerance, const std::string& device_model,
                            const TimingTolerance& tol) {
  TimingJudgement j;
  const Stats ce = Summarize(c.event_ms), cw = Summarize(c.wall_ms), re = Summarize(r.event_ms);
  for (TimingFinding& f : CheckConsistency(c, tol))
    (f.kind == TimingEvidence::kForgery ? j.forgery : j.contention).push_back(std::move(f.text));
  j.recheck_failures = CheckRechecks(c, r, tolerance);
  CheckAuditedCalls(c, o, j);
  if (c.variant != r.variant) j.forgery.push_back("timed variant differs from the reference's");
  if (ce.median > 0 && re.median > 0) j.speedup = re.median / ce.median;
  if (c.kernel_share) {
    j.lazy = *c.kernel_share < o.lazy_threshold;
    if (j.lazy) {
      j.lazy_why =
          fmt::format("{:.1f}% of GPU time in the candidate's own kernels (threshold {:.0f}%)",
                      100 * *c.kernel_share, 100 * o.lazy_threshold);
    }
  }
  WorkSize work;
  work.bytes = static_cast<double>(r.input_bytes + r.output_bytes);
  work.flops = r.flops;  // counted by the reference worker, never taken from the candidate
  const Plausibility pl = CheckPlausibility(ce.median, j.speedup.value_or(0), work,
                                            PeaksFor(device_model), o.speedup_cap);
  j.implausible = pl.implausible;
  j.implausible_why = pl.why;
  // The keys C++ reads back (src/eval/evidence.h), then the rest of the judgement.
  j.evidence = TimedCallsEvidence{c.variant, re, ce};
  j.evidence.update({{"baseline", o.baseline},
                     {"trials", c.event_ms.size()},
                     {"candidate_wall_ms", json(cw)},
                     {"candidate_tail_ms", json(Summarize(c.tail_ms))},
                     {"reference_wall_ms", json(Summarize(r.wall_ms))},
                     {"parent_phase_ms", c.parent_ms},
                     {"reference_parent_phase_ms", r.parent_ms},
                     {"reference_timing_cached", r.from_cache},
                     {"reference_lease", LeaseToJson(r.lease)},
                     {"lease_wait_ms", c.lease.wait_ms},
                     {"quiet", o.quiet},
                     {"quiet_wait_ms", c.lease.quiet_wait_ms},
                     {"trials_in_flight_at_go", c.lease.trials_in_flight_at_go},
                     {"trials_started_while_timed", c.lease.trials_started_while_timed},
                     {"references_started_while_timed", c.lease.references_started_while_timed},
                     {"warmup_ms", c.warmup_ms},
                     {"l2_bytes", c.l2_bytes},
                     {"flush_bytes", c.flush_bytes},
                     {"l2_persist_reset", c.l2_persist_reset},
                     {"rechecked_calls", o.recheck_indices.size()},
                     {"audited_calls", c.audited_calls},
                     {"audit_ms", AuditMsJson(c)},
                     {"cover_us", o.cover_us},
                     {"candidate_covered_calls", c.covered_calls},
                     {"reference_covered_calls", r.covered_calls},
                     {"kernel_share", c.kernel_share ? json(*c.kernel_share) : json(nullptr)},
                     {"own_kernel_ms", c.own_kernel_ms},
                     {"kernel_ms", c.kernel_ms},
                     {"top_kernels", c.top_kernels},
                     {"lazy_threshold", o.lazy_threshold},
                     {"roofline_floor_ms", pl.floor_ms ? json(*pl.floor_ms) : json(nullptr)},
                     {"bytes_moved", work.bytes},
                     {"reference_flops", work.flops ? json(*work.flops) : json(nullptr)},
                     {"inconsistencies", j.forgery},
                     {"contention", j.contention},
                     {"recheck_failures", j.recheck_failures}});
  if (j.speedup) j.evidence["speedup_measured"] = *j.speedup;
  if (!c.profile_error.empty()) j.evidence["profile_error"] = c.profile_error;
  if (!c.profile_method.empty()) j.evidence["profile_method"] = c.profile_method;
  if (j.implausible) j.evidence["implausible"] = j.implausible_why;
  if (j.lazy) j.evidence["lazy"] = j.lazy_why;
  AddParentClock(c, r, o, j);
  return j;
}

TimingRuling RuleOnTiming(const TimingJudgement& j, bool strict) {
  TimingRuling r;
  const auto joined = [](const std::vector<std::string>& v) {
    return fmt::format("{}", fmt::join(v, "; "));
  };
  if (!j.forgery.empty()) {
    r.incorrect = true;
    r.flags.push_back("timing_inconsistent");
    r.reasons.push_back({"timing_inconsistent", joined(j.forgery)});
  }
  if (!j.recheck_failures.empty()) {
    r.incorrect = true;
    r.reasons.push_back({"timed_output_mismatch", joined(j.recheck_failures)});
  }
  if (!j.audit_forbidden.empty()) {
    r.incorrect = true;
    r.reasons.push_back({"forbidden_aten_op", j.audit_forbidden});
  }
  if (!j.audit_held_tables.empty()) {
    r.incorrect = true;
    r.reasons.push_back({"constructor_table", j.audit_held_tables});
  }
  if (!j.audit_no_launch.empty()) {
    r.incorrect = true;
    r.reasons.push_back({"no_triton_launch", j.audit_no_launch});
  }
  if (!j.audit_state.empty()) {
    r.incorrect = true;
    r.reasons.push_back({"global_state_changed", j.audit_state});
  }
  for (const GuardFailure& g : j.audit_guards) {
    r.incorrect = true;
    r.reasons.push_back({g.code, g.message});
  }
  // Consistent with contention: the outcome stands, the speedup does not.
  if (!j.contention.empty()) r.flags.push_back("timing_contended");
  if (!j.parent_clock_gap.empty()) r.flags.push_back("parent_clock_gap");
  // As in the trials: torch or the host did (part of) the work of a call, or ATen compute ran.
  const bool torch_reason = std::any_of(r.reasons.begin(), r.reasons.end(), [](const auto& x) {
    return ReasonMeansTorchDidWork(x.code);
  });
  if ((j.audit_torch_did_work || torch_reason) && !j.lazy) r.flags.push_back("lazy_optimization");
  if (j.lazy) {
    r.flags.push_back("lazy_optimization");
    if (strict) {
      r.incorrect = true;
      r.reasons.push_back({"lazy_optimization", j.lazy_why});
    }
  }
  if (j.implausible) r.flags.push_back("implausible_speedup");
  const bool void_speedup = !j.contention.empty() || !j.parent_clock_gap.empty();
  if (!r.incorrect && !void_speedup) r.speedup = j.speedup;
  return r;
}

}  // namespace tritonrl::eval
