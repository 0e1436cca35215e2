#include "eval/timing.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "eval/roofline.h"

namespace tritonrl::eval {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}

// One mutex per lease key, alive for the process (keys are few: one per GPU).
std::timed_mutex* KeyMutex(const std::string& key) {
  static std::map<std::string, std::unique_ptr<std::timed_mutex>> mutexes;
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto& m = mutexes[key];
  if (!m) m = std::make_unique<std::timed_mutex>();
  return m.get();
}

std::string SafeKey(const std::string& key) {
  std::string out;
  for (char c : key)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "gpu" : out;
}

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

// The finite values, ascending (what every statistic here is taken over).
std::vector<double> SortedFinite(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  std::sort(v.begin(), v.end());
  return v;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return Quantile(v, 0.5);
}

std::vector<double> Numbers(const json& h, const char* key) {
  std::vector<double> out;
  auto it = h.find(key);
  if (it == h.end() || !it->is_array()) return out;
  for (const auto& v : *it) out.push_back(v.is_number() ? v.get<double>() : std::nan(""));
  return out;
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

}  // namespace

double QuantileStandardError(std::vector<double> values, double q) {
  const std::vector<double> v = SortedFinite(std::move(values));
  if (v.size() < 2) return 0;
  const double step = std::sqrt(q * (1 - q) / static_cast<double>(v.size()));
  return (Quantile(v, std::min(1.0, q + step)) - Quantile(v, std::max(0.0, q - step))) / 2;
}

void DrawTimingPlan(TimingOptions& o, std::uint64_t secret) {
  std::mt19937_64 rng(secret);
  o.seeds.clear();
  for (int i = 0; i < o.trials; ++i) o.seeds.push_back(static_cast<std::int64_t>(rng() >> 2));
  o.input_seed = static_cast<std::int64_t>(rng() >> 2);
  std::vector<int> idx(static_cast<std::size_t>(o.trials));
  std::iota(idx.begin(), idx.end(), 0);
  std::shuffle(idx.begin(), idx.end(), rng);
  idx.resize(static_cast<std::size_t>(std::clamp(o.recheck, 1, std::max(o.trials, 1))));
  std::sort(idx.begin(), idx.end());
  o.recheck_indices = idx;
  o.sample_seeds.clear();
  for (int i = 0; i < o.trials; ++i)
    o.sample_seeds.push_back(static_cast<std::int64_t>(rng() >> 2));
  o.warmup_seeds.clear();
  for (int i = 0; i < std::max(o.warmup, 1); ++i)
    o.warmup_seeds.push_back(static_cast<std::int64_t>(rng() >> 2));
  // Null calls at secret positions among the timed ones: one per two timed calls, at least ten.
  // The engine's clock of a call is a difference of two lower quartiles (MeasureParentCallClock);
  // with few nulls theirs was the noisier one (measured on the H200: 3 nulls left 0.1 ms of noise
  // under load). A null cycle costs well under a millisecond.
  const int nulls = o.trials > 0 ? std::max(10, o.trials / 2) : 0;
  std::vector<int> is_null(static_cast<std::size_t>(o.trials + nulls), 0);
  std::fill(is_null.begin(), is_null.begin() + nulls, 1);
  std::shuffle(is_null.begin(), is_null.end(), rng);
  o.call_order.clear();
  int next = 0;
  for (int n : is_null) o.call_order.push_back(n ? -1 : next++);
}

int TimedPositions(const TimingOptions& o) {
  return o.call_order.empty() ? static_cast<int>(o.seeds.size())
                              : static_cast<int>(o.call_order.size());
}

int ModelCallAt(const TimingOptions& o, int position) {
  if (position < 0 || position >= TimedPositions(o)) return -1;
  return o.call_order.empty() ? position : o.call_order[static_cast<std::size_t>(position)];
}

std::string TimedVariant(const std::vector<std::string>& variants) {
  if (std::find(variants.begin(), variants.end(), "large") != variants.end()) return "large";
  return variants.empty() ? "default" : variants.back();
}

json TimingRequest(const TimingOptions& o, const std::string& variant) {
  return {{"variant", variant},
          {"input_seed", o.input_seed},
          {"warmup", o.warmup},
          {"sample_count", o.sample_count},
          {"profile_calls", o.profile_calls},
          {"baseline", o.baseline}};
}

