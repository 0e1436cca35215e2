#include "eval/worker_driver.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "eval/json_get.h"
#include "eval/schedule.h"
#include "eval/timing.h"
#include "eval/worker_spawn.h"

namespace tritonrl::eval {
using nlohmann::json;

const char* StateName(WorkerState state) {
  switch (state) {
    case WorkerState::kStartup:
      return "startup";
    case WorkerState::kImport:
      return "import";
    case WorkerState::kBuild:
      return "build";
    case WorkerState::kTrial:
    case WorkerState::kSlices:
      return "trial";
    case WorkerState::kTimingReady:
      return "timing_ready";
    case WorkerState::kTiming:
      return "timing";
    case WorkerState::kProfile:
      return "profile";
    case WorkerState::kDone:
      return "done";
  }
  return "?";
}

namespace {

std::string LogTail(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - 1500);
  in.seekg(from);
  std::string s(static_cast<std::size_t>(size - from), '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

// Why the sequence stopped; nullopt from a state function means "read the next frame".
struct Stop {
  WorkerEnd end;
  std::string detail;
};
using Step = std::optional<Stop>;

class Driver {
 public:
  Driver(const EngineConfig& cfg, const json& request, const ReferenceResult* reference,
         TrialSink& sink, Child& child, WorkerRun& run)
      : cfg_(cfg),
        reference_(reference),
        // Every timed phase goes call by call, the reference's too (the same cycle on both sides
        // is the parent clock's baseline); only a reference that re-checks for cached timings
        // gets the whole plan at once.
        per_call_(!(request.contains("timing") && request["timing"].is_object() &&
                    request["timing"].value("recheck_only", false))),
        sink_(sink),
        child_(child),
        run_(run),
        // A candidate's timed phase may last a multiple of the reference's (the lease is the one
        // serialised resource); the reference's own phase is bounded by the timeout alone.
        timing_limit_(reference != nullptr && reference->timing
                          ? CandidateTimingBudget(cfg.timing, reference->timing->parent_ms)
                          : cfg.timing.timeout),
        idle_limit_(reference != nullptr ? IdleLimit(cfg, *reference)
                                         : std::chrono::milliseconds(0)) {}

  Stop Run(const json& request) {
    // A candidate's code runs from its import on: its ticket is held from here to its own lease,
    // given up only where its worker waits for a frame (a trial's seed), so a quiet lease (every
    // reference's) never times beside a candidate's import or constructor (timing_lease.h).
    if (candidate()) trial_ticket_ = EnterTrial(cfg_.timing.device_key, /*candidate=*/true);
    Send(request);
    frame_t_ = Clock::now();
    for (;;) {
      const Clock::time_point deadline =
          send_failed_until_ ? std::min(Deadline(), *send_failed_until_) : Deadline();
      const ReadResult rr = ReadFrameUntil(child_.from_child, buffer_, deadline);
      if (rr.kind == ReadKind::kTimeout && send_failed_until_ &&
          Clock::now() >= *send_failed_until_)
        return {WorkerEnd::kEof, send_error_};
      if (rr.kind == ReadKind::kTimeout) return OnTimeout();
      if (rr.kind == ReadKind::kEof)
        return {WorkerEnd::kEof, send_failed_until_ ? send_error_ : rr.error};
      if (rr.kind == ReadKind::kMalformed) return {WorkerEnd::kMalformed, rr.error};
      const std::string type = GetString(rr.frame.header, "type");
      if (type == "error") {
        run_.error_frame = rr.frame;
        return {WorkerEnd::kError, ""};
      }
      if (type == "progress") {  // moves the idle deadline only; the stage's limit stays put
        OnProgress(rr.frame);
        continue;
      }
      if (Step s = Dispatch(rr.frame)) return *s;
      frame_t_ = Clock::now();
      compiling_ = false;
    }
  }

  WorkerState state() const { return state_; }

 private:
  // Driving a candidate: it has its task's reference (the trials to run are those it ran).
  bool candidate() const { return reference_ != nullptr; }

  Step Dispatch(const Frame& f) {
    switch (state_) {
      case WorkerState::kStartup:
        return OnStartup(f);
      case WorkerState::kImport:
        return OnImport(f);
      case WorkerState::kBuild:
        return OnBuild(f);
      case WorkerState::kTrial:
        return OnTrial(f);
      case WorkerState::kSlices:
        return OnSlice(f);
      case WorkerState::kTimingReady:
        return OnTimingReady(f);
      case WorkerState::kTiming:
        return OnTiming(f);
      case WorkerState::kProfile:
        return OnProfile(f);
      case WorkerState::kDone:
        return OnDone(f);
    }
    return Stop{WorkerEnd::kProtocol, "unknown state"};
  }

  // At least EngineConfig::trial_idle_timeout, 20x the reference's forward time and 2x the
  // reference worker's whole run (it built the same model and made the same inputs: a big task's
  // stages may take long without compiling anything); zero (no idle deadline) when that is off.
  static std::chrono::milliseconds IdleLimit(const EngineConfig& cfg, const ReferenceResult& ref) {
    if (cfg.trial_idle_timeout.count() <= 0) return std::chrono::milliseconds(0);
    const auto forward = ref.phase_ms.find("forward");
    double scaled = 2 * ref.ms;
    if (forward != ref.phase_ms.end()) scaled = std::max(scaled, 20 * forward->second);
    return std::max(cfg.trial_idle_timeout,
                    std::chrono::milliseconds(static_cast<long long>(std::min(scaled, 1e9))));
  }

  // The limit of the current stage, counted from the last protocol frame.
  std::chrono::milliseconds StageLimit() const {
    return state_ == WorkerState::kStartup   ? cfg_.startup_timeout
           : state_ == WorkerState::kImport  ? cfg_.import_timeout
           : state_ == WorkerState::kBuild   ? cfg_.build_timeout
           : state_ == WorkerState::kProfile ? cfg_.timing.timeout
                                             : cfg_.trial_timeout;
  }

  Clock::time_point Deadline() const {
    // The timed phase has one deadline however many frames it takes, and so have a trial's slices.
    if (state_ == WorkerState::kTiming) return go_t0_ + timing_limit_;
    if (state_ == WorkerState::kSlices) return slices_deadline_;
    const Clock::time_point cap = frame_t_ + StageLimit();
    if (!IdleApplies() || compiling_) return cap;
    return std::min(cap, std::max(frame_t_, progress_t_) + idle_limit_);
  }

  // A candidate's import, build and trials stop early when nothing happens: no frame and no
  // Triton compile for idle_limit_ (a hung kernel or a spinning loop costs that, not the whole
  // stage limit). A compile in progress gets the stage limit.
  bool IdleApplies() const {
    return idle_limit_.count() > 0 &&
           (state_ == WorkerState::kImport || state_ == WorkerState::kBuild ||
            state_ == WorkerState::kTrial);
  }

  // The worker's Triton compile hooks (worker.py) say when a compile starts and ends, and its
  // launch recorder that launches go on (at most once a second). The candidate can forge these
  // frames, which buys at most the stage limit it would have had anyway; in the timing stage a
  // launch report only tells a slow phase from a hung one (OnTimeout).
  void OnProgress(const Frame& f) {
    const std::string what = GetString(f.header, "what");
    if (what == "launches" && state_ == WorkerState::kTiming) {
      timing_launch_t_ = Clock::now();
      return;
    }
    if (!IdleApplies()) return;
    if (what == "launches") {
      progress_t_ = Clock::now();
      return;
    }
    if (what != "compile_start" && what != "compile_end") return;
    compiling_ = what == "compile_start";
    progress_t_ = Clock::now();
  }

  // A frame of the expected type (and stage), or a protocol violation.
  Step Expect(const Frame& f, const char* want, const char* stage = nullptr) const {
    const std::string type = GetString(f.header, "type");
    if (type == want && (stage == nullptr || GetString(f.header, "stage") == stage))
      return std::nullopt;
    return Stop{WorkerEnd::kProtocol,
                fmt::format("expected a '{}' frame while in stage {}, got '{}'", want,
                            StateName(state_), Truncate(type, 40))};
  }

  // Books the time since the last frame to the current stage and hands the frame to the sink.
  Step Accept(const Frame& f) {
    run_.stage_ms[StateName(state_)] += MsSince(stage_t0_);
    stage_t0_ = Clock::now();
    run_.frames.push_back(f);
    return FromSink(sink_.OnFrame(f));
  }

  static Step FromSink(const Status& s) {
    if (s.ok()) return std::nullopt;
    const WorkerEnd end = s.code() == StatusCode::kUnavailable  ? WorkerEnd::kResource
                          : s.code() == StatusCode::kParseError ? WorkerEnd::kProtocol
                                                                : WorkerEnd::kInfra;
    return Stop{end, s.message()};
  }

  // At most 16 names of at most 32 characters, finite non-negative numbers: a diagnostic that a
  // candidate's worker cannot grow without bound.
  void AddPhase(const std::string& name, const json& ms) {
    if (!ms.is_number() || name.empty() || name.size() > 32) return;
    const double v = ms.get<double>();
    if (!std::isfinite(v) || v < 0) return;
    if (!run_.phase_ms.count(name) && run_.phase_ms.size() >= 16) return;
    run_.phase_ms[name] += v;
  }

  // A write to a worker that died or closed its request pipe fails. Such a worker usually said
  // why, or broke the protocol, on its result pipe first: the frames in flight are still read
  // and judged (for at most kAfterFailedSend), so the verdict is the same whichever side noticed
  // first. Otherwise its exit status tells why, as for EOF.
  void Send(const json& header) {
    Status s = WriteAll(child_.to_child, EncodeFrame(header));
    if (!s.ok() && !send_failed_until_) {
      send_failed_until_ = Clock::now() + kAfterFailedSend;
      send_error_ = s.message();
    }
  }

  // A candidate learns each trial's seed just before that trial (the secret one included), so
  // no future input is in its memory while its constructor or an earlier call runs.
  void SendSeed() {
    if (!candidate()) return;
    // The trial may use the GPU from here to its last slice (the worker copies each slice from
    // the device as it sends it). A quiet timed phase holds it back first; the previous ticket
    // goes before, or a quiet lease waiting for it would wait for this thread.
    trial_ticket_.Release();
    trial_ticket_ = EnterTrial(cfg_.timing.device_key, /*candidate=*/true);
    const int index = variant_trials_[trial_at_];
    Send({{"type", "seed"},
          {"variant", variant_names_[variant_at_]},
          {"index", index},
          {"seed", cfg_.schedule[static_cast<std::size_t>(index)].seed}});
  }

  Step OnStartup(const Frame& f) {
    if (!hello_) {
      if (Step s = Expect(f, "hello"); s || (s = Accept(f))) return s;
      hello_ = true;
      return std::nullopt;
    }
    if (Step s = Expect(f, "variants"); s || (s = Accept(f))) return s;
    variant_names_ = GetStrings(f.header, "variants");
    if (variant_names_.empty() || variant_names_.size() > 16)
      return Stop{WorkerEnd::kProtocol, "bad variant list"};
    AddPhase("device_init", f.header.value("device_init_ms", json()));
    state_ = candidate() ? WorkerState::kImport : WorkerState::kBuild;
    return std::nullopt;
  }

  Step OnImport(const Frame& f) {
    if (Step s = Expect(f, "stage", "import"); s || (s = Accept(f))) return s;
    state_ = WorkerState::kBuild;
    return std::nullopt;
  }

  Step OnBuild(const Frame& f) {
    if (Step s = Expect(f, "stage", "build"); s || (s = Accept(f))) return s;
    if (variant_at_ >= variant_names_.size())
      return Stop{WorkerEnd::kProtocol, "a build stage beyond the variant list"};
    variant_trials_ = candidate() ? RecordedTrials(*reference_, variant_names_[variant_at_])
                                  : TrialIndicesFor(cfg_, variant_names_[variant_at_]);
    // A reference runs its trials on its own: counted from its first build to its timing stage.
    if (!candidate() && !trial_ticket_.held())
      trial_ticket_ = EnterTrial(cfg_.timing.device_key, /*candidate=*/false);
    trial_at_ = 0;
    if (variant_trials_.empty()) return NextVariant();
    state_ = WorkerState::kTrial;
    SendSeed();
    return std::nullopt;
  }

  Step OnTrial(const Frame& f) {
    if (Step s = Expect(f, "trial"); s || (s = Accept(f))) return s;
    if (Step s = OnReferencePlan(f.header)) return s;
    auto cursor = SliceCursor::FromTrialHeader(f.header);
    if (!cursor.ok())
      return Stop{WorkerEnd::kProtocol, "trial outputs: " + cursor.status().message()};
    if (const auto p = f.header.find("phase_ms"); p != f.header.end() && p->is_object()) {
      for (const auto& [name, ms] : p->items()) AddPhase(name, ms);
    }
    cursor_ = std::move(*cursor);
    if (Step s = StopIfFailed()) return s;  // its output bytes would change nothing
    if (cursor_.done()) return EndTrial();
    state_ = WorkerState::kSlices;
    slices_deadline_ = Clock::now() + cfg_.trial_timeout;
    return std::nullopt;
  }

  // The reference's first trial of a variant may say that its outputs were large
  // (EngineConfig::large_output_bytes): the variant then runs the large variant's trials only, the
  // one alternative accepted.
  Step OnReferencePlan(const json& h) {
    const auto plan = h.find("variant_trials");
    if (plan == h.end()) return std::nullopt;
    std::vector<int> large = TrialIndicesFor(cfg_, "large");
    if (candidate() || trial_at_ != 0 || cfg_.large_output_bytes == 0 || !plan->is_array() ||
        *plan != json(large))
      return Stop{WorkerEnd::kProtocol, "an unexpected trial plan in a trial frame"};
    variant_trials_ = std::move(large);
    return std::nullopt;
  }

  Step OnSlice(const Frame& f) {
    if (Step s = Expect(f, "slice")) return s;
    auto at = cursor_.Next(f.header, f.payload.size());
    if (!at.ok()) return Stop{WorkerEnd::kProtocol, at.status().message()};
    run_.stage_ms["trial"] += MsSince(stage_t0_);
    stage_t0_ = Clock::now();
    if (Step s = FromSink(sink_.OnSlice(at->output, at->offset, f.payload))) return s;
    return cursor_.done() ? EndTrial() : std::nullopt;
  }

  Step EndTrial() {
    // A candidate's ticket stays: the worker builds the next variant's model, or the timed one,
    // without waiting for a frame. SendSeed and OnTimingReady give it up.
    if (Step s = FromSink(sink_.OnTrialEnd())) return s;
    if (Step s = StopIfFailed()) return s;
    if (++trial_at_ == variant_trials_.size()) return NextVariant();
    state_ = WorkerState::kTrial;
    SendSeed();
    return std::nullopt;
  }

  // A candidate whose verdict is settled (TrialSink::StopAfterTrial) is not run further: a
  // KernelBench-sized trial ships gigabytes of outputs.
  Step StopIfFailed() {
    if (!candidate() || !sink_.StopAfterTrial()) return std::nullopt;
    run_.timing_skipped = true;
    run_.stopped_after_failed_trial = true;
    return Stop{WorkerEnd::kDone, ""};
  }

  Step NextVariant() {
    ++variant_at_;
    state_ = variant_at_ < variant_names_.size() ? WorkerState::kBuild
             : cfg_.timing.enabled               ? WorkerState::kTimingReady
                                                 : WorkerState::kDone;
    return std::nullopt;
  }

  Step OnTimingReady(const Frame& f) {
    if (Step s = Expect(f, "stage", "timing_ready"); s || (s = Accept(f))) return s;
    if (candidate() && sink_.SkipTiming()) {
      // Its speedup would be discarded, and timing holds the GPU's lease.
      run_.timing_skipped = true;
      return Stop{WorkerEnd::kDone, ""};
    }
    // Exclusive use of the GPU for timing; correctness of other samples goes on unless quiet. A
    // reference's timings are kept for every later sample of its task (and in the store), so
    // they are always taken quiet; re-checking cached ones times nothing.
    trial_ticket_.Release();
    const bool quiet = cfg_.timing.quiet || (!candidate() && per_call_);
    auto got = AcquireTimingLease(cfg_.timing.lock_dir, cfg_.timing.device_key, quiet);
    if (!got.ok()) {
      run_.lease_error = got.status().message();
      return Stop{WorkerEnd::kInfra, run_.lease_error};
    }
    lease_ = std::move(*got);
    run_.lease = lease_.facts();
    go_t0_ = Clock::now();
    stage_t0_ = go_t0_;
    state_ = WorkerState::kTiming;
    // A worker gets only the warm-up seeds now, then each timed call's seed just before it and
    // each re-check decision just after it (the "call" frames).
    Send({{"type", "go"},
          {"plan", per_call_ ? PerCallTimingPlan(cfg_.timing) : TimingPlan(cfg_.timing)}});
    return std::nullopt;
  }

  Step OnTiming(const Frame& f) {
    const std::string type = GetString(f.header, "type");
    const int positions = TimedCalls(cfg_.timing);
    if (per_call_ && type == "call") {
      const auto index = GetInt(f.header, "index");
      if (!index || *index != next_call_ || next_call_ > positions)
        return Stop{
            WorkerEnd::kProtocol,
            fmt::format("timing: a call frame out of order (expected call {})", next_call_)};
      run_.call_frame_ms.push_back(MsSince(go_t0_));
      Send(CallAnswer(cfg_.timing, next_call_));
      ++next_call_;
      return std::nullopt;
    }
    if (per_call_ && type == "span") return OnSpan(f, positions);
    if (per_call_ && type == "timing" && next_call_ != positions + 1)
      return Stop{WorkerEnd::kProtocol,
                  fmt::format("timing: the timing frame came after {} of {} calls", next_call_,
                              positions + 1)};
    if (per_call_ && type == "timing" &&
        (span_open_ || run_.call_span_ms.size() != static_cast<size_t>(positions)))
      return Stop{WorkerEnd::kProtocol,
                  fmt::format("timing: {} of {} timed calls sent both span frames",
                              run_.call_span_ms.size(), positions)};
    if (Step s = Expect(f, "timing"); s || (s = Accept(f))) return s;
    run_.timing_parent_ms = MsSince(go_t0_);
    lease_.Release();
    run_.lease = lease_.facts();  // with what started while it was held
    state_ = WorkerState::kProfile;
    return std::nullopt;
  }

  // A timed call's span frames: the call just answered (next_call_ - 1), begin then end, once
  // each, in call order; the span is the engine's clock between them.
  Step OnSpan(const Frame& f, int positions) {
    const auto index = GetInt(f.header, "index");
    const std::string edge = GetString(f.header, "edge");
    const bool in_order = index && *index == next_call_ - 1 && *index < positions &&
                          run_.call_span_ms.size() == static_cast<size_t>(*index);
    if (in_order && edge == "begin" && !span_open_) {
      span_begin_ms_ = MsSince(go_t0_);
      span_open_ = true;
      return std::nullopt;
    }
    if (in_order && edge == "end" && span_open_) {
      run_.call_span_ms.push_back(MsSince(go_t0_) - span_begin_ms_);
      span_open_ = false;
      return std::nullopt;
    }
    return Stop{WorkerEnd::kProtocol,
                fmt::format("timing: a span frame out of order (call {}, {} spans so far)",
                            next_call_ - 1, run_.call_span_ms.size())};
  }

  Step OnProfile(const Frame& f) {
    if (Step s = Expect(f, "profile"); s || (s = Accept(f))) return s;
    state_ = WorkerState::kDone;
    return std::nullopt;
  }

  Step OnDone(const Frame& f) {
    if (Step s = Expect(f, "done"); s || (s = Accept(f))) return s;
    return Stop{WorkerEnd::kDone, ""};
  }

  Stop OnTimeout() {
    if (state_ == WorkerState::kTiming && candidate() && timing_limit_ < cfg_.timing.timeout) {
      // Correct so far but too slow to time in full: the phase so far bounds its speedup (the
      // whole phase would have taken longer). A worker that finished no timed call counts as
      // slow while its launches go on (a launch report in the last kLaunchingWindow: an honest
      // kernel launched once per row can spend the whole budget warming up), else as hung.
      run_.timing_over_budget = true;
      run_.timing_budget_ms = static_cast<double>(timing_limit_.count());
      run_.timed_calls_done = std::max(0, next_call_ - 1);
      run_.timing_parent_ms = MsSince(go_t0_);
      const bool launching =
          timing_launch_t_ > go_t0_ && Clock::now() - timing_launch_t_ < kLaunchingWindow;
      if (run_.timed_calls_done > 0 || launching) return {WorkerEnd::kDone, ""};
      return {WorkerEnd::kTimeout,
              fmt::format("no timed call finished within the timing budget of {} ms ({}x the "
                          "reference's timed phase, at least {} ms)",
                          timing_limit_.count(), cfg_.timing.slow_factor,
                          cfg_.timing.slow_floor.count())};
    }
    if (IdleApplies() && Clock::now() < frame_t_ + StageLimit()) {
      return {WorkerEnd::kTimeout,
              fmt::format("nothing happened for {} ms in stage {} (no frame, no Triton compile)",
                          idle_limit_.count(), StateName(state_))};
    }
    return {WorkerEnd::kTimeout, ""};
  }

  const EngineConfig& cfg_;
  const ReferenceResult* reference_;  // null when driving the reference itself
  const bool per_call_;
  TrialSink& sink_;
  Child& child_;
  WorkerRun& run_;
  const std::chrono::milliseconds timing_limit_;
  const std::chrono::milliseconds idle_limit_;  // 0: no idle deadline (see IdleApplies)
  Clock::time_point frame_t_ = Clock::now();    // the last protocol frame: stage limits count
  Clock::time_point progress_t_{};              // the last progress frame
  Clock::time_point timing_launch_t_{};         // the last launch report in the timing stage
  // A launch report this recent at the timing budget's end: the phase is launching, not hung
  // (the worker reports once a second while it launches).
  static constexpr std::chrono::seconds kLaunchingWindow{5};
  bool compiling_ = false;  // between compile_start and compile_end
  WorkerState state_ = WorkerState::kStartup;
  std::string buffer_;
  bool hello_ = false;
  std::vector<std::string> variant_names_;
  std::size_t variant_at_ = 0;
  std::vector<int> variant_trials_;
  std::size_t trial_at_ = 0;
  SliceCursor cursor_;
  Clock::time_point stage_t0_ = Clock::now();
  Clock::time_point slices_deadline_;
  Clock::time_point go_t0_ = Clock::now();
  TimingLease lease_;         // held from "timing_ready" to the "timing" frame (src/eval/timing.h)
  TrialTicket trial_ticket_;  // while a trial of this worker may run on the GPU (timing_lease.h)
  int next_call_ = 0;  // the worker's next timed call (its "call" frames, src/eval/timing_plan.h)
  bool span_open_ = false;    // a timed call's span begun and not ended
  double span_begin_ms_ = 0;  // when it began, ms since "go"
  static constexpr std::chrono::seconds kAfterFailedSend{2};
  std::optional<Clock::time_point> send_failed_until_;  // set by the first failed write
  std::string send_error_;
};

}  // namespace

WorkerRun DriveWorker(const EngineConfig& cfg, const json& request, const std::string& dir,
                      const ReferenceResult* reference, TrialSink& sink,
                      std::optional<Child> started) {
  WorkerRun run;
  const auto t0 = Clock::now();
  Result<Child> child =
      started ? Result<Child>(std::move(*started))
              : SpawnWorker(WorkerSpawnSpec(cfg, dir, "worker.py", {"3", "4"}, "worker.log"),
                            cfg.warm_workers);
  if (!child.ok()) {
    run.detail = child.status().message();
    return run;
  }
  {
    Driver driver(cfg, request, reference, sink, *child, run);
    const Stop stop = driver.Run(request);
    run.end = stop.end;
    if (!stop.detail.empty()) run.detail = stop.detail;
    run.pending = driver.state();
  }  // the lease, if still held, is released here
  // After "done" or "error" everything needed is in hand: no grace. After EOF
  // the worker is dying; wait briefly for its exit status (the signal name).
  run.fin = Finish(*child, std::chrono::milliseconds(run.end == WorkerEnd::kEof ? 3000 : 0));
  run.log_tail = LogTail(dir + "/worker.log");
  run.wall_ms = MsSince(t0);
  return run;
}

}  // namespace tritonrl::eval
