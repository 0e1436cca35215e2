#include "eval/engine.h"

#include <signal.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "base/file.h"

namespace tritonrl::eval {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Safe accessors: a hostile header may hold any JSON type under any key.
std::string GetString(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::optional<std::int64_t> GetInt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}
bool GetBool(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}
double GetDouble(const json& j, const char* key, double fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}
std::vector<std::string> GetStrings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string Truncate(std::string s, std::size_t n) {
  if (s.size() > n) s = "..." + s.substr(s.size() - n);
  return s;
}

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

std::vector<std::string> WorkerEnv(const EngineConfig& cfg, const std::string& dir) {
  std::vector<std::string> env = {
      "HOME=" + dir + "/home",
      "TMPDIR=" + dir + "/tmp",
      "TRITON_CACHE_DIR=" + dir + "/triton-cache",
      "LANG=C.UTF-8",
      "PYTHONNOUSERSITE=1",
  };
  const char* path = std::getenv("PATH");
  env.push_back(std::string("PATH=") + (path ? path : "/usr/bin:/bin"));
  if (cfg.device == "cpu") {
    env.push_back("TRITON_INTERPRET=1");
    env.push_back("CUDA_VISIBLE_DEVICES=");
    env.push_back("OMP_NUM_THREADS=1");
  } else {
    for (const char* pass :
         {"CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CUDA_HOME", "TRITON_PTXAS_PATH"}) {
      if (const char* v = std::getenv(pass)) env.push_back(std::string(pass) + "=" + v);
    }
  }
  for (const auto& e : cfg.extra_env) env.push_back(e);
  return env;
}

}  // namespace

Result<std::string> MakeWorkDir(const std::string& parent) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  std::string tmpl = (fs::path(parent) / "w-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr)
    return Status::IoError(fmt::format("{}: cannot create a work folder", parent));
  for (const char* sub : {"tmp", "home", "triton-cache"})
    fs::create_directory(fs::path(tmpl) / sub, ec);
  return tmpl;
}