json TimingPlan(const TimingOptions& o) {
  return {{"seeds", o.seeds},
          {"recheck", o.recheck_indices},
          {"sample_seeds", o.sample_seeds},
          {"warmup_seeds", o.warmup_seeds}};
}

json CandidateTimingPlan(const TimingOptions& o) {
  return {{"warmup_seeds", o.warmup_seeds}, {"calls", TimedPositions(o)}};
}

json CallAnswer(const TimingOptions& o, int index) {
  json a = {{"type", "call"}, {"index", index}, {"recheck_prev", false}, {"null", false}};
  const int call = ModelCallAt(o, index);
  if (index < 0 || index >= TimedPositions(o)) {
    a["seed"] = nullptr;
  } else if (call < 0) {  // a null call: inputs are made as for any call, then not used
    a["null"] = true;
    a["seed"] = o.warmup_seeds.empty()
                    ? std::int64_t{0}
                    : o.warmup_seeds[static_cast<std::size_t>(index) % o.warmup_seeds.size()];
  } else {
    a["seed"] = static_cast<std::size_t>(call) < o.seeds.size()
                    ? json(o.seeds[static_cast<std::size_t>(call)])
                    : json(nullptr);
  }
  const int prev = ModelCallAt(o, index - 1);
  if (prev >= 0 && std::binary_search(o.recheck_indices.begin(), o.recheck_indices.end(), prev) &&
      static_cast<std::size_t>(prev) < o.sample_seeds.size()) {
    a["recheck_prev"] = true;
    a["sample_seed"] = o.sample_seeds[static_cast<std::size_t>(prev)];
  }
  return a;
}

// ---- the lease ----

TimingLease::TimingLease(TimingLease&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      mutex_(std::exchange(other.mutex_, nullptr)),
      wait_ms_(other.wait_ms_) {}

TimingLease& TimingLease::operator=(TimingLease&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    mutex_ = std::exchange(other.mutex_, nullptr);
    wait_ms_ = other.wait_ms_;
  }
  return *this;
}

TimingLease::~TimingLease() {
  Release();
}

void TimingLease::Release() {
  if (fd_ >= 0) {
    flock(fd_, LOCK_UN);
    close(fd_);
    fd_ = -1;
  }
  if (mutex_ != nullptr) {
    static_cast<std::timed_mutex*>(mutex_)->unlock();
    mutex_ = nullptr;
  }
}

Result<TimingLease> AcquireTimingLease(const std::string& lock_dir, const std::string& key) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string dir = lock_dir;
  if (dir.empty()) {
    const char* env = std::getenv("TRITONRL_LOCK_DIR");
    dir = env && *env ? env : "/tmp";
  }
  const std::string path =
      (fs::path(dir) / fmt::format("tritonrl-timing-{}.lock", SafeKey(key))).string();
  std::timed_mutex* mu = KeyMutex(key);
  mu->lock();  // threads of this process first: one flock per process at a time
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    mu->unlock();
    return Status::IoError(
        fmt::format("{}: cannot open the timing lock: {}", path, std::strerror(errno)));
  }
  while (flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int err = errno;
      close(fd);
      mu->unlock();
      return Status::IoError(fmt::format("{}: flock: {}", path, std::strerror(err)));
    }
  }
  TimingLease lease;
  lease.fd_ = fd;
  lease.mutex_ = mu;
  lease.wait_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return lease;
}

// ---- statistics ----

Stats Summarize(std::vector<double> values) {
  Stats s;
  const std::vector<double> v = SortedFinite(std::move(values));
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  s.min = v.front();
  s.max = v.back();
  s.median = Quantile(v, 0.5);
  s.p25 = Quantile(v, 0.25);
  s.p75 = Quantile(v, 0.75);
  s.iqr = s.p75 - s.p25;
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0.0;
  return s;
}

json ToJson(const Stats& s) {
  return {{"n", s.n},       {"median", s.median}, {"p25", s.p25}, {"p75", s.p75}, {"iqr", s.iqr},
          {"mean", s.mean}, {"stddev", s.stddev}, {"cv", s.cv},   {"min", s.min}, {"max", s.max}};
}

