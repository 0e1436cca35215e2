#include "scoring/score_batch.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/file.h"
#include "eval/pool.h"
#include "eval/sandbox_check.h"
#include "report/report.h"
#include "scoring/engine_setup.h"
#include "scoring/records.h"
#include "store/store.h"
#include "task/task.h"
#include "verify/verify.h"

namespace tritonrl::scoring {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The worker processes of all calls share ScoringConfig::jobs slots: each running sample holds one
// (a call's pool threads wait for a free one).
class Slots {
 public:
  explicit Slots(int n) : free_(n) {}
  void Acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return free_ > 0; });
    --free_;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++free_;
    }
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int free_;
};

int LevelOf(const std::string& task_id) {
  if (task_id.rfind("level", 0) != 0) return 0;
  return std::atoi(task_id.c_str() + 5);
}

// A hash of the batch that stands for the sample file when the caller has none.
std::string BatchHash(const std::vector<Sample>& batch) {
  std::string all;
  for (const auto& s : batch) {
    const json line = {{"task", s.task},
                       {"sample", s.id},
                       {s.kind == TextKind::kCode ? "code" : "output", s.text}};
    all += line.dump() + "\n";
  }
  return Sha256Hex(all);
}

}  // namespace

struct Scorer::Impl {
  ScoringConfig config;
  std::string device, device_model;
  task::Suite suite;
  eval::EngineConfig engine;  // seeds are drawn per call on a copy
  json run_config;
  Slots slots{1};
  std::once_flag probe_once;
  std::string sandbox_level = "not started";
  std::vector<std::string> probe_notes;
  mutable std::mutex mu;  // guards engine.sandbox after the probe, sandbox_level, probe_notes
  // References kept across calls (ScoringConfig::reference_keep_s), by task file and content.
  struct KeptReference {
    std::shared_ptr<const eval::ReferenceResult> ref;
    std::chrono::steady_clock::time_point at;
    std::uint64_t bytes = 0;
  };
  std::map<std::string, KeptReference> kept;
  std::set<std::string> computing;  // references a call computes now (a concurrent call waits)
  std::mutex kept_mu;               // guards kept and computing

  // True: the caller computes key's reference now; false: another call does.
  bool Claim(const std::string& key) {
    std::lock_guard<std::mutex> lock(kept_mu);
    return computing.insert(key).second;
  }
  void Unclaim(const std::string& key) {
    std::lock_guard<std::mutex> lock(kept_mu);
    computing.erase(key);
  }

  std::shared_ptr<const eval::ReferenceResult> KeptFor(const std::string& key) {
    std::lock_guard<std::mutex> lock(kept_mu);
    auto it = kept.find(key);
    if (it == kept.end()) return nullptr;
    if (std::chrono::steady_clock::now() - it->second.at >
        std::chrono::duration<double>(config.reference_keep_s)) {
      kept.erase(it);
      return nullptr;
    }
    return it->second.ref;
  }

  // Keeps `ref` (replacing its task's older one), then drops the oldest while more than
  // 4 x jobs references or reference_keep_mb of spilled outputs are kept.
  void Keep(const std::string& key, std::shared_ptr<const eval::ReferenceResult> ref) {
    const std::uint64_t bytes =
        ref->spill ? static_cast<std::uint64_t>(std::max<std::int64_t>(0, ref->spill->size())) : 0;
    const std::uint64_t budget = config.reference_keep_mb << 20;
    if (bytes > budget) return;
    std::lock_guard<std::mutex> lock(kept_mu);
    kept[key] = {std::move(ref), std::chrono::steady_clock::now(), bytes};
    for (;;) {
      std::uint64_t total = 0;
      auto oldest = kept.begin();
      for (auto it = kept.begin(); it != kept.end(); ++it) {
        total += it->second.bytes;
        if (it->second.at < oldest->second.at) oldest = it;
      }
      if (kept.size() <= 4 * static_cast<std::size_t>(std::max(1, config.jobs)) && total <= budget)
        break;
      kept.erase(oldest);
    }
  }