SpawnSpec WorkerSpawnSpec(const EngineConfig& cfg, const std::string& dir,
                          const std::string& script, const std::vector<std::string>& args,
                          const std::string& log_name) {
  SpawnSpec spec;
  spec.argv = {cfg.python, "-I", "-B",
               (fs::path(cfg.runner_dir) / "tritonrl_runner" / script).string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = WorkerEnv(cfg, dir);
  spec.cwd = dir + "/tmp";
  spec.log_path = dir + "/" + log_name;
  spec.writable_dirs = {dir + "/tmp", dir + "/home", dir + "/triton-cache"};
  spec.sandbox = cfg.sandbox;
  spec.seccomp_program = cfg.seccomp_program.empty() ? nullptr : &cfg.seccomp_program;
  return spec;
}

namespace {

enum class WorkerEnd { kDone, kError, kEof, kTimeout, kMalformed, kProtocol, kSpawnFailed };

// What a candidate's correctness trials showed.
struct TrialCheck {
  std::set<std::string> own_kernels, other_kernels, aten_ops, forbidden, modes;
  double max_abs = 0, max_rel = 0, max_margin = 0;  // max_margin: CompareResult::tolerance_margin
  int min_launches = -1, trials_checked = 0;
  bool imported = false;
  std::map<std::string, Reason> failures;  // the first failure per code
};
TrialCheck CheckTrials(const EngineConfig& cfg, const std::vector<Frame>& frames,
                       const ReferenceResult& ref);

struct WorkerRun {
  std::vector<Frame> frames;
  WorkerEnd end = WorkerEnd::kSpawnFailed;
  std::string pending;  // the stage we were waiting on when it ended
  std::string detail;
  Frame error_frame;
  Finished fin;
  std::string log_tail;
  double wall_ms = 0;
  std::map<std::string, double> stage_ms;  // measured by the engine between frames
  double timing_parent_ms = 0;  // engine clock of the timed phase ("go" -> "timing" frame)
  double lease_wait_ms = 0;
  std::string lease_error;
  std::optional<TrialCheck> trials;   // a candidate's trials, checked when it asked to be timed
  bool timing_skipped = false;        // ... and stopped there: they had failed
  std::vector<double> call_frame_ms;  // arrival of each "call" frame, ms since "go"
  // A correct candidate stopped at its timing budget (CandidateTimingBudget) after this many
  // finished timed calls.
  bool timing_over_budget = false;
  double timing_budget_ms = 0;
  int timed_calls_done = 0;
};

// Drives one worker through its fixed frame sequence with a deadline per stage.
// A candidate (`reference` given) that failed its correctness trials is stopped when it asks to be
// timed: its speedup would be discarded, and timing holds the GPU's lease.
WorkerRun DriveWorker(const EngineConfig& cfg, const json& request, const std::string& dir,
                      const ReferenceResult* reference) {
  const bool candidate = reference != nullptr;
  WorkerRun run;
  const auto t0 = Clock::now();
  const SpawnSpec spec = WorkerSpawnSpec(cfg, dir, "worker.py", {"3", "4"}, "worker.log");
  auto child = Spawn(spec);
  if (!child.ok()) {
    run.detail = child.status().message();
    return run;
  }
  Status w = WriteAll(child->to_child, EncodeFrame(request));
  (void)w;  // a worker that died already shows up as EOF below
  std::string buffer;
  // Expected sequence: hello, variants, [stage import], per variant: stage build + trials, done.
  std::string pending = "startup";
  std::size_t variants = 0, variant_at = 0;
  std::vector<std::string> variant_names;
  std::vector<int> variant_trials;
  std::size_t trial_at = 0;
  // A candidate learns each trial's seed just before that trial (the secret one included), so
  // no future input is in its memory while its constructor or an earlier call runs.
  const auto send_seed = [&] {
    const int index = variant_trials[trial_at];
    (void)WriteAll(child->to_child,
                   EncodeFrame({{"type", "seed"},
                                {"variant", variant_names[variant_at]},
                                {"index", index},
                                {"seed", cfg.schedule[static_cast<std::size_t>(index)].seed}}));
  };
  bool built = false;
  auto timeout_for = [&](const std::string& stage) {
    if (stage == "startup") return cfg.startup_timeout;
    if (stage == "import") return cfg.import_timeout;
    if (stage == "build") return cfg.build_timeout;
    if (stage == "timing" || stage == "profile") return cfg.timing.timeout;
    return cfg.trial_timeout;
  };
  auto stage_t0 = Clock::now();
  bool hello = false;
  TimingLease lease;  // held from "timing_ready" to the "timing" frame (src/eval/timing.h)
  auto go_t0 = Clock::now();
  int next_call = 0;  // the worker's next timed call (its "call" frames, src/eval/timing_plan.h)
  // Every timed phase goes call by call, the reference's too (the same cycle on both sides is
  // the parent clock's baseline); only a reference that re-checks for cached timings gets the
  // whole plan at once.
  const bool per_call =
      !(request.contains("timing") && request["timing"].value("recheck_only", false));
  // A candidate's timed phase may last a multiple of the reference's (the lease is the one
  // serialised resource); the reference's own phase is bounded by the timeout alone.
  const auto timing_limit = candidate && reference->timing
                                ? CandidateTimingBudget(cfg.timing, reference->timing->parent_ms)
                                : cfg.timing.timeout;
  for (;;) {
    // The timed phase has one deadline however many frames it takes.
    const auto deadline =
        pending == "timing" ? go_t0 + timing_limit : Clock::now() + timeout_for(pending);
    const ReadResult rr = ReadFrameUntil(child->from_child, buffer, deadline);
    if (rr.kind == ReadKind::kTimeout) {
      run.end = WorkerEnd::kTimeout;
      if (pending == "timing" && candidate && timing_limit < cfg.timing.timeout) {
        // Correct so far but too slow to time in full: a finished call bounds its speedup; a
        // worker that finished none is treated as hung.
        run.timing_over_budget = true;
        run.timing_budget_ms = static_cast<double>(timing_limit.count());
        run.timed_calls_done = std::max(0, next_call - 1);
        run.timing_parent_ms = MsSince(go_t0);
        if (run.timed_calls_done > 0) {
          run.end = WorkerEnd::kDone;
        } else {
          run.detail = fmt::format(
              "no timed call finished within the timing budget of {} ms ({}x the reference's "
              "timed phase, at least {} ms)",
              timing_limit.count(), cfg.timing.slow_factor, cfg.timing.slow_floor.count());
        }
      }
      break;
    }
    if (rr.kind == ReadKind::kEof) {
      run.end = WorkerEnd::kEof;
      run.detail = rr.error;
      break;
    }
    if (rr.kind == ReadKind::kMalformed) {
      run.end = WorkerEnd::kMalformed;
      run.detail = rr.error;
      break;
    }
    const json& h = rr.frame.header;
    const std::string type = GetString(h, "type");
    if (type == "error") {
      run.end = WorkerEnd::kError;
      run.error_frame = rr.frame;
      break;
    }
    if (per_call && pending == "timing" && type == "call") {
      const auto index = GetInt(h, "index");
      if (!index || *index != next_call || next_call > TimedCalls(cfg.timing)) {
        run.end = WorkerEnd::kProtocol;
        run.detail = fmt::format("timing: a call frame out of order (expected call {})", next_call);
        break;
      }
      run.call_frame_ms.push_back(MsSince(go_t0));
      (void)WriteAll(child->to_child, EncodeFrame(CallAnswer(cfg.timing, next_call)));
      ++next_call;
      continue;
    }
    if (per_call && type == "timing" && next_call != TimedCalls(cfg.timing) + 1) {
      run.end = WorkerEnd::kProtocol;
      run.detail = fmt::format("timing: the timing frame came after {} of {} calls", next_call,
                               TimedCalls(cfg.timing) + 1);
      break;
    }
    std::string want;
    if (pending == "startup") {
      want = hello ? "variants" : "hello";
    } else if (pending == "import" || pending == "build" || pending == "timing_ready") {
      want = "stage";
    } else if (pending == "trial") {
      want = "trial";
    } else if (pending == "timing") {
      want = "timing";
    } else if (pending == "profile") {
      want = "profile";
    } else {
      want = "done";
    }
    const bool stage_ok = want != "stage" || GetString(h, "stage") == pending;
    if (type != want || !stage_ok) {
      run.end = WorkerEnd::kProtocol;
      run.detail = fmt::format("expected a '{}' frame while in stage {}, got '{}'", want, pending,
                               Truncate(type, 40));
      break;
    }
    run.stage_ms[pending] += MsSince(stage_t0);
    stage_t0 = Clock::now();
    run.frames.push_back(rr.frame);
    if (type == "hello") {
      hello = true;
    } else if (type == "variants") {
      variant_names = GetStrings(h, "variants");
      variants = variant_names.size();
      if (variants == 0 || variants > 16) {
        run.end = WorkerEnd::kProtocol;
        run.detail = "bad variant list";
        break;
      }
      pending = candidate ? "import" : "build";
    } else if (type == "stage" && pending == "import") {
      pending = "build";
    } else if (type == "stage" && pending == "timing_ready") {
      if (candidate) {
        run.trials = CheckTrials(cfg, run.frames, *reference);
        if (!run.trials->failures.empty()) {
          run.timing_skipped = true;
          run.end = WorkerEnd::kDone;
          break;
        }
      }
      // Exclusive use of the GPU for timing; correctness of other samples may go on.
      auto got = AcquireTimingLease(cfg.timing.lock_dir, cfg.timing.device_key);
      if (!got.ok()) {
        run.end = WorkerEnd::kSpawnFailed;
        run.lease_error = got.status().message();
        run.detail = run.lease_error;
        break;
      }
      lease = std::move(*got);
      run.lease_wait_ms = lease.wait_ms();
      go_t0 = Clock::now();
      // A worker gets only the warm-up seeds now, then each timed call's seed just before it
      // and each re-check decision just after it (the "call" frames above).
      (void)WriteAll(child->to_child, EncodeFrame({{"type", "go"},
                                                   {"plan", per_call ? PerCallTimingPlan(cfg.timing)
                                                                     : TimingPlan(cfg.timing)}}));
      stage_t0 = go_t0;
      pending = "timing";
    } else if (type == "timing") {
      run.timing_parent_ms = MsSince(go_t0);
      lease.Release();
      pending = "profile";
    } else if (type == "profile") {
      pending = "done";
    } else if (type == "stage") {
      if (variant_at >= variant_names.size()) {
        run.end = WorkerEnd::kProtocol;
        run.detail = "a build stage beyond the variant list";
        break;
      }
      built = true;
      variant_trials = TrialIndicesFor(cfg, variant_names[variant_at]);
      pending = variant_trials.empty() ? "next" : "trial";
      trial_at = 0;
      if (candidate && !variant_trials.empty()) send_seed();
    } else if (type == "trial") {
      if (++trial_at == variant_trials.size()) {
        pending = "next";
      } else if (candidate) {
        send_seed();
      }
    } else if (type == "done") {
      run.end = WorkerEnd::kDone;
      break;
    }
    if (pending == "next") {
      ++variant_at;
      pending = variant_at < variants ? "build" : cfg.timing.enabled ? "timing_ready" : "done";
    }
  }
  (void)built;
  run.pending = pending;
  // After "done" or "error" everything needed is in hand: no grace. After EOF
  // the worker is dying; wait briefly for its exit status (the signal name).
  run.fin = Finish(*child, std::chrono::milliseconds(run.end == WorkerEnd::kEof ? 3000 : 0));
  run.log_tail = LogTail(dir + "/worker.log");
  run.wall_ms = MsSince(t0);
  return run;
}

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
  if (const auto large = TrialIndicesFor(cfg, "large"); large.size() < cfg.schedule.size())
    req["variant_trials"] = {{"large", large}};
  if (cfg.timing.enabled) req["timing"] = TimingRequest(cfg.timing, "");
  return req;
}

// A parsed output description + its bytes, validated against the payload.
Result<OutputRecord> ParseOutput(const json& d, const std::string& payload) {
  OutputRecord o;
  const auto dtype = ParseDType(GetString(d, "dtype"));
  if (!dtype)
    return Status::ParseError(
        fmt::format("unsupported output dtype '{}'", Truncate(GetString(d, "dtype"), 40)));
  o.dtype = *dtype;
  auto shape_it = d.find("shape");
  if (shape_it == d.end() || !shape_it->is_array() || shape_it->size() > 16)
    return Status::ParseError("bad output shape");
  for (const auto& v : *shape_it) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
      return Status::ParseError("bad output shape");
    o.shape.push_back(v.get<std::int64_t>());
  }
  o.device = GetString(d, "device");
  const auto offset = GetInt(d, "offset"), nbytes = GetInt(d, "nbytes");
  const auto n = NumElements(o.shape);
  if (!offset || !nbytes || *offset < 0 || *nbytes < 0 || !n ||
      static_cast<std::uint64_t>(*offset) + static_cast<std::uint64_t>(*nbytes) > payload.size() ||
      static_cast<std::uint64_t>(*nbytes) != static_cast<std::uint64_t>(*n) * DTypeSize(o.dtype)) {
    return Status::ParseError("output bytes do not match the declared shape and dtype");
  }
  o.bytes = payload.substr(static_cast<std::size_t>(*offset), static_cast<std::size_t>(*nbytes));
  return o;
}