// ---- the frame ----

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
  p.warmup_ms = Num(h, "warmup_ms");
  p.l2_bytes = Int(h, "l2_bytes");
  p.flush_bytes = Int(h, "flush_bytes");
  p.input_bytes = Int(h, "input_bytes");
  p.output_bytes = Int(h, "output_bytes");
  if (const double n_flops = Num(h, "flops"); n_flops > 0 && std::isfinite(n_flops))
    p.flops = n_flops;
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
}

// ---- checks ----

std::vector<std::string> CheckConsistency(const TimingPhase& p, const TimingTolerance& tol) {
  std::vector<std::string> bad;
  if (!p.tampered.empty())
    bad.push_back(fmt::format("timers replaced: {}", fmt::join(p.tampered, ", ")));
  if (p.stream_changed) bad.push_back("forward left a different current CUDA stream");
  if (p.threads_before >= 0 && p.threads_after > p.threads_before) {
    bad.push_back(
        fmt::format("threads started during timing: {} -> {}", p.threads_before, p.threads_after));
  }
  if (p.event_ms.empty()) return bad;
  const double ev = Median(p.event_ms), wall = Median(p.wall_ms);
  // Work still running after the end event completed: side streams, work queued after return.
  int over = 0, checked = 0;
  for (std::size_t i = 0; i < p.tail_ms.size(); ++i) {
    ++checked;
    if (p.tail_ms[i] > tol.tail_abs_ms + tol.tail_rel * p.event_ms[i]) ++over;
  }
  if (over > tol.tail_trial_share * static_cast<double>(checked)) {
    bad.push_back(fmt::format(
        "device busy after the end event in {}/{} calls (median tail {:.4f} ms, event {:.4f} ms)",
        over, checked, Median(p.tail_ms), ev));
  }
  // Hidden work widens every call's gap between the synchronised clock and the events; a
  // host thread descheduled under load (other workers compiling) widens only some. So the
  // gap is judged at its lower quartile over the calls, not at the median.
  std::vector<double> gaps;
  for (std::size_t i = 0; i < p.event_ms.size() && i < p.wall_ms.size(); ++i)
    gaps.push_back(p.wall_ms[i] - p.event_ms[i]);
  std::sort(gaps.begin(), gaps.end());
  const double gap = gaps.empty() ? 0.0 : Quantile(gaps, tol.wall_gap_quantile);
  if (gap > tol.wall_gap_abs_ms + tol.wall_gap_rel * ev) {
    bad.push_back(fmt::format(
        "device-synchronised clock {:.4f} ms vs CUDA events {:.4f} ms (median; lower-quartile "
        "gap {:.4f} ms)",
        wall, ev, gap));
  }
  int event_over = 0;
  for (std::size_t i = 0; i < p.event_ms.size(); ++i) {
    if (p.event_ms[i] > p.wall_ms[i] * (1 + tol.event_over_wall_rel) + tol.event_over_wall_abs_ms)
      ++event_over;
  }
  if (event_over > 0)
    bad.push_back(fmt::format("{} event times exceed their synchronised wall window", event_over));
  const double sum_wall = std::accumulate(p.wall_ms.begin(), p.wall_ms.end(), 0.0);
  const double sum_ev = std::accumulate(p.event_ms.begin(), p.event_ms.end(), 0.0);
  if (p.parent_ms > 0 && std::max(sum_wall, sum_ev) > p.parent_ms + tol.parent_slack_ms) {
    bad.push_back(
        fmt::format("reported {:.3f} ms of timed calls in a phase the engine clocked at {:.3f} ms",
                    std::max(sum_wall, sum_ev), p.parent_ms));
  }
  return bad;
}

