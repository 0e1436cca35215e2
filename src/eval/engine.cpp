#include "eval/engine.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "base/file.h"
#include "eval/clock.h"
#include "eval/json_get.h"
#include "eval/proof_of_work.h"
#include "eval/schedule.h"
#include "eval/trial_check.h"
#include "eval/worker_driver.h"
#include "eval/worker_pool.h"
#include "eval/worker_spawn.h"
#include "vocab/verdict_vocab.h"

namespace tritonrl::eval {
namespace fs = std::filesystem;
using nlohmann::json;
using vocab::Outcome;

namespace {

// A private folder per worker: TMPDIR, HOME, Triton's cache, the candidate file, the log.
struct WorkDir {
  std::string path;
  bool keep = false;
  ~WorkDir() {
    if (!path.empty() && !keep) {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  }
};

// A worker's private folder and, when the run has pre-started workers (eval/worker_pool.h), the
// worker already started into it; without one DriveWorker spawns it after the files are written.
struct WorkerStart {
  std::string dir;
  std::optional<Child> child;
  std::vector<std::string> discarded;  // pre-started workers found dead before this one
};

Result<WorkerStart> PrepareWorker(const EngineConfig& cfg) {
  if (cfg.worker_pool) {
    if (auto w = cfg.worker_pool->Acquire(cfg))
      return WorkerStart{std::move(w->dir), std::move(w->child), std::move(w->discarded)};
  }
  auto dir = MakeWorkDir(cfg.work_dir);
  if (!dir.ok()) return dir.status();
  return WorkerStart{std::move(*dir), std::nullopt, {}};
}

// Drives the worker of `start`. A pre-started worker that ended before its first frame (it died
// while idle, after the pool's last look at it) ran nothing of the request: the sample gets a
// fresh worker instead, once, and its verdict names the dead one (prestart_discarded).
WorkerRun DriveStarted(const EngineConfig& cfg, const json& req, WorkerStart& start,
                       const ReferenceResult* ref, TrialSink& sink) {
  const bool prestarted = start.child.has_value();
  const pid_t pid = prestarted ? start.child->pid : -1;
  WorkerRun run = DriveWorker(cfg, req, start.dir, ref, sink, std::move(start.child));
  start.child.reset();
  if (!prestarted || run.end != WorkerEnd::kEof || !run.frames.empty()) return run;
  start.discarded.push_back(
      fmt::format("pid {}: {} before its request was read", pid, run.fin.exit.ToString()));
  return DriveWorker(cfg, req, start.dir, ref, sink);
}

// A pre-started worker that will not get a request (the engine failed before sending it).
void Abandon(WorkerStart& start) {
  if (start.child) Finish(*start.child, std::chrono::milliseconds(0));
  start.child.reset();
}

}  // namespace

namespace {

json MakeRequest(const EngineConfig& cfg, const std::string& role, const std::string& task_path,
                 const std::string& candidate_path, const std::vector<std::string>& variants,
                 int perturb) {
  // The trusted reference gets every seed up front; a candidate gets them one by one.
  json trials = json::array();
  for (const auto& t : cfg.schedule) {
    json trial = {{"train", t.train}, {"grad", t.grad}};
    if (role == "reference") trial["seed"] = t.seed;
    trials.push_back(trial);
  }
  json req = {{"role", role},         {"task_path", fs::absolute(task_path).string()},
              {"device", cfg.device}, {"init_seed", cfg.init_seed},
              {"trials", trials},     {"allowlist_path", fs::absolute(cfg.allowlist_path).string()},
              {"perturb", perturb}};
  if (!candidate_path.empty()) req["candidate_path"] = candidate_path;
  if (!variants.empty()) req["variants"] = variants;
  if (role == "reference" && !cfg.variants.empty()) req["prefer_variants"] = cfg.variants;
  const auto large = TrialIndicesFor(cfg, "large");
  if (large.size() < cfg.schedule.size()) {
    req["variant_trials"] = {{"large", large}};
    // The reference runs the first trial in either case: the rule needs the large list to start
    // with it.
    if (role == "reference" && cfg.large_output_bytes > 0 && large.front() == 0)
      req["large_output"] = {{"bytes", cfg.large_output_bytes}, {"trials", large}};
  }
  if (cfg.timing.enabled) req["timing"] = TimingRequest(cfg.timing, "");
  req["tolerance_policy"] = cfg.tolerance_policy;
  return req;
}

std::string ExitReasonCode(const ExitInfo& e) {
  if (!e.known) return "missing_record";
  if (e.signaled) return e.signal == SIGXCPU ? "cpu_time_limit" : "signal";
  return "missing_record";
}

// torch.OutOfMemoryError (CUDA's allocator), or a CUDA/Triton launch that ran out of device
// memory. The CPU allocator's failure is a RuntimeError without these words: no other worker
// causes that one (the host budget is admission control's).
bool IsOutOfDeviceMemory(const std::string& exc, const std::string& msg) {
  return exc == "OutOfMemoryError" || exc == "torch.OutOfMemoryError" ||
         msg.find("CUDA out of memory") != std::string::npos ||
         msg.find("CUDA error: out of memory") != std::string::npos;
}

}  // namespace

std::uint64_t DeviceBytesAtOom(std::string_view message) {
  // "<number> <unit>" right after `label`; 0 when absent.
  const auto amount_after = [&](std::string_view label) -> std::uint64_t {
    const auto at = message.rfind(label);
    if (at == std::string_view::npos) return 0;
    const std::string rest(message.substr(at + label.size(), 40));
    double value = 0;
    char unit[8] = {};
    if (std::sscanf(rest.c_str(), "%lf %7[A-Za-z]", &value, unit) != 2 || !(value >= 0)) return 0;
    const std::string_view u(unit);
    const double scale = u == "GiB"     ? 1024.0 * 1024 * 1024
                         : u == "MiB"   ? 1024.0 * 1024
                         : u == "KiB"   ? 1024.0
                         : u == "bytes" ? 1.0
                                        : 0.0;
    return static_cast<std::uint64_t>(std::min(value * scale, 1e18));
  };
  const std::uint64_t asked = amount_after("Tried to allocate ");
  const std::uint64_t held = amount_after("this process has ");
  return asked > 0 && held > 0 ? asked + held : 0;
}

namespace {

// What the engine measured around a timed phase; never taken from the worker's frame.
void SetEngineClocks(const WorkerRun& run, TimingPhase& phase) {
  phase.parent_ms = run.timing_parent_ms;
  phase.call_frame_ms = run.call_frame_ms;
  phase.call_span_ms = run.call_span_ms;
  phase.lease = run.lease;
}

// Outcome and reason for a worker that did not finish its sequence.
std::pair<Outcome, Reason> ClassifyEnd(const WorkerRun& run) {
  const std::string pending = StateName(run.pending);
  const std::string stage = pending == "timing_ready" || pending == "timing" || pending == "profile"
                                ? "timing"
                            : pending == "trial" || pending == "done" ? "correctness"
                                                                      : pending;
  switch (run.end) {
    case WorkerEnd::kTimeout:
      return {
          Outcome::kTimeout,
          {stage, "stage_timeout",
           run.detail.empty()
               ? fmt::format("no result within the {} stage limit; the process group was killed",
                             pending)
               : run.detail}};
    case WorkerEnd::kError: {
      const json& h = run.error_frame.header;
      const std::string exc = Truncate(GetString(h, "exc_type"), 80);
      const std::string where = GetString(h, "stage");
      const std::string msg = Truncate(GetString(h, "message"), 1200);
      // The worker's guards (guard.py) raise these into the candidate's code: the audit hook
      // refusing an event, the call monitor stopping a per-element host loop; the build refuses
      // a model that replaces nn.Module behaviour before calling any other method of it
      // (trusted.py). The reason is theirs, whichever stage it stopped. A candidate that raises
      // one itself fails the same way.
      static constexpr std::pair<std::string_view, const char*> kRefusals[] = {
          {"InternalAccessRefused", "internal_access"},
          {"HostComputeRefused", "host_compute"},
          {"ModuleOverrideRefused", "module_override"}};
      for (const auto& [type, code] : kRefusals) {
        if (exc != type) continue;
        const std::string full = GetString(h, "message");
        const auto at = full.rfind("refused by the evaluator:");
        return {Outcome::kIncorrect,
                {stage, code, at == std::string::npos ? msg : Truncate(full.substr(at), 400)}};
      }
      // Triton reports kernel compile failures as CompilationError; under
      // TRITON_INTERPRET=1 the same failures surface as InterpreterError. The JIT's dependency
      // scan refuses a kernel that calls a plain Python function with a RuntimeError, which the
      // worker marks (`triton_refused`: the innermost frame is Triton's front end).
      const bool compile = where == "import" || where == "build" ||
                           exc.find("CompilationError") != std::string::npos ||
                           exc == "InterpreterError" || GetBool(h, "triton_refused", false);
      if (IsOutOfDeviceMemory(exc, msg))
        return {Outcome::kRuntimeError, {stage, "out_of_memory", fmt::format("{}: {}", exc, msg)}};
      return {
          compile ? Outcome::kCompileError : Outcome::kRuntimeError,
          {stage, compile ? "compile_exception" : "exception", fmt::format("{}: {}", exc, msg)}};
    }
    case WorkerEnd::kMalformed:
    case WorkerEnd::kProtocol:
      return {Outcome::kRuntimeError, {stage, "protocol_violation", run.detail}};
    case WorkerEnd::kSpawnFailed:
      return {Outcome::kRuntimeError, {"startup", "spawn_failed", run.detail}};
    case WorkerEnd::kResource:
      return {Outcome::kResourceExhausted, {stage, "resource_exhausted", run.detail}};
    case WorkerEnd::kInfra:
      return {Outcome::kRuntimeError, {stage, "infra_error", run.detail}};
    case WorkerEnd::kEof:
    case WorkerEnd::kDone:
      break;
  }
  const ExitInfo& e = run.fin.exit;
  if (e.known && e.signaled && e.signal == SIGXCPU) {
    return {Outcome::kTimeout, {stage, "cpu_time_limit", "CPU time limit reached (SIGXCPU)"}};
  }
  std::string msg = fmt::format("the worker ended ({}) before sending all results", e.ToString());
  const std::string tail = Truncate(run.log_tail, 400);
  if (!tail.empty()) msg += "; log tail: " + tail;
  return {Outcome::kRuntimeError, {stage, ExitReasonCode(e), msg}};
}

// The timing stage's part of a verdict (docs/measurement.md): only a sample
// that is correct so far is timed into a speedup; forged timing or a wrong
// re-checked timed output fail it, contention voids its speedup, a low kernel
// share flags it.
void ApplyTimingStage(const EngineConfig& cfg, const WorkerRun& run, const ReferenceResult& ref,
                      Verdict& v) {
  if (!cfg.timing.enabled) {
    v.evidence["timing"] = {{"skipped", cfg.device == "cpu"
                                            ? "CPU run: timing needs a GPU (speedup null)"
                                            : "timing disabled"}};
    return;
  }
  if (auto it = run.stage_ms.find("timing"); it != run.stage_ms.end())
    v.timings_ms["timing"] = it->second;
  if (auto it = run.stage_ms.find("profile"); it != run.stage_ms.end())
    v.timings_ms["profile"] = it->second;
  if (run.timing_skipped) {
    v.evidence["timing"] = {{"skipped", "not timed: the correctness trials had failed"}};
    return;
  }
  if (v.outcome != Outcome::kCorrect) return;
  if (run.timing_over_budget && ref.timing) {
    // The full phase would have lasted longer than the part that ran: the phase ratio so far is
    // an upper bound on the speedup. Not profiled, timed outputs not re-checked.
    const double bound = ref.timing->parent_ms / std::max(run.timing_parent_ms, 1e-3);
    v.flags.push_back("slow_over_budget");
    v.evidence["timing"] = {{"over_budget", true},
                            {"budget_ms", run.timing_budget_ms},
                            {"timed_calls_done", run.timed_calls_done},
                            {"trials", cfg.timing.trials},
                            {"parent_phase_ms", run.timing_parent_ms},
                            {"reference_parent_phase_ms", ref.timing->parent_ms},
                            {"speedup_upper_bound", bound}};
    v.speedup = bound;
    return;
  }
  const Frame* frame = nullptr;
  for (const Frame& f : run.frames) {
    if (GetString(f.header, "type") == "timing") frame = &f;
  }
  if (!ref.timing) {
    v.evidence["timing"] = {{"skipped", "the reference could not be timed: " + ref.timing_error}};
    v.infra_failure = true;
    return;
  }
  if (frame == nullptr) {
    v.outcome = Outcome::kRuntimeError;
    v.reasons.push_back({"timing", "missing_record", "no timing result"});
    return;
  }
  auto phase = ParseTimingFrame(*frame, cfg.timing);
  if (!phase.ok()) {
    v.outcome = Outcome::kRuntimeError;
    v.reasons.push_back({"timing", "protocol_violation", phase.status().message()});
    return;
  }
  SetEngineClocks(run, *phase);
  for (const Frame& f : run.frames) {
    if (GetString(f.header, "type") == "profile") MergeProfileFrame(f, *phase);
  }
  // The load rule (src/eval/timing_verdict.h): only forged timing or a wrong timed output fails;
  // contention voids the speedup.
  const TimingJudgement j =
      JudgeTiming(*phase, *ref.timing, cfg.timing, ref.tolerance, cfg.device_model);
  v.evidence["timing"] = j.evidence;
  const TimingRuling ruling = RuleOnTiming(j, cfg.timing.strict);
  if (ruling.incorrect) v.outcome = Outcome::kIncorrect;
  for (const auto& r : ruling.reasons)
    v.reasons.push_back({"timing", r.code, Truncate(r.message, 1200)});
  for (const auto& f : ruling.flags) v.flags.push_back(f);
  if (v.outcome == Outcome::kCorrect) v.speedup = ruling.speedup;
}

// A task whose reference outputs a null model matches (zeros, the mean, an input passed through)
// cannot tell that fake from a kernel: a sample judged correct on it is flagged weak_task (no
// reward; the strict policy fails it). Real case: KernelBench
// level2/9_Matmul_Subtract_Multiply_ReLU, where relu(1.5 * (y - 2)) is about 0 everywhere.
void ApplyWeakTask(const EngineConfig& cfg, const ReferenceResult& ref, Verdict& v) {
  if (ref.null_models_passed.empty()) return;
  v.evidence["null_models_passed"] = ref.null_models_passed;
  if (v.outcome != Outcome::kCorrect) return;
  v.flags.push_back("weak_task");
  if (cfg.timing.strict) {
    v.outcome = Outcome::kIncorrect;
    v.speedup.reset();
    v.reasons.push_back(
        {"correctness", "weak_task",
         fmt::format("the task cannot certify correctness: null models pass it ({})",
                     fmt::join(ref.null_models_passed, ", "))});
  }
}

}  // namespace

ReferenceResult RunReference(const EngineConfig& cfg, const std::string& task_path,
                             const std::function<void(std::int64_t)>& on_device_peak) {
  ReferenceResult ref;
  auto start = PrepareWorker(cfg);
  if (!start.ok()) {
    ref.error = {"reference", "io_error", start.status().message()};
    return ref;
  }
  WorkDir guard{start->dir, cfg.keep_work};
  json req = MakeRequest(cfg, "reference", task_path, "", {}, 0);
  std::optional<TimingPhase> cached;
  if (cfg.timing.enabled && cfg.cached_reference_timing)
    cached = cfg.cached_reference_timing(task_path);
  if (cached) req["timing"]["recheck_only"] = true;
  auto spill = SpillFile::Create(cfg.work_dir, cfg.spill_reserve_bytes, cfg.spill_budget,
                                 cfg.memory_spill_budget);
  if (!spill.ok()) {
    Abandon(*start);
    ref.error = {"reference", "io_error", spill.status().message()};
    return ref;
  }
  ref.spill = *spill;
  ReferenceRecorder recorder(ref, *spill, on_device_peak);
  ref.schedule = cfg.schedule;
  ref.init_seed = cfg.init_seed;
  ref.timing_plan = cfg.timing;
  const WorkerRun run = DriveStarted(cfg, req, *start, nullptr, recorder);
  ref.ms = run.wall_ms;
  ref.phase_ms = run.phase_ms;
  ref.sandbox = run.fin.sandbox;
  if (run.end != WorkerEnd::kDone) {
    auto [outcome, reason] = ClassifyEnd(run);
    ref.out_of_memory = reason.code == "out_of_memory";
    // The reference worker is ours: its whole message is trusted (the reason's is truncated).
    if (ref.out_of_memory)
      ref.oom_device_bytes = DeviceBytesAtOom(GetString(run.error_frame.header, "message"));
    ref.out_of_space = outcome == Outcome::kResourceExhausted;
    reason.stage = "reference";
    reason.message = fmt::format("{} ({}): {}", task_path, reason.code, reason.message);
    // Out of spill space: the samples of the task get that outcome, the run goes on.
    reason.code = outcome == Outcome::kResourceExhausted ? std::string(vocab::OutcomeName(outcome))
                                                         : "reference_failed";
    ref.error = reason;
    ref.trials.clear();
    ref.spill.reset();
    return ref;
  }
  for (const Frame& f : run.frames) {
    if (GetString(f.header, "type") != "timing") continue;
    auto phase = ParseTimingFrame(f, cfg.timing, /*allow_recheck_only=*/cached.has_value());
    if (!phase.ok()) {
      ref.timing_error = phase.status().message();
    } else if (phase->recheck_only) {
      // Times from the cache, re-checks from this run (they depend on its secret seeds).
      if (phase->variant != cached->variant) {
        ref.timing_error = fmt::format("cached reference timing is for variant {}, not {}",
                                       cached->variant, phase->variant);
      } else {
        TimingPhase merged = *cached;
        merged.rechecks = std::move(phase->rechecks);
        merged.recheck_trials = phase->recheck_trials;
        ref.timing = std::move(merged);
      }
    } else {
      SetEngineClocks(run, *phase);
      if (cfg.store_reference_timing) cfg.store_reference_timing(task_path, *phase);
      ref.timing = std::move(*phase);
    }
  }
  ref.ok = true;
  return ref;
}

Verdict RunCandidate(const EngineConfig& config, const std::string& task_path,
                     const std::string& code, const ReferenceResult& ref) {
  // The reference's seeds: it may have run for an earlier pool run (EngineConfig::reuse_reference).
  const EngineConfig cfg = CandidateConfig(config, ref);
  Verdict v;
  v.device = cfg.device;
  v.provisional = cfg.device == "cpu";
  const auto t0 = Clock::now();
  if (!ref.ok) {
    v.outcome = ref.error.code == "resource_exhausted" ? Outcome::kResourceExhausted
                                                       : Outcome::kRuntimeError;
    v.reasons.push_back(ref.error);
    v.infra_failure = true;
    return v;
  }
  auto start = PrepareWorker(cfg);
  if (!start.ok()) {
    v.outcome = Outcome::kRuntimeError;
    v.infra_failure = true;
    v.reasons.push_back({"startup", "io_error", start.status().message()});
    return v;
  }
  WorkDir guard{start->dir, cfg.keep_work};
  // A pre-started worker's private mounts were made before this file existed: the folder is the
  // host's, remounted read-only, so the file shows there (WorkerPoolTest).
  const std::string cand_path = start->dir + "/candidate.py";
  if (Status s = WriteFileAtomic(cand_path, code); !s.ok()) {
    Abandon(*start);
    v.outcome = Outcome::kRuntimeError;
    v.infra_failure = true;
    v.reasons.push_back({"startup", "io_error", s.message()});
    return v;
  }
  json req = MakeRequest(cfg, "candidate", task_path, fs::canonical(cand_path).string(),
                         ref.variants, cfg.malloc_perturb);
  // The trials the reference ran, per variant (fewer where its outputs were large).
  for (const std::string& variant : ref.variants) {
    const std::vector<int> ran = RecordedTrials(ref, variant);
    if (ran.size() != cfg.schedule.size()) req["variant_trials"][variant] = ran;
  }
  CandidateChecker checker(cfg, ref);
  const WorkerRun run = DriveStarted(cfg, req, *start, &ref, checker);
  v.sandbox = run.fin.sandbox.ToJson();
  for (const auto& [stage, ms] : run.stage_ms) {
    if (stage == "trial") v.timings_ms["correctness"] = ms;
    if (stage == "startup" || stage == "import" || stage == "build") v.timings_ms[stage] = ms;
  }
  v.timings_ms["worker_wall"] = run.wall_ms;
  // Where the workers' time went, by their own account (diagnostic, see WorkerRun::phase_ms).
  for (const auto& [name, ms] : run.phase_ms) v.timings_ms["phase_" + name] = ms;

  // Evidence from whatever frames arrived (all untrusted after the import), checked as they came.
  const TrialCheck& c = checker.result();
  v.evidence = {{"kernels", c.own_kernels},
                {"other_kernels", c.other_kernels},
                {"aten_ops", c.aten_ops},
                {"forbidden_aten_ops", c.forbidden},
                {"max_abs_err", c.max_abs},
                {"max_rel_l2", c.max_rel},
                {"max_tolerance_margin", c.max_margin},
                {"trials_checked", c.trials_checked},
                {"trials_expected", ref.trials.size()},
                {"variants", ref.variants},
                {"modes", c.modes},
                {"min_own_launches_per_call", std::max(c.min_launches, 0)},
                {"atol", ref.tolerance.atol},
                {"rtol", ref.tolerance.rtol}};
  v.evidence["guards"] = GuardEvidenceJson(c.guards);
  // Pre-started workers that had died while idle, passed over for this one (never used).
  if (!start->discarded.empty()) v.evidence["prestart_discarded"] = start->discarded;
  if (run.end != WorkerEnd::kDone) v.evidence["exit"] = run.fin.exit.ToString();
  if (run.stopped_after_failed_trial) v.evidence["stopped_after_failed_trial"] = true;
  // AutoTriton's "test passed" (the binary arm's reward input): known only when every trial ran.
  if (cfg.all_trials)
    v.evidence["outputs_match"] =
        run.end == WorkerEnd::kDone && OutputsMatched(c, ref.trials.size());
  v.compiled = c.imported && c.trials_checked > 0;
  if (run.end != WorkerEnd::kDone) {
    auto [outcome, reason] = ClassifyEnd(run);
    v.outcome = outcome;
    v.reasons.push_back(reason);
    // Before the candidate was imported, or the engine's own failure: not the sample's doing.
    if (reason.stage == "startup" || run.end == WorkerEnd::kInfra ||
        run.end == WorkerEnd::kResource)
      v.infra_failure = true;
    if (outcome == Outcome::kCompileError) v.compiled = false;
  } else if (!c.failures.empty()) {
    v.outcome = Outcome::kIncorrect;
  } else if (c.trials_checked != static_cast<int>(ref.trials.size())) {
    v.outcome = Outcome::kRuntimeError;
    v.reasons.push_back({"correctness", "missing_record", "fewer trial results than requested"});
  } else {
    v.outcome = Outcome::kCorrect;
  }
  for (const auto& [code_id, reason] : c.failures) v.reasons.push_back(reason);
  ApplyTimingStage(cfg, run, ref, v);
  if (v.outcome == Outcome::kCorrect && c.max_margin > kNearToleranceMargin) {
    v.flags.push_back("near_tolerance");
  }
  ApplyWeakTask(cfg, ref, v);
  // Torch did (part of) the work: the sample is not correct whatever its numbers.
  if (c.guards.torch_did_work ||
      std::any_of(c.failures.begin(), c.failures.end(),
                  [](const auto& f) { return ReasonMeansTorchDidWork(f.first); })) {
    v.flags.push_back("lazy_optimization");
  }
  if (run.fin.sandbox.Level() != "full") {
    v.flags.push_back("degraded_sandbox");
  }
  v.wall_ms = MsSince(t0);
  v.timings_ms["total"] = v.wall_ms;
  return v;
}

}  // namespace tritonrl::eval