  // The kept references with spilled outputs, dropped to free their disk space.
  void DropKeptSpills() {
    std::lock_guard<std::mutex> lock(kept_mu);
    std::erase_if(kept, [](const auto& entry) { return entry.second.bytes > 0; });
  }

  explicit Impl(int jobs) : slots(jobs) {}

  // Finds the strongest sandbox this machine allows, once (some platforms refuse a feature only
  // when the device initialises); every verdict records the level reached.
  void Probe() {
    std::call_once(probe_once, [&] {
      std::lock_guard<std::mutex> lock(mu);
      if (!engine.sandbox.enabled) {
        sandbox_level = "off";
        return;
      }
      const eval::SandboxChoice choice = eval::ChooseSandbox(engine);
      if (!choice.ok) {
        probe_notes.push_back(fmt::format("the {} probe fails even without a sandbox: {}", device,
                                          choice.tried.back().detail));
        sandbox_level = "probe failed";
        return;
      }
      if (!choice.tried.back().dropped.empty()) {
        for (const auto& p : choice.tried) {
          probe_notes.push_back(fmt::format("sandbox probe with {} off: {} ({:.1f} s)",
                                            p.dropped.empty() ? "nothing" : p.dropped,
                                            p.ok ? "ok" : p.detail, p.ms / 1000));
        }
        probe_notes.push_back(
            fmt::format("the full sandbox fails on this machine; running with {} off",
                        choice.tried.back().dropped));
        engine.sandbox = choice.options;
      }
      sandbox_level =
          choice.tried.back().report.Level() +
          (choice.tried.back().dropped.empty() ? "" : " (" + choice.tried.back().dropped + " off)");
    });
  }
};

Scorer::Scorer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Scorer::~Scorer() {
  if (!impl_ || impl_->config.keep_work) return;
  std::error_code ec;
  fs::remove(impl_->engine.allowlist_path, ec);
  fs::remove(impl_->engine.work_dir, ec);  // only if empty
}

Result<std::unique_ptr<Scorer>> Scorer::Open(const ScoringConfig& config) {
  TRITONRL_RETURN_IF_ERROR(ValidateConfig(config));
  auto policy = verify::ParsePolicy(config.policy);
  if (!policy.ok()) return policy.status();
  auto device = ResolveDevice(config.device);
  if (!device.ok()) return device.status();
  auto impl = std::make_unique<Impl>(config.jobs);
  impl->config = config;
  impl->device = *device;
  impl->device_model = DeviceModel(*device);
  auto suite = task::LoadSuite(config.tasks);
  if (!suite.ok()) return suite.status();
  impl->suite = std::move(*suite);
  auto engine = MakeEngineConfig(config, impl->device, impl->device_model);
  if (!engine.ok()) return engine.status();
  impl->engine = std::move(*engine);
  impl->run_config = RunConfigJson(config, impl->device);
  // Fail now, not at the first batch, if the store cannot be opened.
  auto store = store::Store::Open(config.db);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Scorer>(new Scorer(std::move(impl)));
}

const ScoringConfig& Scorer::config() const {
  return impl_->config;
}
const std::string& Scorer::device() const {
  return impl_->device;
}
const std::string& Scorer::device_model() const {
  return impl_->device_model;
}
const json& Scorer::run_config() const {
  return impl_->run_config;
}

Status Scorer::CheckTask(const std::string& task_id) const {
  if (task::FindTask(impl_->suite, task_id)) return Status::Ok();
  std::string why;
  for (const auto& e : impl_->suite.errors) {
    if (e.file.find(task_id) != std::string::npos) why = "; " + e.ToString();
  }
  return Status::NotFound(
      fmt::format("unknown task \"{}\" in {}{}", task_id, impl_->config.tasks, why));
}