std::vector<std::string> CheckRechecks(const TimingPhase& c, const TimingPhase& r,
                                       const Tolerance& tolerance) {
  std::vector<std::string> bad;
  std::map<std::pair<int, int>, const RecheckSample*> ref;
  for (const auto& s : r.rechecks) ref[{s.trial, s.output}] = &s;
  std::size_t matched = 0;
  for (const auto& s : c.rechecks) {
    auto it = ref.find({s.trial, s.output});
    if (it == ref.end()) {
      bad.push_back(fmt::format("timed call {} output {}: not expected", s.trial, s.output));
      continue;
    }
    ++matched;
    const RecheckSample& rs = *it->second;
    if (!s.type_ok) {
      bad.push_back(
          fmt::format("timed call {} output {}: not exactly torch.Tensor", s.trial, s.output));
      continue;
    }
    if (s.shape != rs.shape) {
      bad.push_back(fmt::format("timed call {} output {}: shape differs", s.trial, s.output));
      continue;
    }
    const CompareResult cr =
        CompareTensor({s.dtype, {s.numel}, s.bytes}, {rs.dtype, {rs.numel}, rs.bytes}, tolerance);
    if (!cr.ok)
      bad.push_back(fmt::format("timed call {} output {}: {}", s.trial, s.output, cr.message));
  }
  if (matched != r.rechecks.size()) {
    bad.push_back(fmt::format("{} of {} re-checked outputs missing", r.rechecks.size() - matched,
                              r.rechecks.size()));
  }
  return bad;
}

TimingJudgement JudgeTiming(const TimingPhase& c, const TimingPhase& r, const TimingOptions& o,
                            const Tolerance& tolerance, const std::string& device_model,
                            const TimingTolerance& tol) {
  TimingJudgement j;
  const Stats ce = Summarize(c.event_ms), cw = Summarize(c.wall_ms), re = Summarize(r.event_ms);
  j.inconsistent = CheckConsistency(c, tol);
  j.recheck_failures = CheckRechecks(c, r, tolerance);
  if (c.variant != r.variant)
    j.inconsistent.push_back("timed variant differs from the reference's");
  if (ce.median > 0 && re.median > 0) j.speedup = re.median / ce.median;
  if (c.kernel_share) j.lazy = *c.kernel_share < o.lazy_threshold;
  WorkSize work;
  work.bytes = static_cast<double>(r.input_bytes + r.output_bytes);
  work.flops = r.flops;  // counted by the reference worker, never taken from the candidate
  const Plausibility pl = CheckPlausibility(ce.median, j.speedup.value_or(0), work,
                                            PeaksFor(device_model), o.speedup_cap);
  j.implausible = pl.implausible;
  j.implausible_why = pl.why;
  j.evidence = {{"variant", c.variant},
                {"baseline", o.baseline},
                {"trials", c.event_ms.size()},
                {"candidate_event_ms", ToJson(ce)},
                {"candidate_wall_ms", ToJson(cw)},
                {"candidate_tail_ms", ToJson(Summarize(c.tail_ms))},
                {"reference_event_ms", ToJson(re)},
                {"reference_wall_ms", ToJson(Summarize(r.wall_ms))},
                {"parent_phase_ms", c.parent_ms},
                {"reference_parent_phase_ms", r.parent_ms},
                {"reference_timing_cached", r.from_cache},
                {"lease_wait_ms", c.lease_wait_ms},
                {"warmup_ms", c.warmup_ms},
                {"l2_bytes", c.l2_bytes},
                {"flush_bytes", c.flush_bytes},
                {"l2_persist_reset", c.l2_persist_reset},
                {"rechecked_calls", o.recheck_indices.size()},
                {"kernel_share", c.kernel_share ? json(*c.kernel_share) : json(nullptr)},
                {"own_kernel_ms", c.own_kernel_ms},
                {"kernel_ms", c.kernel_ms},
                {"top_kernels", c.top_kernels},
                {"lazy_threshold", o.lazy_threshold},
                {"roofline_floor_ms", pl.floor_ms ? json(*pl.floor_ms) : json(nullptr)},
                {"bytes_moved", work.bytes},
                {"reference_flops", work.flops ? json(*work.flops) : json(nullptr)},
                {"inconsistencies", j.inconsistent},
                {"recheck_failures", j.recheck_failures}};
  if (!c.profile_error.empty()) j.evidence["profile_error"] = c.profile_error;
  if (j.implausible) j.evidence["implausible"] = j.implausible_why;
  return j;
}

