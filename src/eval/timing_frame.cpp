#include "eval/timing_frame.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace tritonrl::eval {
using nlohmann::json;

namespace {

std::vector<double> Numbers(const json& h, const char* key) {
  std::vector<double> out;
  auto it = h.find(key);
  if (it == h.end() || !it->is_array()) return out;
  for (const auto& v : *it) out.push_back(v.is_number() ? v.get<double>() : std::nan(""));
  return out;
}

// An engine clock kept with a cached reference: `size` finite times >= 0, else empty (the
// parent clock then goes without it, nothing else).
std::vector<double> EngineTimes(const json& j, const char* key, std::size_t size) {
  std::vector<double> t = Numbers(j, key);
  if (t.size() != size ||
      !std::all_of(t.begin(), t.end(), [](double x) { return std::isfinite(x) && x >= 0; }))
    t.clear();
  return t;
}

double Num(const json& h, const char* key, double fallback = 0) {
  auto it = h.find(key);
  return it != h.end() && it->is_number() ? it->get<double>() : fallback;
}

std::int64_t Int(const json& h, const char* key, std::int64_t fallback = 0) {
  auto it = h.find(key);
  return it != h.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

bool Bool(const json& h, const char* key, bool fallback) {
  auto it = h.find(key);
  return it != h.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

// Every event, wall and tail time is a finite, non-negative number of milliseconds.
bool TimesValid(const TimingPhase& p) {
  for (const auto* v : {&p.event_ms, &p.wall_ms, &p.tail_ms}) {
    for (double x : *v) {
      if (!std::isfinite(x) || x < 0 || x > 1e7) return false;
    }
  }
  return true;
}

std::string Str(const json& h, const char* key, std::size_t max = 300) {
  auto it = h.find(key);
  if (it == h.end() || !it->is_string()) return "";
  std::string s = it->get<std::string>();
  return s.size() > max ? s.substr(0, max) : s;
}

// How many timed calls a record says were covered (its "covered" list of booleans, one per
// call); -1 when absent or of another length.
int CoveredCalls(const json& h, std::size_t calls) {
  const auto it = h.find("covered");
  if (it == h.end() || !it->is_array() || it->size() != calls) return -1;
  int n = 0;
  for (const auto& c : *it) {
    if (!c.is_boolean()) return -1;
    n += c.get<bool>();
  }
  return n;
}

// The warm-up time, sizes and FLOPs a timing record carries (a frame and a cache entry alike).
void ReadSizes(const json& h, TimingPhase& p) {
  p.warmup_ms = Num(h, "warmup_ms");
  p.l2_bytes = Int(h, "l2_bytes");
  p.flush_bytes = Int(h, "flush_bytes");
  p.input_bytes = Int(h, "input_bytes");
  p.output_bytes = Int(h, "output_bytes");
  if (const double n_flops = Num(h, "flops"); n_flops > 0 && std::isfinite(n_flops))
    p.flops = n_flops;
}

}  // namespace

Result<TimingPhase> ParseTimingFrame(const Frame& f, const TimingOptions& o,
                                     bool allow_recheck_only) {
  const json& h = f.header;
  TimingPhase p;
  p.variant = Str(h, "variant", 64);
  p.event_ms = Numbers(h, "event_ms");
  p.wall_ms = Numbers(h, "wall_ms");
  p.tail_ms = Numbers(h, "tail_ms");
  p.recheck_only = Bool(h, "recheck_only", false);
  if (p.recheck_only && !allow_recheck_only)
    return Status::ParseError("timing frame: re-checks only, but timed calls were asked for");
  const std::size_t n = p.recheck_only ? 0 : o.seeds.size();
  if (p.event_ms.size() != n || p.wall_ms.size() != n || p.tail_ms.size() != n) {
    return Status::ParseError(fmt::format("timing frame: expected {} timed calls, got {}/{}/{}", n,
                                          p.event_ms.size(), p.wall_ms.size(), p.tail_ms.size()));
  }
  if (!TimesValid(p)) return Status::ParseError("timing frame: a time is not a finite ms value");
  p.stage_ms = Num(h, "stage_ms");
  ReadSizes(h, p);
  p.l2_persist_reset = Bool(h, "l2_persist_reset", false);
  if (auto it = h.find("tampered"); it != h.end() && it->is_array()) {
    for (const auto& t : *it)
      p.tampered.push_back(t.is_string() ? t.get<std::string>().substr(0, 80) : "?");
  } else {
    p.tampered.push_back("(missing)");
  }
  p.threads_before = static_cast<int>(Int(h, "threads_before", -1));
  p.threads_after = static_cast<int>(Int(h, "threads_after", -1));
  p.stream_changed = Bool(h, "stream_changed", true);
  p.audited_calls = static_cast<int>(Int(h, "audited_calls", -1));
  if (auto it = h.find("audited_forbidden_ops"); it != h.end() && it->is_array()) {
    for (const auto& op : *it) {
      if (p.audited_forbidden_ops.size() < 64)
        p.audited_forbidden_ops.push_back(op.is_string() ? op.get<std::string>().substr(0, 80)
                                                         : "?");
    }
  }
  if (auto it = h.find("audited_held_tables"); it != h.end() && it->is_array()) {
    for (const auto& t : *it) {
      if (p.audited_held_tables.size() < 8)
        p.audited_held_tables.push_back(t.is_string() ? t.get<std::string>().substr(0, 160) : "?");
    }
  }
  p.audited_without_launch = static_cast<int>(Int(h, "audited_without_launch", 0));
  p.audited_state_changed = static_cast<int>(Int(h, "audited_state_changed", 0));
  p.audit_intact = Bool(h, "audit_intact", false);
  if (auto it = h.find("audited_guards"); it != h.end() && it->is_object()) p.audited_guards = *it;
  if (auto it = h.find("audited_build_host_steps"); it != h.end()) p.audited_build_host_steps = *it;
  p.audit_ms = Numbers(h, "audit_ms");
  if (p.audit_ms.size() > o.seeds.size()) p.audit_ms.resize(o.seeds.size());
  p.covered_calls = CoveredCalls(h, n);
  MergeProfileFrame(f, p);
  p.recheck_trials = o.recheck_indices;
  auto rc = h.find("rechecks");
  if (rc == h.end() || !rc->is_array() || rc->size() > 64 * o.recheck_indices.size() + 64) {
    return Status::ParseError("timing frame: bad re-check list");
  }
  for (const auto& d : *rc) {
    if (!d.is_object()) return Status::ParseError("timing frame: bad re-check entry");
    RecheckSample r;
    r.trial = static_cast<int>(Int(d, "trial", -1));
    r.output = static_cast<int>(Int(d, "output", -1));
    r.type_ok = Bool(d, "type_ok", false);
    if (r.type_ok) {
      const auto dt = ParseDType(Str(d, "dtype", 20));
      if (!dt) return Status::ParseError("timing frame: re-check of an unsupported dtype");
      r.dtype = *dt;
      r.numel = Int(d, "numel", -1);
      if (auto sh = d.find("shape"); sh != d.end() && sh->is_array() && sh->size() <= 16) {
        for (const auto& x : *sh)
          r.shape.push_back(x.is_number_integer() ? x.get<std::int64_t>() : -1);
      }
      const std::int64_t off = Int(d, "offset", -1), nb = Int(d, "nbytes", -1);
      if (r.numel < 0 || off < 0 || nb < 0 ||
          static_cast<std::uint64_t>(off) + static_cast<std::uint64_t>(nb) > f.payload.size() ||
          static_cast<std::uint64_t>(nb) !=
              static_cast<std::uint64_t>(r.numel) * DTypeSize(r.dtype)) {
        return Status::ParseError("timing frame: re-check bytes do not match the declared size");
      }
      r.bytes = f.payload.substr(static_cast<std::size_t>(off), static_cast<std::size_t>(nb));
    }
    p.rechecks.push_back(std::move(r));
  }
  return p;
}

void MergeProfileFrame(const Frame& f, TimingPhase& p) {
  const json& h = f.header;
  if (auto it = h.find("kernel_share"); it != h.end() && it->is_number()) {
    p.kernel_share = std::clamp(it->get<double>(), 0.0, 1.0);
  }
  if (h.contains("own_kernel_ms")) p.own_kernel_ms = Num(h, "own_kernel_ms");
  if (h.contains("kernel_ms")) p.kernel_ms = Num(h, "kernel_ms");
  if (auto it = h.find("top_kernels"); it != h.end() && it->is_array() && it->size() <= 16)
    p.top_kernels = *it;
  if (h.contains("profile_error")) p.profile_error = Str(h, "profile_error");
  p.profile_method = Str(h, "profile_method", 16);
}

json ReferenceTimingToJson(const TimingPhase& p) {
  return {{"variant", p.variant},
          {"event_ms", p.event_ms},
          {"wall_ms", p.wall_ms},
          {"tail_ms", p.tail_ms},
          {"parent_ms", p.parent_ms},
          {"call_frame_ms", p.call_frame_ms},
          {"call_span_ms", p.call_span_ms},
          {"input_bytes", p.input_bytes},
          {"output_bytes", p.output_bytes},
          {"l2_bytes", p.l2_bytes},
          {"flush_bytes", p.flush_bytes},
          {"warmup_ms", p.warmup_ms},
          {"covered_calls", p.covered_calls},
          {"flops", p.flops ? json(*p.flops) : json(nullptr)},
          {"lease", LeaseToJson(p.lease)}};
}

json LeaseToJson(const LeaseFacts& l) {
  return {{"wait_ms", l.wait_ms},
          {"quiet", l.quiet},
          {"quiet_wait_ms", l.quiet_wait_ms},
          {"trials_in_flight_at_go", l.trials_in_flight_at_go},
          {"candidates_in_flight_at_go", l.candidates_in_flight_at_go},
          {"trials_started_while_timed", l.trials_started_while_timed},
          {"references_started_while_timed", l.references_started_while_timed}};
}

Result<TimingPhase> ReferenceTimingFromJson(const json& j) {
  if (!j.is_object()) return Status::Corruption("cached reference timing: not a JSON object");
  TimingPhase p;
  p.variant = Str(j, "variant", 64);
  p.event_ms = Numbers(j, "event_ms");
  p.wall_ms = Numbers(j, "wall_ms");
  p.tail_ms = Numbers(j, "tail_ms");
  if (p.variant.empty() || p.event_ms.empty() || p.event_ms.size() != p.wall_ms.size() ||
      p.event_ms.size() != p.tail_ms.size()) {
    return Status::Corruption("cached reference timing: missing or mismatched fields");
  }
  if (!TimesValid(p)) return Status::Corruption("cached reference timing: bad time");
  p.parent_ms = Num(j, "parent_ms");
  // The engine's clock of the reference's calls (the parent clock's baseline); an entry without
  // a usable one leaves the parent clock unmeasured, nothing else.
  p.call_frame_ms = EngineTimes(j, "call_frame_ms", p.event_ms.size() + 1);
  p.call_span_ms = EngineTimes(j, "call_span_ms", p.event_ms.size());
  ReadSizes(j, p);
  p.covered_calls = static_cast<int>(Int(j, "covered_calls", -1));
  // What the lease saw while these times were measured (not the run that reads them back).
  if (const auto l = j.find("lease"); l != j.end() && l->is_object()) {
    p.lease.wait_ms = Num(*l, "wait_ms");
    p.lease.quiet = Bool(*l, "quiet", false);
    p.lease.quiet_wait_ms = Num(*l, "quiet_wait_ms");
    p.lease.trials_in_flight_at_go = static_cast<int>(Int(*l, "trials_in_flight_at_go"));
    p.lease.candidates_in_flight_at_go = static_cast<int>(Int(*l, "candidates_in_flight_at_go"));
    p.lease.trials_started_while_timed = static_cast<int>(Int(*l, "trials_started_while_timed"));
    p.lease.references_started_while_timed =
        static_cast<int>(Int(*l, "references_started_while_timed"));
  }
  p.from_cache = true;
  return p;
}

}  // namespace tritonrl::eval