// Checks a candidate's trial frames against the reference's records (proof of work, inputs,
// outputs). Every header and payload is untrusted.
TrialCheck CheckTrials(const EngineConfig& cfg, const std::vector<Frame>& frames,
                       const ReferenceResult& ref) {
  TrialCheck out;
  auto& [own_kernels, other_kernels, aten_ops, forbidden, modes, max_abs, max_rel, max_margin,
         min_launches, trials_checked, imported, failures] = out;
  auto fail = [&](const std::string& code, std::string msg) {
    if (!failures.count(code)) failures[code] = Reason{"correctness", code, std::move(msg)};
  };
  std::size_t ref_at = 0;
  for (const Frame& f : frames) {
    const json& h = f.header;
    const std::string type = GetString(h, "type");
    if (type == "stage" && GetString(h, "stage") == "import") {
      imported = true;
      const auto inherits = GetStrings(h, "inherits_reference");
      if (!inherits.empty())
        fail("inherits_reference", fmt::format("ModelNew derives from the task's {}", inherits[0]));
      continue;
    }
    if (type == "variants") {
      if (GetStrings(h, "variants") != ref.variants)
        fail("protocol_violation", "variant list differs from the request");
      continue;
    }
    if (type != "trial") continue;
    if (ref_at >= ref.trials.size()) {
      fail("protocol_violation", "more trials than requested");
      break;
    }
    const TrialRecord& rt = ref.trials[ref_at++];
    const std::string where = fmt::format("{} trial {}", rt.variant, rt.index);
    ++trials_checked;
    if (GetString(h, "variant") != rt.variant || GetInt(h, "index").value_or(-1) != rt.index ||
        GetInt(h, "seed").value_or(-1) != rt.seed) {
      fail("protocol_violation", fmt::format("{}: trial frame out of order", where));
      continue;
    }
    const TrialSpec& spec = cfg.schedule[static_cast<std::size_t>(rt.index)];
    modes.insert(
        fmt::format("{}/{}", spec.train ? "train" : "eval", spec.grad ? "grad" : "no_grad"));
    if (GetString(h, "input_sha256") != rt.input_sha256) {
      fail("inputs_differ", fmt::format("{}: the candidate's process saw different inputs than the "
                                        "reference's (task module altered?)",
                                        where));
    }
    if (GetString(h, "input_sha256_after") != GetString(h, "input_sha256")) {
      fail("input_mutated", fmt::format("{}: forward changed its inputs", where));
    }
    if (!GetBool(h, "hooks_intact", false))
      fail("hooks_tampered",
           fmt::format("{}: the launch hook or the ATen audit was removed or replaced", where));
    if (GetBool(h, "global_state_changed", true))
      fail("global_state_changed",
           fmt::format("{}: forward changed process-wide torch settings", where));
    int own = 0;
    auto launches = h.find("launches");
    if (launches != h.end() && launches->is_array()) {
      for (const auto& l : *launches) {
        if (!l.is_array() || l.size() != 2 || !l[0].is_string() || !l[1].is_boolean()) continue;
        const std::string name = Truncate(l[0].get<std::string>(), 100);
        if (l[1].get<bool>()) {
          ++own;
          own_kernels.insert(name);
        } else {
          other_kernels.insert(name);
        }
      }
    }
    min_launches = min_launches < 0 ? own : std::min(min_launches, own);
    if (own == 0) {
      fail("no_triton_launch",
           fmt::format("{} ({}): no kernel defined in the candidate file ran during forward{}",
                       where, *modes.rbegin(),
                       other_kernels.empty()
                           ? ""
                           : fmt::format(" (other kernels: {})", fmt::join(other_kernels, ", "))));
    }
    if (GetBool(h, "compiled_path", false) && GetInt(h, "c_launches").value_or(0) < 1) {
      fail("no_triton_launch", fmt::format("{}: Triton's launcher hook saw no launch", where));
    }
    for (const auto& op : GetStrings(h, "aten_ops")) aten_ops.insert(Truncate(op, 80));
    const auto bad_ops = GetStrings(h, "forbidden_ops");
    for (const auto& op : bad_ops) forbidden.insert(Truncate(op, 80));
    if (!bad_ops.empty()) {
      fail("forbidden_aten_op",
           fmt::format("{}: ATen compute ops outside the allowlist ran during forward: {}", where,
                       fmt::join(bad_ops, ", ")));
    }
    if (!GetString(h, "outputs_error").empty()) {
      fail("output_structure",
           fmt::format("{}: {}", where, Truncate(GetString(h, "outputs_error"), 200)));
      continue;
    }
    auto outs = h.find("outputs");
    if (outs == h.end() || !outs->is_array() || outs->size() != rt.outputs.size()) {
      fail("output_count",
           fmt::format("{}: {} outputs, expected {}", where,
                       outs != h.end() && outs->is_array() ? outs->size() : 0, rt.outputs.size()));
      continue;
    }
    for (std::size_t i = 0; i < rt.outputs.size(); ++i) {
      const json& d = (*outs)[i];
      const OutputRecord& r = rt.outputs[i];
      if (!d.is_object() || !GetBool(d, "type_ok", false)) {
        fail("output_type", fmt::format("{}: output {} is a {}, not exactly torch.Tensor", where, i,
                                        d.is_object() ? Truncate(GetString(d, "type"), 80) : "?"));
        continue;
      }
      if (GetBool(d, "alias", true)) {
        fail("output_aliases_input",
             fmt::format("{}: output {} shares storage with an input", where, i));
      }
      auto o = ParseOutput(d, f.payload);
      if (!o.ok()) {
        fail("protocol_violation",
             fmt::format("{}: output {}: {}", where, i, o.status().message()));
        continue;
      }
      if (o->device != r.device) {
        fail("output_device", fmt::format("{}: output {} on {}, expected {}", where, i,
                                          Truncate(o->device, 20), r.device));
      }
      const CompareResult cmp =
          CompareTensor({o->dtype, o->shape, o->bytes}, {r.dtype, r.shape, r.bytes}, ref.tolerance);
      if (std::isfinite(cmp.max_abs_err)) max_abs = std::max(max_abs, cmp.max_abs_err);
      if (std::isfinite(cmp.rel_l2)) max_rel = std::max(max_rel, cmp.rel_l2);
      if (std::isfinite(cmp.tolerance_margin))
        max_margin = std::max(max_margin, cmp.tolerance_margin);
      if (!cmp.ok) fail(cmp.code, fmt::format("{}: output {}: {}", where, i, cmp.message));
    }
  }

  return out;
}