std::optional<ParentCallClock> MeasureParentCallClock(const std::vector<double>& call_frame_ms,
                                                      const std::vector<double>& wall_ms,
                                                      const TimingOptions& o) {
  const int positions = TimedPositions(o);
  if (wall_ms.empty() || call_frame_ms.size() != static_cast<std::size_t>(positions) + 1)
    return std::nullopt;
  ParentCallClock out;
  auto& cycle = out.timed_cycles_ms;
  auto& null_cycle = out.null_cycles_ms;
  std::vector<double> unexplained;
  for (int p = 0; p < positions; ++p) {
    const double c =
        call_frame_ms[static_cast<std::size_t>(p) + 1] - call_frame_ms[static_cast<std::size_t>(p)];
    const int call = ModelCallAt(o, p);
    if (call < 0) {
      null_cycle.push_back(c);
      continue;
    }
    if (static_cast<std::size_t>(call) >= wall_ms.size()) return std::nullopt;
    cycle.push_back(c);
    unexplained.push_back(c - wall_ms[static_cast<std::size_t>(call)]);
  }
  if (cycle.size() != wall_ms.size()) return std::nullopt;
  out.cycle_ms = Summarize(cycle);
  out.unexplained_ms = Summarize(std::move(unexplained));
  out.null_cycle_ms = Summarize(null_cycle);
  if (out.null_cycle_ms.n > 0) {
    // Lower quartiles: a stalled host (preemption, other workers compiling) only adds time to a
    // cycle, so they track the undisturbed cycle where medians moved with the load. The two sets
    // are independent: their standard errors add in quadrature.
    out.call_ms = out.cycle_ms.p25 - out.null_cycle_ms.p25;
    const double a = QuantileStandardError(cycle, 0.25),
                 b = QuantileStandardError(null_cycle, 0.25);
    out.call_se_ms = std::sqrt(a * a + b * b);
  }
  return out;
}

std::string CheckParentClock(const ParentCallClock& clock, const std::vector<double>& wall_ms,
                             const ParentClockTolerance& tol) {
  if (!clock.call_ms || wall_ms.empty()) return "";
  const double reported = Median(wall_ms);
  const double slack =
      std::max({tol.abs_ms, tol.rel * *clock.call_ms, tol.standard_errors * clock.call_se_ms});
  if (reported >= *clock.call_ms - slack) return "";
  return fmt::format(
      "parent_clock: the engine clocked {:.4f} ms per call (lower quartiles: timed cycle {:.4f} ms "
      "- null cycle {:.4f} ms; standard error {:.4f} ms), the worker reported {:.4f} ms (median)",
      *clock.call_ms, clock.cycle_ms.p25, clock.null_cycle_ms.p25, clock.call_se_ms, reported);
}

std::chrono::milliseconds CandidateTimingBudget(const TimingOptions& o, double reference_phase_ms) {
  if (!(reference_phase_ms > 0) || !std::isfinite(reference_phase_ms) || !(o.slow_factor > 0))
    return o.timeout;
  const double ms =
      std::max(static_cast<double>(o.slow_floor.count()), o.slow_factor * reference_phase_ms);
  if (ms >= static_cast<double>(o.timeout.count())) return o.timeout;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(ms)));
}

json ReferenceTimingToJson(const TimingPhase& p) {
  return {{"variant", p.variant},
          {"event_ms", p.event_ms},
          {"wall_ms", p.wall_ms},
          {"tail_ms", p.tail_ms},
          {"parent_ms", p.parent_ms},
          {"input_bytes", p.input_bytes},
          {"output_bytes", p.output_bytes},
          {"l2_bytes", p.l2_bytes},
          {"flush_bytes", p.flush_bytes},
          {"warmup_ms", p.warmup_ms},
          {"flops", p.flops ? json(*p.flops) : json(nullptr)}};
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
  p.input_bytes = Int(j, "input_bytes");
  p.output_bytes = Int(j, "output_bytes");
  p.l2_bytes = Int(j, "l2_bytes");
  p.flush_bytes = Int(j, "flush_bytes");
  p.warmup_ms = Num(j, "warmup_ms");
  if (const double n_flops = Num(j, "flops"); n_flops > 0 && std::isfinite(n_flops))
    p.flops = n_flops;
  p.from_cache = true;
  return p;
}

}  // namespace tritonrl::eval
