// tritonrl eval: score a sample file against a task suite. Static verification,
// then sandboxed runtime evaluation (src/eval), verdicts in the results store
// (cache, resume, shards), metrics, a table or one JSON document, an HTML report.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "cli/command.h"
#include "eval/engine.h"
#include "eval/locate.h"
#include "eval/pool.h"
#include "eval/progress.h"
#include "eval/sandbox_check.h"
#include "metrics/metrics.h"
#include "report/report.h"
#include "store/store.h"
#include "task/task.h"
#include "verify/allowlist.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
namespace ev = tritonrl::eval;
using nlohmann::json;

// Bumped whenever a change can alter a verdict: old cached verdicts then no longer match.
constexpr const char* kEvaluatorVersion = "tritonrl-eval/9";

struct Options {
  std::string tasks, samples, db, device = "auto", report, shard = "0/1", run_id, python, runner,
                                  work_dir;
  std::string policy = "standard";
  // The timing stage (src/eval/timing.h, docs/measurement.md).
  int timing_trials = 100;
  std::string baseline = "eager";
  double lazy_threshold = 0.8, speedup_cap = 10.0;
  double slow_factor = 50.0, slow_floor = 10.0;  // a candidate's timing budget (seconds)
  bool cpu_timing = false, no_timing = false;
  int jobs = 1, trials = 5;
  int large_trials = 2;      // correctness trials of the 'large' variant
  double stage_timeout = 0;  // seconds; 0 = defaults
  bool json_out = false, no_cache = false, no_static = false, keep_work = false, no_sandbox = false;
};

struct Line {
  int line = 0;
  std::string task, sample, text, kind;  // kind: "output" or "code"
};

[[noreturn]] void Fail(const std::string& message) {
  throw std::runtime_error(message);
}