std::string ExitReasonCode(const ExitInfo& e) {
  if (!e.known) return "missing_record";
  if (e.signaled) return e.signal == SIGXCPU ? "cpu_time_limit" : "signal";
  return "missing_record";
}

// Outcome and reason for a worker that did not finish its sequence.
std::pair<std::string, Reason> ClassifyEnd(const WorkerRun& run) {
  const std::string stage =
      run.pending == "timing_ready" || run.pending == "timing" || run.pending == "profile"
          ? "timing"
      : run.pending == "trial" || run.pending == "next" || run.pending == "done" ? "correctness"
                                                                                 : run.pending;
  switch (run.end) {
    case WorkerEnd::kTimeout:
      return {
          "timeout",
          {stage, "stage_timeout",
           run.detail.empty()
               ? fmt::format("no result within the {} stage limit; the process group was killed",
                             run.pending)
               : run.detail}};
    case WorkerEnd::kError: {
      const json& h = run.error_frame.header;
      const std::string exc = Truncate(GetString(h, "exc_type"), 80);
      const std::string where = GetString(h, "stage");
      const std::string msg = Truncate(GetString(h, "message"), 1200);
      // Triton reports kernel compile failures as CompilationError; under
      // TRITON_INTERPRET=1 the same failures surface as InterpreterError.
      const bool compile = where == "import" || where == "build" ||
                           exc.find("CompilationError") != std::string::npos ||
                           exc == "InterpreterError";
      return {
          compile ? "compile_error" : "runtime_error",
          {stage, compile ? "compile_exception" : "exception", fmt::format("{}: {}", exc, msg)}};
    }
    case WorkerEnd::kMalformed:
    case WorkerEnd::kProtocol:
      return {"runtime_error", {stage, "protocol_violation", run.detail}};
    case WorkerEnd::kSpawnFailed:
      return {"runtime_error", {"startup", "spawn_failed", run.detail}};
    case WorkerEnd::kEof:
    case WorkerEnd::kDone:
      break;
  }
  const ExitInfo& e = run.fin.exit;
  if (e.known && e.signaled && e.signal == SIGXCPU) {
    return {"timeout", {stage, "cpu_time_limit", "CPU time limit reached (SIGXCPU)"}};
  }
  std::string msg = fmt::format("the worker ended ({}) before sending all results", e.ToString());
  const std::string tail = Truncate(run.log_tail, 400);
  if (!tail.empty()) msg += "; log tail: " + tail;
  return {"runtime_error", {stage, ExitReasonCode(e), msg}};
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
  if (v.outcome != "correct") return;
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
    v.outcome = "runtime_error";
    v.reasons.push_back({"timing", "missing_record", "no timing result"});
    return;
  }
  auto phase = ParseTimingFrame(*frame, cfg.timing);
  if (!phase.ok()) {
    v.outcome = "runtime_error";
    v.reasons.push_back({"timing", "protocol_violation", phase.status().message()});
    return;
  }
  phase->parent_ms = run.timing_parent_ms;
  phase->call_frame_ms = run.call_frame_ms;
  phase->lease_wait_ms = run.lease_wait_ms;
  for (const Frame& f : run.frames) {
    if (GetString(f.header, "type") == "profile") MergeProfileFrame(f, *phase);
  }
  // The load rule (src/eval/timing_verdict.h): only forged timing or a wrong timed output fails;
  // contention voids the speedup.
  const TimingJudgement j =
      JudgeTiming(*phase, *ref.timing, cfg.timing, ref.tolerance, cfg.device_model);
  v.evidence["timing"] = j.evidence;
  const TimingRuling ruling = RuleOnTiming(j, cfg.timing.strict);
  if (ruling.incorrect) v.outcome = "incorrect";
  for (const auto& r : ruling.reasons)
    v.reasons.push_back({"timing", r.code, Truncate(r.message, 1200)});
  for (const auto& f : ruling.flags) v.flags.push_back(f);
  if (v.outcome == "correct") v.speedup = ruling.speedup;
}

}  // namespace