Result<BatchResult> Scorer::Score(const std::vector<Sample>& batch, const BatchOptions& options,
                                  const Callbacks& callbacks) {
  Impl& im = *impl_;
  const ScoringConfig& o = im.config;
  auto note = [&](const std::string& line) {
    if (callbacks.on_note) callbacks.on_note(line);
  };

  // Bad input fails the call before anything is stored.
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const Sample& s = batch[i];
    if (s.id.empty()) return Status::InvalidArgument(fmt::format("sample {}: empty id", i));
    if (auto st = CheckTask(s.task); !st.ok())
      return Status::InvalidArgument(fmt::format("sample {} (\"{}\"): {}", i, s.id, st.message()));
    if (!seen.insert({s.task, s.id}).second)
      return Status::InvalidArgument(
          fmt::format("sample {}: duplicate sample \"{}\" for task {}", i, s.id, s.task));
  }

  auto store = store::Store::Open(o.db);
  if (!store.ok()) return store.status();
  store::RunInfo run;
  run.config_json = im.run_config.dump();
  run.sample_file = options.sample_file;
  run.sample_file_hash =
      options.sample_file_hash.empty() ? BatchHash(batch) : options.sample_file_hash;
  run.device_model = im.device_model;
  run.tool_version = kEvaluatorVersion;
  run.shard = options.shard;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  run.host = host;
  run.id =
      !options.run_id.empty() ? options.run_id
      : !o.use_cache
          ? store::NewRunId()
          : "eval-" +
                Sha256Hex(run.sample_file_hash + run.config_json + im.device_model).substr(0, 16);
  TRITONRL_RETURN_IF_ERROR(store->BeginRun(run));
  auto done_keys = store->DoneSamples(run.id);
  if (!done_keys.ok()) return done_keys.status();
  const std::set<store::SampleKey> done(done_keys->begin(), done_keys->end());

  BatchResult result;
  result.run_id = run.id;
  result.sandbox = "not started";  // until a worker is needed
  std::vector<std::optional<ScoredSample>> out(batch.size());
  std::size_t finished = 0;

  // Resumed verdicts first: reported before anything runs.
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const store::SampleKey key{run.id, batch[i].task, batch[i].id};
    if (!done.count(key)) {
      todo.push_back(i);
      continue;
    }
    auto rec = store->GetVerdict(key);
    if (!rec.ok()) return rec.status();
    if (!rec->has_value()) {
      todo.push_back(i);  // listed as done but gone: evaluate again
      continue;
    }
    auto s = FromRecord(**rec);
    if (!s.ok()) return s.status();
    s->resumed = true;
    out[i] = std::move(*s);
    ++result.resumed;
    ++finished;
    if (callbacks.on_verdict) callbacks.on_verdict(*out[i], finished, batch.size());
  }
  if (result.resumed)
    note(fmt::format("resuming run {}: {} samples already done", run.id, result.resumed));

  // Task records, static verification, cache lookups: everything decided before running.
  // Samples of one task are adjacent so that its reference runs once per group.
  std::stable_sort(todo.begin(), todo.end(),
                   [&](std::size_t a, std::size_t b) { return batch[a].task < batch[b].task; });
  std::map<std::string, std::string> task_content;  // task id -> file bytes
  std::map<std::string, std::string> task_by_path;  // task file -> task id
  verify::VerifyOptions vopts;
  vopts.policy = *verify::ParsePolicy(o.policy);  // validated by Open
  struct Pending {
    std::size_t index = 0;
    eval::SampleJob job;
    store::SampleRecord record;
    std::string cache_key;
  };
  std::vector<Pending> decided, runnable;
  for (std::size_t i : todo) {
    const Sample& s = batch[i];
    const task::TaskInfo* info = task::FindTask(im.suite, s.task);
    if (!task_content.count(s.task)) {
      auto content = ReadFile(info->path);
      if (!content.ok()) return content.status();
      task_content[s.task] = *content;
      task_by_path[info->path] = s.task;
      store::TaskRecord t;
      t.id = s.task;
      t.content = *content;
      t.suite_path = o.tasks;
      t.level = info->level.value_or(LevelOf(s.task));
      t.metadata_json =
          json{{"dtype", info->dtype}, {"atol", info->atol}, {"rtol", info->rtol}}.dump();
      TRITONRL_RETURN_IF_ERROR(store->PutTask(t));
    }
    const bool is_code = s.kind == TextKind::kCode;
    verify::Verdict sv =
        is_code ? verify::VerifyCode(s.text, vopts) : verify::VerifyOutput(s.text, vopts);
    std::string code = s.text;
    if (!is_code)
      code = sv.code ? s.text.substr(sv.code->begin, sv.code->end - sv.code->begin) : "";
    Pending p;
    p.index = i;
    p.job = eval::SampleJob{s.id, s.task, info->path, code, std::nullopt};
    // The static stage is cheap and decided by the whole text; what the engine runs is the code
    // alone, so the cache is keyed on the code: outputs that differ only in their plan (GRPO
    // rollouts of one task) share a verdict.
    p.cache_key = store::ComputeCacheKey(
        {task_content[s.task], code, run.config_json, im.device_model, kEvaluatorVersion});
    if (o.static_stage && !sv.valid) {
      eval::Verdict v = StaticVerdict(sv);
      v.device = im.device;
      p.job.pre_verdict = v;
    }
    if (!p.job.pre_verdict && code.empty()) {
      eval::Verdict v;
      v.outcome = vocab::OutcomeName(vocab::Outcome::kInvalidSyntax);
      v.syntax_ok = false;
      v.reasons.push_back({"static", "no_code", "the output holds no code"});
      p.job.pre_verdict = v;
    }
    if (!p.job.pre_verdict && o.use_cache) {
      auto hit = store->Lookup(p.cache_key);
      if (hit.ok() && hit->has_value()) p.job.pre_verdict = CachedVerdict(**hit, im.device);
    }
    p.record.key = {run.id, s.task, s.id};
    p.record.task_hash = Sha256Hex(task_content[s.task]);
    p.record.text_kind = is_code ? "code" : "output";
    p.record.text = s.text;
    p.record.code = code;
    (p.job.pre_verdict ? decided : runnable).push_back(std::move(p));
  }

  // With the cache on, samples of this batch with the same key (task, code, settings) run once
  // and the others take the verdict (evidence.same_code_as names the sample that ran).
  std::vector<std::vector<Pending>> copies;  // per entry of runnable
  {
    std::map<std::string, std::size_t> first;
    std::vector<Pending> leaders;
    for (auto& p : runnable) {
      auto [at, fresh] = first.try_emplace(p.cache_key, leaders.size());
      if (!o.use_cache || fresh) {
        leaders.push_back(std::move(p));
        copies.emplace_back();
      } else {
        copies[at->second].push_back(std::move(p));
      }
    }
    runnable = std::move(leaders);
  }

  // Decided verdicts (cache hits, static rejections) are committed in one transaction.
  if (!decided.empty()) {
    std::vector<store::EvalResult> results;
    std::vector<ScoredSample> scored;
    for (auto& p : decided) {
      eval::Verdict v = *p.job.pre_verdict;
      v.sample = p.job.sample_id;
      v.task = p.job.task_id;
      store::EvalResult r;
      r.sample = p.record;
      // A static rejection is judged on the whole output, the cache key on its code alone: it is
      // stored without a key, so that a valid output with the same code never gets it.
      r.verdict =
          ToRecord(v, p.record.key, v.from_cache ? p.cache_key : std::string(), im.device_model);
      auto s = FromRecord(r.verdict);
      if (!s.ok()) return Status::Internal(s.status().message());
      scored.push_back(std::move(*s));
      results.push_back(std::move(r));
    }
    TRITONRL_RETURN_IF_ERROR(store->PutResults(results));
    for (std::size_t k = 0; k < decided.size(); ++k) {
      const std::size_t i = decided[k].index;
      result.from_cache += scored[k].from_cache;
      result.evaluated += !scored[k].from_cache;
      out[i] = std::move(scored[k]);
      ++finished;
      if (callbacks.on_verdict) callbacks.on_verdict(*out[i], finished, batch.size());
    }
  }

  Status error = Status::Ok();
  if (!runnable.empty() && callbacks.cancelled && callbacks.cancelled()) {
    result.cancelled = true;  // before the sandbox probe: nothing of the engine starts
  } else if (!runnable.empty()) {
    im.Probe();
    eval::EngineConfig cfg;
    {
      std::lock_guard<std::mutex> lock(im.mu);
      for (const auto& line : im.probe_notes) note(line);
      cfg = im.engine;
      result.sandbox = im.sandbox_level;
    }
    DrawBatchSeeds(o, cfg);
    // By task file and content: an edited task never meets an old reference. Hashed once per
    // task here: the pool asks for keys under its lock, again every 100 ms for a task whose
    // reference another call computes.
    std::map<std::string, std::string> ref_keys;
    if (o.reference_keep_s > 0) {
      for (const auto& [path, id] : task_by_path)
        ref_keys[path] = path + "\n" + Sha256Hex(task_content.at(id));
      const auto ref_key = [&ref_keys](const std::string& task_path) -> std::optional<std::string> {
        auto it = ref_keys.find(task_path);
        if (it == ref_keys.end()) return std::nullopt;
        return it->second;
      };
      cfg.reuse_reference = [&im, ref_key](const std::string& task_path) {
        const auto key = ref_key(task_path);
        return key ? im.KeptFor(*key) : nullptr;
      };
      cfg.keep_reference = [&im, ref_key](const std::string& task_path,
                                          std::shared_ptr<const eval::ReferenceResult> ref) {
        if (const auto key = ref_key(task_path)) im.Keep(*key, std::move(ref));
      };
      cfg.drop_kept_spills = [&im] { im.DropKeptSpills(); };
      // Concurrent calls (the server's requests, a trainer's overlapping steps) on one task run
      // its reference once.
      cfg.claim_reference = [&im, ref_key](const std::string& task_path) {
        const auto key = ref_key(task_path);
        return !key || im.Claim(*key);
      };
      cfg.release_reference = [&im, ref_key](const std::string& task_path) {
        if (const auto key = ref_key(task_path)) im.Unclaim(*key);
      };
    }

    // Reference timings across runs: keyed by the task file, the timing protocol's settings,
    // the GPU model and the evaluator; the re-checks still run every time (secret seeds).
    std::mutex store_mu;  // the pool's threads share this call's store connection
    if (cfg.timing.enabled && o.use_cache) {
      const auto key_for = [&](const std::string& task_path) -> std::optional<std::string> {
        auto id = task_by_path.find(task_path);
        if (id == task_by_path.end()) return std::nullopt;
        const json settings = {{"trials", cfg.timing.trials},     {"warmup", cfg.timing.warmup},
                               {"baseline", cfg.timing.baseline}, {"device", im.device},
                               {"device_model", im.device_model}, {"evaluator", kEvaluatorVersion}};
        return Sha256Hex(task_content.at(id->second) + "\n" + settings.dump());
      };
      cfg.cached_reference_timing =
          [&, key_for](const std::string& task_path) -> std::optional<eval::TimingPhase> {
        const auto key = key_for(task_path);
        if (!key) return std::nullopt;
        std::lock_guard<std::mutex> lock(store_mu);
        auto hit = store->LookupReferenceTiming(*key);
        if (!hit.ok() || !hit->has_value()) return std::nullopt;
        auto phase = eval::ReferenceTimingFromJson(json::parse(**hit, nullptr, false));
        if (!phase.ok()) return std::nullopt;  // a damaged entry is re-measured
        return *phase;
      };
      cfg.store_reference_timing = [&, key_for](const std::string& task_path,
                                                const eval::TimingPhase& phase) {
        const auto key = key_for(task_path);
        if (!key) return;
        std::lock_guard<std::mutex> lock(store_mu);
        auto s = store->PutReferenceTiming(*key, task_by_path.at(task_path), im.device_model,
                                           eval::ReferenceTimingToJson(phase).dump());
        if (!s.ok()) note("reference timing not cached: " + s.message());
      };
    }

    auto writer = store::VerdictWriter::Open(o.db);
    if (!writer.ok()) return writer.status();
    // One pool over every runnable sample; each sample takes one of the worker slots that all
    // calls share while it runs, so concurrent calls interleave sample by sample and no sample
    // waits for a slow one of its own call to finish. Cancellation is checked per sample.
    std::vector<eval::SampleJob> jobs;
    for (const Pending& p : runnable) jobs.push_back(p.job);
    eval::PoolControl control;
    // A store error stops the call too: nothing more would be kept.
    control.cancelled = [&] {
      return !error.ok() || (callbacks.cancelled && callbacks.cancelled());
    };
    control.acquire_slot = [&im] { im.slots.Acquire(); };
    control.release_slot = [&im] { im.slots.Release(); };
    const int threads = std::min(o.jobs, static_cast<int>(jobs.size()));
    eval::RunPool(
        cfg, jobs, threads,
        [&](std::size_t k, eval::Verdict v) {
          if (!error.ok()) return;
          const Pending& lead = runnable[k];
          std::vector<std::pair<const Pending*, eval::Verdict>> same = {{&lead, v}};
          for (const Pending& c : copies[k]) {
            eval::Verdict cv = v;
            cv.sample = c.job.sample_id;
            cv.evidence["same_code_as"] = lead.job.sample_id;
            same.emplace_back(&c, std::move(cv));
          }
          std::vector<std::size_t> told;
          for (auto& [p, pv] : same) {
            store::EvalResult r;
            r.sample = p->record;
            r.verdict = ToRecord(pv, p->record.key, p->cache_key, im.device_model);
            auto s = FromRecord(r.verdict);
            if (!s.ok()) {
              error = Status::Internal(s.status().message());
              return;
            }
            (*writer)->Submit(std::move(r));
            out[p->index] = std::move(*s);
            told.push_back(p->index);
          }
          // Committed before anyone is told: a kill after this call loses nothing reported.
          if (auto st = (*writer)->Flush(); !st.ok()) {
            error = st;
            return;
          }
          for (std::size_t i : told) {
            ++result.evaluated;
            ++finished;
            if (callbacks.on_verdict) callbacks.on_verdict(*out[i], finished, batch.size());
          }
        },
        control);
    if (callbacks.cancelled) {
      for (const Pending& p : runnable) {
        if (!out[p.index]) result.cancelled = true;  // never started: cancelled before its turn
      }
    }
    if (auto st = (*writer)->Close(); !st.ok() && error.ok()) error = st;
  }
  if (!error.ok()) return error;
  if (!result.cancelled) TRITONRL_RETURN_IF_ERROR(store->EndRun(run.id, run.host, run.shard));
  for (auto& s : out) {
    if (s) result.samples.push_back(std::move(*s));
  }
  return result;
}