std::vector<Line> ReadSamples(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(fmt::format("{}: cannot open the sample file", path));
  std::vector<Line> out;
  std::set<std::pair<std::string, std::string>> seen;
  std::string text;
  int n = 0;
  while (std::getline(in, text)) {
    ++n;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      Fail(fmt::format("{}:{}: not a JSON object (truncated line?)", path, n));
    Line l;
    l.line = n;
    if (!j.contains("task") || !j["task"].is_string())
      Fail(fmt::format("{}:{}: missing string field \"task\"", path, n));
    l.task = j["task"].get<std::string>();
    if (j.contains("sample")) {
      l.sample = j["sample"].is_string() ? j["sample"].get<std::string>() : j["sample"].dump();
    } else {
      l.sample = fmt::format("line{}", n);
    }
    if (j.contains("code") && j["code"].is_string()) {
      l.text = j["code"].get<std::string>();
      l.kind = "code";
    } else if (j.contains("output") && j["output"].is_string()) {
      l.text = j["output"].get<std::string>();
      l.kind = "output";
    } else {
      Fail(fmt::format("{}:{}: needs a string field \"output\" or \"code\"", path, n));
    }
    if (!seen.insert({l.task, l.sample}).second) {
      Fail(fmt::format("{}:{}: duplicate sample \"{}\" for task {}", path, n, l.sample, l.task));
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::string DetectDevice(const std::string& requested) {
  if (requested == "cpu" || requested == "cuda") return requested;
  if (requested != "auto") Fail("--device must be auto, cpu or cuda");
  std::error_code ec;
  return fs::exists("/dev/nvidia0", ec) ? "cuda" : "cpu";
}

std::string DeviceModel(const std::string& device) {
  if (device == "cpu") return "cpu";
  std::string name;
  if (FILE* p = popen("nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null", "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) name += buf;
    pclose(p);
  }
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name.empty() ? "cuda" : name;
}

std::pair<int, int> ParseShard(const std::string& s) {
  int i = 0, n = 0;
  char slash = 0;
  std::istringstream in(s);
  if (!(in >> i >> slash >> n) || slash != '/' || n < 1 || i < 0 || i >= n || !in.eof()) {
    Fail(fmt::format("--shard {}: expected i/n with 0 <= i < n", s));
  }
  return {i, n};
}

int LevelOf(const std::string& task_id) {
  if (task_id.rfind("level", 0) != 0) return 0;
  return std::atoi(task_id.c_str() + 5);
}

json MetricsJson(const tritonrl::metrics::GroupMetrics& g) {
  json fast = json::object();
  for (const auto& f : g.fast_p) fast[tritonrl::metrics::FastName(f.p)] = f.rate;
  json pass = json::object();
  for (const auto& p : g.pass_at_k) {
    pass[fmt::format("{}@{}", p.criterion, p.k)] = p.value ? json(*p.value) : json(nullptr);
  }
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"name", g.name},
          {"samples", g.samples},
          {"tasks", g.tasks},
          {"valid", g.valid_rate},
          {"compiled", g.compiled_rate},
          {"correct", g.correct_rate},
          {"fast_p", fast},
          {"mean_speedup", opt(g.mean_speedup)},
          {"geomean_speedup", opt(g.geomean_speedup)},
          {"pass_at_k", pass},
          {"outcome_shares",
           {{"invalid_syntax", g.shares.invalid_syntax_share},
            {"invalid_functionality", g.shares.invalid_functionality_share},
            {"correct", g.shares.correct_share},
            {"other", g.shares.other_share}}}};
}

ev::Verdict StaticVerdict(const tritonrl::verify::Verdict& sv) {
  ev::Verdict v;
  v.outcome = sv.outcome;
  v.syntax_ok = sv.syntax_ok;
  v.functionality_ok = sv.functionality_ok;
  for (const auto& f : sv.violations) {
    v.reasons.push_back(
        {"static", f.rule,
         f.line > 0 ? fmt::format("line {}:{}: {} ({})", f.line, f.col, f.message, f.detail)
                    : fmt::format("{} ({})", f.message, f.detail)});
  }
  v.evidence["static"] = tritonrl::verify::ToJson(sv);
  return v;
}

tritonrl::store::VerdictRecord ToRecord(const ev::Verdict& v, const tritonrl::store::SampleKey& key,
                                        const std::string& cache_key,
                                        const std::string& device_model) {
  tritonrl::store::VerdictRecord r;
  r.key = key;
  r.cache_key = cache_key;
  r.cacheable = !v.infra_failure;
  r.from_cache = v.from_cache;
  r.outcome = v.outcome;
  r.syntax_ok = v.syntax_ok;
  r.functionality_ok = v.functionality_ok;
  r.valid = v.syntax_ok && v.functionality_ok;
  r.compiled = v.compiled;
  r.correct = v.outcome == "correct";
  r.speedup = v.speedup;
  r.flags = v.flags;
  for (const auto& reason : v.reasons)
    r.reasons.push_back(fmt::format("[{}] {}: {}", reason.stage, reason.code, reason.message));
  r.evidence_json = v.ToJson().dump();
  r.sandbox_level = v.sandbox.is_object() && v.sandbox.contains("level")
                        ? v.sandbox["level"].get<std::string>()
                        : "n/a";
  r.device_model = device_model;
  r.wall_seconds = v.wall_ms / 1000.0;
  // The timed trials of both sides (docs/measurement.md), for the store's timing table.
  if (v.evidence.is_object() && v.evidence.contains("timing") && v.evidence["timing"].is_object()) {
    const json& t = v.evidence["timing"];
    for (const std::string who : {"reference", "candidate"}) {
      auto it = t.find(who + "_event_ms");
      if (it == t.end() || !it->is_object()) continue;
      tritonrl::store::TrialStats ts;
      ts.subject = who;
      ts.variant = t.value("variant", "");
      ts.trials = it->value("n", 0);
      ts.median_ms = it->value("median", 0.0);
      ts.mean_ms = it->value("mean", 0.0);
      ts.min_ms = it->value("min", 0.0);
      ts.max_ms = it->value("max", 0.0);
      ts.stddev_ms = it->value("stddev", 0.0);
      r.trial_stats.push_back(ts);
    }
  }
  if (v.timings_ms.is_object()) {
    for (const auto& [stage, ms] : v.timings_ms.items()) {
      if (ms.is_number()) r.stage_timings.push_back({stage, ms.get<double>() / 1000.0});
    }
  }
  return r;
}

// The verdict JSON of a stored record (the full verdict is kept in evidence_json).
json RecordJson(const tritonrl::store::VerdictRecord& r) {
  json j = json::parse(r.evidence_json, nullptr, false);
  if (!j.is_object()) j = json::object();
  j["sample"] = r.key.sample_id;
  j["task"] = r.key.task_id;
  j["outcome"] = r.outcome;
  j["from_cache"] = r.from_cache;
  return j;
}

int RunEval(const Options& o) {
  const std::string device = DetectDevice(o.device);
  const std::string device_model = DeviceModel(device);
  const auto [shard_i, shard_n] = ParseShard(o.shard);
  if (o.trials < 5) Fail("--trials must be at least 5");
  if (o.jobs < 1) Fail("--jobs must be at least 1");
  auto policy = tritonrl::verify::ParsePolicy(o.policy);
  if (!policy.ok()) Fail(policy.status().message());

  auto suite = tritonrl::task::LoadSuite(o.tasks);
  if (!suite.ok()) Fail(suite.status().message());
  std::vector<Line> lines = ReadSamples(o.samples);
  for (const auto& l : lines) {
    if (!tritonrl::task::FindTask(*suite, l.task)) {
      std::string why;
      for (const auto& e : suite->errors) {
        if (e.file.find(l.task) != std::string::npos) why = "; " + e.ToString();
      }
      Fail(fmt::format("{}:{}: unknown task \"{}\" in {}{}", o.samples, l.line, l.task, o.tasks,
                       why));
    }
  }
  // This shard's lines, grouped by task (the reference of a task is computed once).
  std::vector<Line> mine;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(shard_n)) == shard_i)
      mine.push_back(lines[i]);
  }
  std::stable_sort(mine.begin(), mine.end(),
                   [](const Line& a, const Line& b) { return a.task < b.task; });

  // Engine configuration.
  ev::EngineConfig cfg;
  auto runner = ev::LocateRunner(o.runner);
  if (!runner.ok()) Fail(runner.status().message());
  auto python = ev::LocateInterpreter(o.python, *runner);
  if (!python.ok()) Fail(python.status().message());
  cfg.python = *python;
  cfg.runner_dir = *runner;
  cfg.device = device;
  const std::uint64_t secret = ev::DrawSecretSeed();
  cfg.schedule = ev::MakeSchedule(o.trials, secret);
  if (o.large_trials < 1) Fail("--large-trials must be at least 1");
  cfg.large_variant_trials = o.large_trials;
  cfg.init_seed = static_cast<std::int64_t>(ev::DrawSecretSeed() % 1000000007ULL);
  cfg.keep_work = o.keep_work;
  if (o.timing_trials < 5) Fail("--timing-trials must be at least 5");
  if (o.baseline != "eager" && o.baseline != "compile") Fail("--baseline must be eager or compile");
  if (o.lazy_threshold < 0 || o.lazy_threshold > 1) Fail("--lazy-threshold must be within [0, 1]");
  cfg.timing.enabled = (device == "cuda" || o.cpu_timing) && !o.no_timing;
  cfg.timing.trials = o.timing_trials;
  cfg.timing.recheck = std::max(3, o.timing_trials / 10);
  cfg.timing.baseline = o.baseline;
  cfg.timing.lazy_threshold = o.lazy_threshold;
  cfg.timing.speedup_cap = o.speedup_cap;
  if (!(o.slow_factor > 0) || !(o.slow_floor >= 0))
    Fail("--slow-factor must be positive and --slow-floor not negative");
  cfg.timing.slow_factor = o.slow_factor;
  cfg.timing.slow_floor = std::chrono::milliseconds(static_cast<std::int64_t>(o.slow_floor * 1000));
  cfg.timing.strict = o.policy == "strict";
  if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES"); vis && *vis) {
    cfg.timing.device_key = "gpu-" + std::string(vis).substr(0, std::string(vis).find(','));
  }
  ev::DrawTimingPlan(cfg.timing, ev::DrawSecretSeed());
  cfg.device_model = device_model;
  const char* tmp = std::getenv("TMPDIR");
  cfg.work_dir =
      !o.work_dir.empty()
          ? o.work_dir
          : (fs::path(tmp && *tmp ? tmp : "/tmp") / fmt::format("tritonrl-eval-{}", getpid()))
                .string();
  std::error_code ec;
  fs::create_directories(cfg.work_dir, ec);
  cfg.allowlist_path = (fs::path(cfg.work_dir) / "allowlist.json").string();
  if (auto s = tritonrl::WriteFileAtomic(cfg.allowlist_path,
                                         std::string(tritonrl::verify::BuiltinAllowlistJson()));
      !s.ok()) {
    Fail(s.message());
  }
  cfg.sandbox.enabled = !o.no_sandbox;
  if (device == "cpu") {
    cfg.sandbox.forbid_fork = true;
    cfg.sandbox.address_space_bytes = 6ull << 30;
  } else {
    cfg.sandbox.forbid_fork = false;  // Triton runs ptxas and a C compiler on first launch
    cfg.sandbox.data_bytes = 64ull << 30;
  }
  cfg.sandbox.cpu_seconds = 1800;
  // Diagnostics only (documented in docs/eval.md): switch sandbox features off by name, e.g.
  // TRITONRL_SANDBOX_OFF=pidns,seccomp. Every verdict still records the level actually reached.
  if (const char* off = std::getenv("TRITONRL_SANDBOX_OFF"); off != nullptr) {
    if (auto s = ev::DisableSandboxFeatures(cfg.sandbox, off); !s.ok())
      Fail("TRITONRL_SANDBOX_OFF: " + s.message());
  }
  if (o.stage_timeout > 0) {
    const auto t = std::chrono::milliseconds(static_cast<long long>(o.stage_timeout * 1000));
    cfg.import_timeout = cfg.build_timeout = cfg.trial_timeout = t;
  }
  if (cfg.sandbox.enabled && cfg.sandbox.seccomp) {
    auto prog = ev::BuildSeccompProgram(cfg.sandbox.forbid_fork);
    if (prog.ok()) {
      cfg.seccomp_program = std::move(*prog);
    } else {
      cfg.sandbox.seccomp = false;  // recorded per verdict as a degraded sandbox
    }
  }
  const json config_json = {{"evaluator", kEvaluatorVersion},
                            {"device", device},
                            {"trials", o.trials},
                            {"large_trials", o.large_trials},
                            {"static", !o.no_static},
                            {"policy", o.policy},
                            {"sandbox", !o.no_sandbox},
                            {"stage_timeout_s", o.stage_timeout},
                            {"timing_trials", o.timing_trials},
                            {"baseline", o.baseline},
                            {"lazy_threshold", o.lazy_threshold},
                            {"speedup_cap", o.speedup_cap},
                            {"slow_factor", o.slow_factor},
                            {"slow_floor_s", o.slow_floor},
                            {"cpu_timing", o.cpu_timing},
                            {"no_timing", o.no_timing}};

  // The store: resume a run of the same samples and config unless --no-cache.
  std::string db = o.db;
  if (db.empty()) db = (fs::path(cfg.work_dir) / "results.db").string();
  auto store = tritonrl::store::Store::Open(db);
  if (!store.ok()) Fail(store.status().message());
  auto sample_bytes = tritonrl::ReadFile(o.samples);
  if (!sample_bytes.ok()) Fail(sample_bytes.status().message());
  tritonrl::store::RunInfo run;
  run.config_json = config_json.dump();
  run.sample_file = o.samples;
  run.sample_file_hash = tritonrl::store::Sha256Hex(*sample_bytes);
  run.device_model = device_model;
  run.tool_version = kEvaluatorVersion;
  run.shard = o.shard;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  run.host = host;
  run.id = !o.run_id.empty() ? o.run_id
           : o.no_cache      ? tritonrl::store::NewRunId()
                             : "eval-" + tritonrl::store::Sha256Hex(run.sample_file_hash +
                                                                    run.config_json + device_model)
                                        .substr(0, 16);
  if (auto s = store->BeginRun(run); !s.ok()) Fail(s.message());
  std::set<tritonrl::store::SampleKey> done;
  if (auto d = store->DoneSamples(run.id); d.ok()) done.insert(d->begin(), d->end());

  // Task records, static verification, cache lookups: everything decided before running.
  std::map<std::string, std::string> task_content;
  std::map<std::string, std::string> task_by_path;  // task file -> task id
  std::vector<ev::SampleJob> jobs;
  std::vector<tritonrl::store::SampleRecord> records;
  std::vector<std::string> cache_keys;
  std::size_t resumed = 0;
  tritonrl::verify::VerifyOptions vopts;
  vopts.policy = *policy;
  for (const Line& l : mine) {
    const tritonrl::task::TaskInfo* info = tritonrl::task::FindTask(*suite, l.task);
    tritonrl::store::SampleKey key{run.id, l.task, l.sample};
    if (done.count(key)) {
      ++resumed;
      continue;
    }
    if (!task_content.count(l.task)) {
      auto content = tritonrl::ReadFile(info->path);
      if (!content.ok()) Fail(content.status().message());
      task_content[l.task] = *content;
      task_by_path[info->path] = l.task;
      tritonrl::store::TaskRecord t;
      t.id = l.task;
      t.content = *content;
      t.suite_path = o.tasks;
      t.level = info->level.value_or(LevelOf(l.task));
      t.metadata_json =
          json{{"dtype", info->dtype}, {"atol", info->atol}, {"rtol", info->rtol}}.dump();
      if (auto s = store->PutTask(t); !s.ok()) Fail(s.message());
    }
    tritonrl::verify::Verdict sv = l.kind == "code" ? tritonrl::verify::VerifyCode(l.text, vopts)
                                                    : tritonrl::verify::VerifyOutput(l.text, vopts);
    std::string code = l.text;
    if (l.kind == "output")
      code = sv.code ? l.text.substr(sv.code->begin, sv.code->end - sv.code->begin) : "";
    ev::SampleJob job{l.sample, l.task, info->path, code, std::nullopt};
    const std::string cache_key = tritonrl::store::ComputeCacheKey(
        {task_content[l.task], l.text, run.config_json, device_model, kEvaluatorVersion});
    if (!o.no_cache) {
      auto hit = store->Lookup(cache_key);
      if (hit.ok() && hit->has_value()) {
        json j = RecordJson(**hit);
        ev::Verdict v;
        v.outcome = (*hit)->outcome;
        v.from_cache = true;
        v.syntax_ok = (*hit)->syntax_ok;
        v.functionality_ok = (*hit)->functionality_ok;
        v.compiled = (*hit)->compiled;
        v.speedup = (*hit)->speedup;
        v.flags = (*hit)->flags;
        if (j.contains("reasons") && j["reasons"].is_array()) {
          for (const auto& r : j["reasons"]) {
            v.reasons.push_back(
                {r.value("stage", ""), r.value("code", ""), r.value("message", "")});
          }
        }
        v.sandbox = j.value("sandbox", json::object());
        v.evidence = j.value("evidence", json::object());
        v.timings_ms = j.value("timings_ms", json::object());
        v.device = device;
        v.provisional = device == "cpu";
        job.pre_verdict = v;
      }
    }
    if (!job.pre_verdict && !o.no_static && !sv.valid) {
      ev::Verdict v = StaticVerdict(sv);
      v.device = device;
      job.pre_verdict = v;
    }
    if (!job.pre_verdict && code.empty()) {
      ev::Verdict v;
      v.outcome = "invalid_syntax";
      v.syntax_ok = false;
      v.reasons.push_back({"static", "no_code", "the output holds no code"});
      job.pre_verdict = v;
    }
    if (!job.pre_verdict) {
      // Keep the static evidence (warnings) beside the runtime evidence.
      job.code = code;
    }
    tritonrl::store::SampleRecord rec;
    rec.key = key;
    rec.task_hash = tritonrl::store::Sha256Hex(task_content[l.task]);
    rec.text_kind = l.kind;
    rec.text = l.text;
    rec.code = code;
    records.push_back(std::move(rec));
    cache_keys.push_back(cache_key);
    jobs.push_back(std::move(job));
  }

  const bool any_to_run =
      std::any_of(jobs.begin(), jobs.end(), [](const ev::SampleJob& j) { return !j.pre_verdict; });
  std::string sandbox_said = cfg.sandbox.enabled ? "" : ", no sandbox (test only)";
  if (cfg.sandbox.enabled && any_to_run) {
    // Some platforms refuse a sandbox feature only when the device initialises: find the
    // strongest sandbox this machine allows, say so, and record the level in every verdict.
    const ev::SandboxChoice choice = ev::ChooseSandbox(cfg);
    if (!choice.ok) {
      fmt::print(stderr, "eval: the {} probe fails even without a sandbox: {}\n", device,
                 choice.tried.back().detail);
    } else if (!choice.tried.back().dropped.empty()) {
      for (const auto& p : choice.tried) {
        fmt::print(stderr, "eval: sandbox probe with {} off: {} ({:.1f} s)\n",
                   p.dropped.empty() ? "nothing" : p.dropped, p.ok ? "ok" : p.detail, p.ms / 1000);
      }
      fmt::print(stderr, "eval: the full sandbox fails on this machine; running with {} off\n",
                 choice.tried.back().dropped);
      cfg.sandbox = choice.options;
    }
    if (choice.ok) {
      sandbox_said = fmt::format(
          ", sandbox {}{}", choice.tried.back().report.Level(),
          choice.tried.back().dropped.empty() ? "" : " (" + choice.tried.back().dropped + " off)");
    }
  }

  // Reference timings across runs: keyed by the task file, the timing protocol's settings, the
  // GPU model and the evaluator; the re-checks still run every time (secret seeds).
  std::mutex store_mu;  // the pool's threads share the store's connection
  if (cfg.timing.enabled && !o.no_cache) {
    const auto key_for = [&](const std::string& task_path) -> std::optional<std::string> {
      auto id = task_by_path.find(task_path);
      if (id == task_by_path.end()) return std::nullopt;
      const json settings = {{"trials", cfg.timing.trials},     {"warmup", cfg.timing.warmup},
                             {"baseline", cfg.timing.baseline}, {"device", device},
                             {"device_model", device_model},    {"evaluator", kEvaluatorVersion}};
      return tritonrl::store::Sha256Hex(task_content.at(id->second) + "\n" + settings.dump());
    };
    cfg.cached_reference_timing =
        [&, key_for](const std::string& task_path) -> std::optional<ev::TimingPhase> {
      const auto key = key_for(task_path);
      if (!key) return std::nullopt;
      std::lock_guard<std::mutex> lock(store_mu);
      auto hit = store->LookupReferenceTiming(*key);
      if (!hit.ok() || !hit->has_value()) return std::nullopt;
      auto phase = ev::ReferenceTimingFromJson(json::parse(**hit, nullptr, false));
      if (!phase.ok()) return std::nullopt;  // a damaged entry is re-measured
      return *phase;
    };
    cfg.store_reference_timing = [&, key_for](const std::string& task_path,
                                              const ev::TimingPhase& phase) {
      const auto key = key_for(task_path);
      if (!key) return;
      std::lock_guard<std::mutex> lock(store_mu);
      auto s = store->PutReferenceTiming(*key, task_by_path.at(task_path), device_model,
                                         ev::ReferenceTimingToJson(phase).dump());
      if (!s.ok()) fmt::print(stderr, "eval: reference timing not cached: {}\n", s.message());
    };
  }

  auto writer = tritonrl::store::VerdictWriter::Open(db);
  if (!writer.ok()) Fail(writer.status().message());
  const bool terminal = isatty(fileno(stderr)) != 0;
  ev::Progress progress(jobs.size(), terminal, stderr);
  if (resumed)
    fmt::print(stderr, "eval: resuming run {}: {} samples already done\n", run.id, resumed);
  fmt::print(stderr, "eval: {} samples on {} ({}), {} jobs, {} trials{}, run {}\n", jobs.size(),
             device, device_model, o.jobs, o.trials, sandbox_said, run.id);
  ev::RunPool(cfg, jobs, o.jobs, [&](std::size_t i, ev::Verdict v) {
    const auto& rec = records[i];
    tritonrl::store::EvalResult result;
    result.sample = rec;
    result.verdict = ToRecord(v, rec.key, cache_keys[i], device_model);
    (*writer)->Submit(std::move(result));
    progress.Done(v.outcome, fmt::format("{} {}", v.task, v.sample));
  });
  progress.Finish();
  if (auto s = (*writer)->Close(); !s.ok()) Fail(s.message());
  if (auto s = store->EndRun(run.id, run.host, run.shard); !s.ok()) Fail(s.message());

  // Everything of this run (also what a resumed run had done before).
  auto verdicts = store->LoadVerdicts(run.id);
  if (!verdicts.ok()) Fail(verdicts.status().message());
  auto tasks = store->ListTasks(run.id);
  if (!tasks.ok()) Fail(tasks.status().message());
  const auto results = tritonrl::report::ToSampleResults(*verdicts, *tasks);
  const auto metrics = tritonrl::metrics::ComputeMetrics(results);

  if (!o.report.empty()) {
    auto html = tritonrl::report::RenderReport(*store, run.id);
    if (!html.ok()) Fail(html.status().message());
    if (auto s = tritonrl::WriteFileAtomic(o.report, *html); !s.ok()) Fail(s.message());
  }
  if (o.json_out) {
    json doc = {{"run_id", run.id},
                {"device", device},
                {"device_model", device_model},
                {"trials", o.trials},
                {"resumed_samples", resumed}};  // already done by this run before this call
    json levels = json::array();
    for (const auto& g : metrics.levels) levels.push_back(MetricsJson(g));
    doc["summary"] = {{"overall", MetricsJson(metrics.overall)}, {"levels", levels}};
    json samples = json::array();
    for (const auto& r : *verdicts) samples.push_back(RecordJson(r));
    doc["samples"] = samples;
    fmt::print("{}\n", doc.dump(2));
  } else {
    // Flags mark verdicts to review (a suspect speedup, a verdict near its tolerance, ...).
    std::map<std::string, int> counts, flags;
    for (const auto& r : *verdicts) {
      ++counts[r.outcome];
      for (const auto& f : r.flags) ++flags[f];
    }
    fmt::print("\n{:<22} {:>7}\n", "outcome", "samples");
    for (const char* outcome : ev::kOutcomes)
      fmt::print("{:<22} {:>7}\n", outcome, counts[outcome]);
    if (!flags.empty()) {
      fmt::print("\n{:<22} {:>7}\n", "flag", "samples");
      for (const auto& [flag, n] : flags) fmt::print("{:<22} {:>7}\n", flag, n);
    }
    fmt::print("\n{:<8} {:>7} {:>7} {:>9} {:>8} {:>7} {:>8}\n", "group", "samples", "valid",
               "compiled", "correct", "fast_1", "geomean");
    auto row = [](const tritonrl::metrics::GroupMetrics& g) {
      const double fast1 = g.fast_p.empty() ? 0.0 : g.fast_p.front().rate;
      fmt::print("{:<8} {:>7} {:>6.1f}% {:>8.1f}% {:>7.1f}% {:>6.1f}% {:>8}\n", g.name, g.samples,
                 100 * g.valid_rate, 100 * g.compiled_rate, 100 * g.correct_rate, 100 * fast1,
                 g.geomean_speedup ? fmt::format("{:.2f}x", *g.geomean_speedup) : "-");
    };
    for (const auto& g : metrics.levels) row(g);
    row(metrics.overall);
    fmt::print("\nrun {} ({} samples) in {}{}\n", run.id, verdicts->size(), db,
               device == "cpu"
                   ? "; CPU verdicts are provisional on precision, the GPU verdict counts"
                   : "");
    if (!o.report.empty()) fmt::print("report: {}\n", o.report);
  }
  if (!o.keep_work) {
    fs::remove(cfg.allowlist_path, ec);
    if (o.db.empty()) {
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db + suffix, ec);
    }
    fs::remove(cfg.work_dir, ec);  // only if empty
  }
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"eval", "evaluate a sample file (JSONL) against a task suite in sandboxed workers",
     [](CLI::App& sub) {
       auto o = std::make_shared<Options>();
       sub.add_option("--tasks", o->tasks, "task suite folder (levelN/*.py)")->required();
       sub.add_option("--samples", o->samples, "JSONL: {task, sample, output|code} per line")
           ->required();
       sub.add_option("--db", o->db, "results database (SQLite); default: a temporary one");
       sub.add_option("--device", o->device,
                      "auto, cpu (Triton interpreter, small variant) or cuda");
       sub.add_option("--jobs", o->jobs, "samples evaluated in parallel");
       sub.add_option("--trials", o->trials, "correctness trials per variant (at least 5)");
       sub.add_option("--large-trials", o->large_trials,
                      "correctness trials of the 'large' variant, the secret one included "
                      "(default 2; large variants are sized for timing)");
       sub.add_flag("--json", o->json_out,
                    "print one JSON document (metrics and per-sample verdicts)");
       sub.add_option("--report", o->report, "write a self-contained HTML report");
       sub.add_flag("--no-cache", o->no_cache,
                    "re-evaluate everything (a fresh run, no cached verdicts)");
       sub.add_option("--shard", o->shard,
                      "evaluate only lines with index % n == i (i/n); merge with tritonrl merge");
       sub.add_option("--run-id", o->run_id,
                      "run id (default: derived from the samples and the config)");
       sub.add_option("--policy", o->policy,
                      "standard or strict (static verifier; strict also fails lazy_optimization)");
       sub.add_option("--timing-trials", o->timing_trials,
                      "timed calls per sample on the GPU (default 100)");
       sub.add_option("--baseline", o->baseline,
                      "how the reference is timed: eager (default) or compile");
       sub.add_option("--lazy-threshold", o->lazy_threshold,
                      "minimal share of GPU time in the candidate's own kernels (default 0.8)");
       sub.add_option(
           "--speedup-cap", o->speedup_cap,
           "speedups above this are flagged implausible_speedup where no roofline applies (10)");
       sub.add_option("--slow-factor", o->slow_factor,
                      "a candidate's timed phase may last this many times the reference's "
                      "(default 50); a slower correct sample is stopped, flagged "
                      "slow_over_budget and given an upper-bound speedup");
       sub.add_option("--slow-floor", o->slow_floor,
                      "seconds a candidate's timed phase may always last (default 10)");
       sub.add_flag("--no-timing", o->no_timing,
                    "skip the timing stage on the GPU (correctness only; speedup null)");
       sub.add_flag("--cpu-timing", o->cpu_timing,
                    "TEST ONLY: run the timing stage on the CPU (host clock; numbers meaningless)");
       sub.add_option("--stage-timeout", o->stage_timeout,
                      "seconds allowed per import, build and trial stage");
       sub.add_option("--python", o->python,
                      "the runner's interpreter (default: $TRITONRL_PYTHON, .venv, python3)");
       sub.add_option("--runner", o->runner, "folder holding tritonrl_runner/");
       sub.add_option("--work-dir", o->work_dir, "folder for the workers' private folders");
       sub.add_flag("--keep-work", o->keep_work, "keep the workers' folders and logs (debugging)");
       sub.add_flag("--no-static", o->no_static,
                    "TEST ONLY: skip the static verifier (fault-injection candidates would be "
                    "rejected by it)");
       sub.add_flag("--no-sandbox", o->no_sandbox,
                    "TEST ONLY: run workers without rlimits, namespaces or seccomp");
       return [o]() -> int {
         try {
           return RunEval(*o);
         } catch (const std::runtime_error& e) {
           fmt::print(stderr, "tritonrl eval: {}\n", e.what());
           return 2;
         }
       };
     }});

}  // namespace