std::uint64_t DrawSecretSeed() {
  std::uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
    std::random_device rd;  // fallback; still not derivable from the task
    v = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  return v & ((1ull << 62) - 1);
}

std::vector<TrialSpec> MakeSchedule(int trials, std::uint64_t secret_seed) {
  trials = std::max(trials, 1);
  std::vector<TrialSpec> out;
  const int secret_at = static_cast<int>(secret_seed % static_cast<std::uint64_t>(trials));
  int pub = 0;
  for (int i = 0; i < trials; ++i) {
    TrialSpec t;
    t.secret = i == secret_at;
    t.seed = t.secret ? static_cast<std::int64_t>(secret_seed) : 42 + 1000003LL * pub++;
    t.train = i % 4 == 0 || i % 4 == 2;
    t.grad = i % 4 == 0 || i % 4 == 3;
    out.push_back(t);
  }
  return out;
}

std::vector<int> TrialIndicesFor(const EngineConfig& cfg, const std::string& variant) {
  const int n = static_cast<int>(cfg.schedule.size());
  const int cap = cfg.large_variant_trials;
  std::vector<int> out;
  if (variant != "large" || cap <= 0 || cap >= n) {
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  int publics = cap - 1;
  for (int i = 0; i < n; ++i) {
    if (cfg.schedule[static_cast<std::size_t>(i)].secret) {
      out.push_back(i);
    } else if (publics > 0) {
      out.push_back(i);
      --publics;
    }
  }
  return out;
}

json Verdict::ToJson() const {
  json reasons_json = json::array();
  for (const auto& r : reasons)
    reasons_json.push_back({{"stage", r.stage}, {"code", r.code}, {"message", r.message}});
  json j = {{"sample", sample},
            {"task", task},
            {"outcome", outcome},
            {"reasons", reasons_json},
            {"flags", flags},
            {"sandbox", sandbox},
            {"timings_ms", timings_ms},
            {"evidence", evidence},
            {"speedup", speedup ? json(*speedup) : json(nullptr)},
            {"device", device},
            {"provisional", provisional},
            {"from_cache", from_cache}};
  if (infra_failure) j["infra_failure"] = true;
  return j;
}

ReferenceResult RunReference(const EngineConfig& cfg, const std::string& task_path) {
  ReferenceResult ref;
  auto dir = MakeWorkDir(cfg.work_dir);
  if (!dir.ok()) {
    ref.error = {"reference", "io_error", dir.status().message()};
    return ref;
  }
  WorkDir guard{*dir, cfg.keep_work};
  json req = MakeRequest(cfg, "reference", task_path, "", {}, 0);
  std::optional<TimingPhase> cached;
  if (cfg.timing.enabled && cfg.cached_reference_timing)
    cached = cfg.cached_reference_timing(task_path);
  if (cached) req["timing"]["recheck_only"] = true;
  const WorkerRun run = DriveWorker(cfg, req, *dir, nullptr);
  ref.ms = run.wall_ms;
  ref.sandbox = run.fin.sandbox;
  if (run.end != WorkerEnd::kDone) {
    auto [outcome, reason] = ClassifyEnd(run);
    reason.stage = "reference";
    reason.message = fmt::format("{} ({}): {}", task_path, reason.code, reason.message);
    reason.code = "reference_failed";
    ref.error = reason;
    return ref;
  }
  for (const Frame& f : run.frames) {
    const std::string type = GetString(f.header, "type");
    if (type == "variants") {
      ref.variants = GetStrings(f.header, "variants");
      ref.tolerance.atol = GetDouble(f.header, "atol", 1e-4);
      ref.tolerance.rtol = GetDouble(f.header, "rtol", 1e-4);
      ref.dtype = GetString(f.header, "dtype");
    } else if (type == "timing") {
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
          merged.lease_wait_ms = run.lease_wait_ms;
          ref.timing = std::move(merged);
        }
      } else {
        phase->parent_ms = run.timing_parent_ms;
        phase->call_frame_ms = run.call_frame_ms;
        phase->lease_wait_ms = run.lease_wait_ms;
        if (cfg.store_reference_timing) cfg.store_reference_timing(task_path, *phase);
        ref.timing = std::move(*phase);
      }
    } else if (type == "trial") {
      TrialRecord t;
      t.variant = GetString(f.header, "variant");
      t.index = static_cast<int>(GetInt(f.header, "index").value_or(-1));
      t.seed = GetInt(f.header, "seed").value_or(0);
      t.input_sha256 = GetString(f.header, "input_sha256");
      auto outs = f.header.find("outputs");
      if (outs == f.header.end() || !outs->is_array() || outs->empty()) {
        ref.error = {"reference", "reference_failed",
                     fmt::format("{}: the reference returned no tensor output", task_path)};
        return ref;
      }
      for (const auto& d : *outs) {
        auto o = ParseOutput(d, f.payload);
        if (!GetBool(d, "type_ok", false) || !o.ok()) {
          ref.error = {"reference", "reference_failed",
                       fmt::format("{}: unusable reference output", task_path)};
          return ref;
        }
        t.outputs.push_back(std::move(*o));
      }
      ref.trials.push_back(std::move(t));
    }
  }
  ref.ok = true;
  return ref;
}