Result<RunSummary> Scorer::LoadRun(const std::string& run_id,
                                   const metrics::MetricsOptions& options) {
  store::OpenOptions open;
  open.create = false;
  auto store = store::Store::Open(impl_->config.db, open);
  if (!store.ok()) return store.status();
  auto run = store->GetRun(run_id);
  if (!run.ok()) return run.status();
  if (!run->has_value())
    return Status::NotFound(fmt::format("{}: no run {}", impl_->config.db, run_id));
  auto verdicts = store->LoadVerdicts(run_id);
  if (!verdicts.ok()) return verdicts.status();
  auto tasks = store->ListTasks(run_id);
  if (!tasks.ok()) return tasks.status();
  RunSummary summary;
  summary.run_id = run_id;
  summary.metrics = metrics::ComputeMetrics(report::ToSampleResults(*verdicts, *tasks), options);
  for (const auto& r : *verdicts) {
    auto s = FromRecord(r);
    if (!s.ok()) return s.status();
    summary.samples.push_back(std::move(*s));
  }
  return summary;
}

Result<std::string> Scorer::RenderReport(const std::string& run_id) {
  store::OpenOptions open;
  open.create = false;
  auto store = store::Store::Open(impl_->config.db, open);
  if (!store.ok()) return store.status();
  return report::RenderReport(*store, run_id);
}

}  // namespace tritonrl::scoring