Verdict RunCandidate(const EngineConfig& cfg, const std::string& task_path, const std::string& code,
                     const ReferenceResult& ref) {
  Verdict v;
  v.device = cfg.device;
  v.provisional = cfg.device == "cpu";
  const auto t0 = Clock::now();
  if (!ref.ok) {
    v.outcome = "runtime_error";
    v.reasons.push_back(ref.error);
    v.infra_failure = true;
    return v;
  }
  auto dir = MakeWorkDir(cfg.work_dir);
  if (!dir.ok()) {
    v.outcome = "runtime_error";
    v.infra_failure = true;
    v.reasons.push_back({"startup", "io_error", dir.status().message()});
    return v;
  }
  WorkDir guard{*dir, cfg.keep_work};
  const std::string cand_path = *dir + "/candidate.py";
  if (Status s = WriteFileAtomic(cand_path, code); !s.ok()) {
    v.outcome = "runtime_error";
    v.infra_failure = true;
    v.reasons.push_back({"startup", "io_error", s.message()});
    return v;
  }
  const json req = MakeRequest(cfg, "candidate", task_path, fs::canonical(cand_path).string(),
                               ref.variants, cfg.malloc_perturb);
  const WorkerRun run = DriveWorker(cfg, req, *dir, &ref);
  v.sandbox = run.fin.sandbox.ToJson();
  v.timings_ms["reference"] = ref.ms;
  for (const auto& [stage, ms] : run.stage_ms) {
    if (stage == "trial") v.timings_ms["correctness"] = ms;
    if (stage == "startup" || stage == "import" || stage == "build") v.timings_ms[stage] = ms;
  }
  v.timings_ms["worker_wall"] = run.wall_ms;

  // Evidence from whatever frames arrived (all untrusted after the import); computed when timing
  // began unless it was skipped, since no trial frame can follow that point.
  const TrialCheck c = run.trials ? *run.trials : CheckTrials(cfg, run.frames, ref);
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
  if (run.end != WorkerEnd::kDone) v.evidence["exit"] = run.fin.exit.ToString();
  v.compiled = c.imported && c.trials_checked > 0;
  if (run.end != WorkerEnd::kDone) {
    auto [outcome, reason] = ClassifyEnd(run);
    v.outcome = outcome;
    v.reasons.push_back(reason);
    if (reason.stage == "startup") v.infra_failure = true;  // before the candidate was imported
    if (outcome == "compile_error") v.compiled = false;
  } else if (!c.failures.empty()) {
    v.outcome = "incorrect";
  } else if (c.trials_checked != static_cast<int>(ref.trials.size())) {
    v.outcome = "runtime_error";
    v.reasons.push_back({"correctness", "missing_record", "fewer trial results than requested"});
  } else {
    v.outcome = "correct";
  }
  for (const auto& [code_id, reason] : c.failures) v.reasons.push_back(reason);
  ApplyTimingStage(cfg, run, ref, v);
  if (v.outcome == "correct" && c.max_margin > kNearToleranceMargin) {
    v.flags.push_back("near_tolerance");
  }
  // Torch did (part of) the work: the sample is not correct whatever its numbers.
  if (c.failures.count("forbidden_aten_op")) v.flags.push_back("lazy_optimization");
  if (run.fin.sandbox.Level() != "full") {
    v.flags.push_back("degraded_sandbox");
  }
  v.wall_ms = MsSince(t0);
  v.timings_ms["total"] = v.wall_ms;
  return v;
}

}  // namespace tritonrl::eval
