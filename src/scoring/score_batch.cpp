#include "scoring/score_batch.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/file.h"
#include "base/mutex.h"
#include "eval/admission.h"
#include "eval/evidence.h"
#include "eval/pool.h"
#include "eval/sandbox_check.h"
#include "eval/worker_pool.h"
#include "scoring/engine_setup.h"
#include "scoring/records.h"
#include "store/store.h"
#include "task/task.h"
#include "verify/autotriton.h"
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
    base::MutexLock lock(&mu_);
    while (free_ <= 0) cv_.Wait();
    --free_;
  }
  void Release() {
    {
      base::MutexLock lock(&mu_);
      ++free_;
    }
    cv_.Signal();
  }

 private:
  base::Mutex mu_;
  base::CondVar cv_{&mu_};
  int free_ GUARDED_BY(mu_);
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

// What one Score call carries from phase to phase.
struct Call {
  Call(const std::vector<Sample>& b, const Callbacks& c, store::Store& st, store::RunInfo r)
      : batch(b), callbacks(c), store(st), run(std::move(r)), out(b.size()) {
    result.run_id = run.id;
    result.sandbox = "not started";  // until a worker is needed
  }
  const std::vector<Sample>& batch;
  const Callbacks& callbacks;
  store::Store& store;
  base::Mutex store_mu;  // the pool's threads share this call's store connection
  store::RunInfo run;
  BatchResult result;
  std::vector<std::optional<ScoredSample>> out;  // by batch index
  std::size_t finished = 0;
  std::map<std::string, std::string> task_content;  // task id -> file bytes
  std::map<std::string, std::string> task_by_path;  // task file -> task id
  Status error = Status::Ok();  // a store error while the pool runs (stops the call)

  void Note(const std::string& line) const {
    if (callbacks.on_note) callbacks.on_note(line);
  }
  // Sample i's verdict (in out) is finished: on_verdict learns of it.
  void Tell(std::size_t i) {
    ++finished;
    if (callbacks.on_verdict) callbacks.on_verdict(*out[i], finished, batch.size());
  }
};

// A sample past the static stage: decided (pre_verdict set) or to run.
struct Pending {
  std::size_t index = 0;  // in the batch
  eval::SampleJob job;
  store::SampleRecord record;
  std::string cache_key;
  // ScoringConfig::autotriton_check: the static rejection that decides the verdict of a sample
  // run only for AutoTriton's inputs, and the paper's is_Triton rule on its code.
  std::optional<eval::Verdict> static_rejection;
  std::optional<bool> is_triton;
};

// Under the AutoTriton check: the verdict our pipeline gives (a static rejection stands over what
// the engine said of the same code) with AutoTriton's reward inputs beside it.
eval::Verdict WithAutoTriton(const Pending& p, eval::Verdict ran) {
  if (!p.is_triton) return ran;
  // The engine's outputs_match is there when every trial ran (EngineConfig::all_trials).
  const auto match = ran.evidence.find("outputs_match");
  eval::AutoTritonEvidence a;
  a.is_triton = *p.is_triton;
  a.outputs_match = match != ran.evidence.end() && match->is_boolean() && match->get<bool>() &&
                    !ran.infra_failure;
  if (p.static_rejection && match != ran.evidence.end())
    a.engine_outcome = vocab::OutcomeName(ran.outcome);
  eval::Verdict v = p.static_rejection ? *p.static_rejection : std::move(ran);
  eval::WriteEvidence(v.evidence, a);
  return v;
}

struct Decisions {
  std::vector<Pending> decided, runnable;
};

// The runnable samples, one leader per distinct cache key (with the cache on), and per leader
// the samples that take its verdict.
struct SameCodeGroups {
  std::vector<Pending> leaders;
  std::vector<std::vector<Pending>> copies;
};

SameCodeGroups GroupSameCode(std::vector<Pending> runnable, bool use_cache) {
  SameCodeGroups g;
  std::map<std::string, std::size_t> first;
  for (auto& p : runnable) {
    auto [at, fresh] = first.try_emplace(p.cache_key, g.leaders.size());
    if (!use_cache || fresh) {
      g.leaders.push_back(std::move(p));
      g.copies.emplace_back();
    } else {
      g.copies[at->second].push_back(std::move(p));
    }
  }
  return g;
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
  mutable base::Mutex mu;  // guards engine.sandbox after the probe, and the four fields below
  std::string sandbox_level GUARDED_BY(mu) = "not started";
  std::vector<std::string> probe_notes GUARDED_BY(mu);
  // ScoringConfig::keep_idle_workers: one pool for every call, made at the first (after the
  // probe, whose sandbox its workers get), drained when the Scorer goes.
  std::shared_ptr<eval::WorkerPool> kept_workers GUARDED_BY(mu);
  bool kept_workers_sized GUARDED_BY(mu) = false;
  // References kept across calls (ScoringConfig::reference_keep_s), by task file and content.
  struct KeptReference {
    std::shared_ptr<const eval::ReferenceResult> ref;
    std::chrono::steady_clock::time_point at;
    std::uint64_t bytes = 0;
  };
  base::Mutex kept_mu;
  std::map<std::string, KeptReference> kept GUARDED_BY(kept_mu);
  // References a call computes now (a concurrent call waits).
  std::set<std::string> computing GUARDED_BY(kept_mu);

  // True: the caller computes key's reference now; false: another call does.
  bool Claim(const std::string& key) {
    base::MutexLock lock(&kept_mu);
    return computing.insert(key).second;
  }
  void Unclaim(const std::string& key) {
    base::MutexLock lock(&kept_mu);
    computing.erase(key);
  }

  std::shared_ptr<const eval::ReferenceResult> KeptFor(const std::string& key) {
    base::MutexLock lock(&kept_mu);
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
    base::MutexLock lock(&kept_mu);
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
    base::MutexLock lock(&kept_mu);
    std::erase_if(kept, [](const auto& entry) { return entry.second.bytes > 0; });
  }

  explicit Impl(int jobs) : slots(jobs) {}

  // The pool kept across calls, made on first use and sized as a run's own would be; null when
  // that size is 0 (RunPool then makes none either).
  std::shared_ptr<eval::WorkerPool> KeptWorkers() REQUIRES(mu) {
    if (!kept_workers_sized) {
      kept_workers_sized = true;
      const eval::MemoryNeed budgets = eval::RunBudgets(engine);
      const int ready =
          eval::WorkerPool::ReadyCount(engine, config.jobs, budgets.host, budgets.device);
      if (ready > 0)
        kept_workers =
            std::make_shared<eval::WorkerPool>(engine, ready, eval::WorkerPool::kUnbounded);
    }
    return kept_workers;
  }

  Status CheckTask(const std::string& task_id) const;

  // The phases of Score, in order.
  Status ValidateBatch(const std::vector<Sample>& batch) const;
  Result<store::RunInfo> BeginRun(store::Store& store, const std::vector<Sample>& batch,
                                  const BatchOptions& options) const;
  // Reports the verdicts this run already has; returns the batch indices still to decide.
  Result<std::vector<std::size_t>> Resume(Call& call) const;
  Result<Decisions> DecideAll(Call& call, std::vector<std::size_t> todo) const;
  Status CommitDecided(Call& call, const std::vector<Pending>& decided) const;
  // Runs the groups' leaders; a store error on the way is left in call.error.
  Status RunEngine(Call& call, const SameCodeGroups& groups);

  // Parts of the phases.
  Status PutTaskOnce(Call& call, const Sample& s, const task::TaskInfo& info) const;
  Result<Pending> DecideStatically(Call& call, std::size_t i,
                                   const verify::VerifyOptions& vopts) const;
  eval::EngineConfig CallEngineConfig(Call& call);
  void ShareKeptReferences(const Call& call, eval::EngineConfig& cfg);
  void CacheReferenceTimings(Call& call, eval::EngineConfig& cfg) const;
  void CommitRun(Call& call, const SameCodeGroups& groups, std::size_t k, const eval::Verdict& v,
                 store::VerdictWriter& writer) const;

  // Finds the strongest sandbox this machine allows, once (some platforms refuse a feature only
  // when the device initialises); every verdict records the level reached.
  void Probe() {
    std::call_once(probe_once, [&] {
      base::MutexLock lock(&mu);
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
  if (!impl_) return;
  {
    base::MutexLock lock(&impl_->mu);
    if (impl_->kept_workers) impl_->kept_workers->Drain();  // before the work folder goes
  }
  if (impl_->config.keep_work) return;
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

Status Scorer::Impl::CheckTask(const std::string& task_id) const {
  if (task::FindTask(suite, task_id)) return Status::Ok();
  std::string why;
  for (const auto& e : suite.errors) {
    if (e.file.find(task_id) != std::string::npos) why = "; " + e.ToString();
  }
  return Status::NotFound(fmt::format("unknown task \"{}\" in {}{}", task_id, config.tasks, why));
}

Status Scorer::CheckTask(const std::string& task_id) const {
  return impl_->CheckTask(task_id);
}

const task::Suite& Scorer::suite() const {
  return impl_->suite;
}

Status Scorer::Impl::ValidateBatch(const std::vector<Sample>& batch) const {
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
  return Status::Ok();
}

Result<store::RunInfo> Scorer::Impl::BeginRun(store::Store& store, const std::vector<Sample>& batch,
                                              const BatchOptions& options) const {
  store::RunInfo run;
  run.config_json = run_config.dump();
  run.sample_file = options.sample_file;
  run.sample_file_hash =
      options.sample_file_hash.empty() ? BatchHash(batch) : options.sample_file_hash;
  run.device_model = device_model;
  run.tool_version = kEvaluatorVersion;
  run.shard = options.shard;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  run.host = host;
  run.id = !options.run_id.empty() ? options.run_id
           : !config.use_cache
               ? store::NewRunId()
               : "eval-" +
                     Sha256Hex(run.sample_file_hash + run.config_json + device_model).substr(0, 16);
  TRITONRL_RETURN_IF_ERROR(store.BeginRun(run));
  return run;
}

Result<std::vector<std::size_t>> Scorer::Impl::Resume(Call& call) const {
  auto done_keys = call.store.DoneSamples(call.run.id);
  if (!done_keys.ok()) return done_keys.status();
  const std::set<store::SampleKey> done(done_keys->begin(), done_keys->end());
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < call.batch.size(); ++i) {
    const store::SampleKey key{call.run.id, call.batch[i].task, call.batch[i].id};
    if (!done.count(key)) {
      todo.push_back(i);
      continue;
    }
    auto rec = call.store.GetVerdict(key);
    if (!rec.ok()) return rec.status();
    if (!rec->has_value()) {
      todo.push_back(i);  // listed as done but gone: evaluate again
      continue;
    }
    auto s = FromRecord(**rec);
    if (!s.ok()) return s.status();
    s->resumed = true;
    call.out[i] = std::move(*s);
    ++call.result.resumed;
    call.Tell(i);
  }
  if (call.result.resumed)
    call.Note(
        fmt::format("resuming run {}: {} samples already done", call.run.id, call.result.resumed));
  return todo;
}

Status Scorer::Impl::PutTaskOnce(Call& call, const Sample& s, const task::TaskInfo& info) const {
  if (call.task_content.count(s.task)) return Status::Ok();
  auto content = ReadFile(info.path);
  if (!content.ok()) return content.status();
  call.task_content[s.task] = *content;
  call.task_by_path[info.path] = s.task;
  store::TaskRecord t;
  t.id = s.task;
  t.content = *content;
  t.suite_path = config.tasks;
  t.level = info.level.value_or(LevelOf(s.task));
  t.metadata_json = json{{"dtype", info.dtype}, {"atol", info.atol}, {"rtol", info.rtol}}.dump();
  return call.store.PutTask(t);
}

Result<Pending> Scorer::Impl::DecideStatically(Call& call, std::size_t i,
                                               const verify::VerifyOptions& vopts) const {
  const Sample& s = call.batch[i];
  const task::TaskInfo* info = task::FindTask(suite, s.task);
  TRITONRL_RETURN_IF_ERROR(PutTaskOnce(call, s, *info));
  const std::string& task_content = call.task_content.at(s.task);
  const bool is_code = s.kind == TextKind::kCode;
  verify::Verdict sv =
      is_code ? verify::VerifyCode(s.text, vopts) : verify::VerifyOutput(s.text, vopts);
  std::string code = s.text;
  if (!is_code) code = sv.code ? s.text.substr(sv.code->begin, sv.code->end - sv.code->begin) : "";
  Pending p;
  p.index = i;
  p.job = eval::SampleJob{s.id, s.task, info->path, code, std::nullopt};
  // The static stage is cheap and decided by the whole text; what the engine runs is the code
  // alone, so the cache is keyed on the code: outputs that differ only in their plan (GRPO
  // rollouts of one task) share a verdict.
  p.cache_key = store::ComputeCacheKey(
      {task_content, code, call.run.config_json, device_model, kEvaluatorVersion});
  if (config.static_stage && !sv.valid) {
    eval::Verdict v = StaticVerdict(sv);
    v.device = device;
    // The AutoTriton check runs any code that parses, whatever our rules say of it (a stub
    // kernel never launched included): AutoTriton pays for its outputs; the rejection still
    // decides the verdict (WithAutoTriton).
    const bool parses = std::none_of(sv.violations.begin(), sv.violations.end(), [](const auto& f) {
      return f.rule == "syntax.parse_error" || f.rule == "syntax.no_code";
    });
    if (config.autotriton_check && parses && !code.empty()) {
      p.static_rejection = std::move(v);
    } else {
      p.job.pre_verdict = v;
    }
  }
  if (config.autotriton_check) p.is_triton = verify::AutoTritonIsTriton(code);
  if (!p.job.pre_verdict && code.empty()) {
    eval::Verdict v;
    v.outcome = vocab::Outcome::kInvalidSyntax;
    v.syntax_ok = false;
    v.reasons.push_back({"static", "no_code", "the output holds no code"});
    p.job.pre_verdict = v;
  }
  if (!p.job.pre_verdict && config.use_cache) {
    auto hit = call.store.Lookup(p.cache_key);
    if (hit.ok() && hit->has_value()) {
      auto cached = CachedVerdict(**hit, device);
      if (!cached.ok()) return cached.status();
      p.job.pre_verdict = std::move(*cached);
    }
  }
  p.record.key = {call.run.id, s.task, s.id};
  p.record.task_hash = Sha256Hex(task_content);
  p.record.text_kind = is_code ? "code" : "output";
  p.record.text = s.text;
  p.record.code = code;
  return p;
}

Result<Decisions> Scorer::Impl::DecideAll(Call& call, std::vector<std::size_t> todo) const {
  // Samples of one task are adjacent so that its reference runs once per group.
  std::stable_sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t b) {
    return call.batch[a].task < call.batch[b].task;
  });
  verify::VerifyOptions vopts;
  vopts.policy = *verify::ParsePolicy(config.policy);  // validated by Open
  // A big batch spends seconds here before its first verdict (200,000 samples: about 30 s):
  // say so every few seconds, so that a long silence is not mistaken for a hang.
  constexpr auto kNoteEvery = std::chrono::seconds(5);
  const auto t0 = std::chrono::steady_clock::now();
  auto next_note = t0 + kNoteEvery;
  Decisions d;
  for (std::size_t k = 0; k < todo.size(); ++k) {
    auto p = DecideStatically(call, todo[k], vopts);
    if (!p.ok()) return p.status();
    (p->job.pre_verdict ? d.decided : d.runnable).push_back(std::move(*p));
    if (const auto now = std::chrono::steady_clock::now(); now >= next_note) {
      call.Note(fmt::format("static checks and cache lookups: {}/{} samples", k + 1, todo.size()));
      next_note = now + kNoteEvery;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (seconds >= 1.0) {
    call.Note(
        fmt::format("static checks and cache lookups of {} samples in {:.1f} s: {} decided, {} "
                    "to run",
                    todo.size(), seconds, d.decided.size(), d.runnable.size()));
  }
  return d;
}

Status Scorer::Impl::CommitDecided(Call& call, const std::vector<Pending>& decided) const {
  if (decided.empty()) return Status::Ok();
  std::vector<store::EvalResult> results;
  std::vector<ScoredSample> scored;
  for (const auto& p : decided) {
    eval::Verdict v = WithAutoTriton(p, *p.job.pre_verdict);
    v.sample = p.job.sample_id;
    v.task = p.job.task_id;
    store::EvalResult r;
    r.sample = p.record;
    // A static rejection is judged on the whole output, the cache key on its code alone: it is
    // stored without a key, so that a valid output with the same code never gets it.
    r.verdict = ToRecord(v, p.record.key, v.from_cache ? p.cache_key : std::string(), device_model);
    auto s = Scored(v, r.verdict);
    if (!s.ok()) return Status::Internal(s.status().message());
    scored.push_back(std::move(*s));
    results.push_back(std::move(r));
  }
  TRITONRL_RETURN_IF_ERROR(call.store.PutResults(results));
  for (std::size_t k = 0; k < decided.size(); ++k) {
    const std::size_t i = decided[k].index;
    call.result.from_cache += scored[k].from_cache;
    call.result.evaluated += !scored[k].from_cache;
    call.out[i] = std::move(scored[k]);
    call.Tell(i);
  }
  return Status::Ok();
}

void Scorer::Impl::ShareKeptReferences(const Call& call, eval::EngineConfig& cfg) {
  // By task file and content: an edited task never meets an old reference. Hashed once per
  // task here: the pool asks for keys under its lock, again every 100 ms for a task whose
  // reference another call computes.
  auto ref_keys = std::make_shared<std::map<std::string, std::string>>();
  for (const auto& [path, id] : call.task_by_path)
    (*ref_keys)[path] = path + "\n" + Sha256Hex(call.task_content.at(id));
  const auto ref_key = [ref_keys](const std::string& task_path) -> std::optional<std::string> {
    auto it = ref_keys->find(task_path);
    if (it == ref_keys->end()) return std::nullopt;
    return it->second;
  };
  cfg.reuse_reference = [this, ref_key](const std::string& task_path) {
    const auto key = ref_key(task_path);
    return key ? KeptFor(*key) : nullptr;
  };
  cfg.keep_reference = [this, ref_key](const std::string& task_path,
                                       std::shared_ptr<const eval::ReferenceResult> ref) {
    if (const auto key = ref_key(task_path)) Keep(*key, std::move(ref));
  };
  cfg.drop_kept_spills = [this] { DropKeptSpills(); };
  // Concurrent calls (the server's requests, a trainer's overlapping steps) on one task run
  // its reference once.
  cfg.claim_reference = [this, ref_key](const std::string& task_path) {
    const auto key = ref_key(task_path);
    return !key || Claim(*key);
  };
  cfg.release_reference = [this, ref_key](const std::string& task_path) {
    if (const auto key = ref_key(task_path)) Unclaim(*key);
  };
}

void Scorer::Impl::CacheReferenceTimings(Call& call, eval::EngineConfig& cfg) const {
  const json settings = {{"trials", cfg.timing.trials},     {"warmup", cfg.timing.warmup},
                         {"baseline", cfg.timing.baseline}, {"device", device},
                         {"device_model", device_model},    {"evaluator", kEvaluatorVersion}};
  const auto key_for = [&call,
                        settings](const std::string& task_path) -> std::optional<std::string> {
    auto id = call.task_by_path.find(task_path);
    if (id == call.task_by_path.end()) return std::nullopt;
    return Sha256Hex(call.task_content.at(id->second) + "\n" + settings.dump());
  };
  cfg.cached_reference_timing =
      [&call, key_for](const std::string& task_path) -> std::optional<eval::TimingPhase> {
    const auto key = key_for(task_path);
    if (!key) return std::nullopt;
    base::MutexLock lock(&call.store_mu);
    auto hit = call.store.LookupReferenceTiming(*key);
    if (!hit.ok() || !hit->has_value()) return std::nullopt;
    auto phase = eval::ReferenceTimingFromJson(json::parse(**hit, nullptr, false));
    if (!phase.ok()) return std::nullopt;  // a damaged entry is re-measured
    return *phase;
  };
  cfg.store_reference_timing = [this, &call, key_for](const std::string& task_path,
                                                      const eval::TimingPhase& phase) {
    const auto key = key_for(task_path);
    if (!key) return;
    base::MutexLock lock(&call.store_mu);
    auto s = call.store.PutReferenceTiming(*key, call.task_by_path.at(task_path), device_model,
                                           eval::ReferenceTimingToJson(phase).dump());
    if (!s.ok()) call.Note("reference timing not cached: " + s.message());
  };
}

eval::EngineConfig Scorer::Impl::CallEngineConfig(Call& call) {
  Probe();
  eval::EngineConfig cfg;
  {
    base::MutexLock lock(&mu);
    for (const auto& line : probe_notes) call.Note(line);
    cfg = engine;
    call.result.sandbox = sandbox_level;
    if (config.keep_idle_workers) cfg.worker_pool = KeptWorkers();
  }
  DrawBatchSeeds(config, cfg);
  if (config.reference_keep_s > 0) ShareKeptReferences(call, cfg);
  // Reference timings across runs: keyed by the task file, the timing protocol's settings,
  // the GPU model and the evaluator; the re-checks still run every time (secret seeds).
  if (cfg.timing.enabled && config.use_cache) CacheReferenceTimings(call, cfg);
  return cfg;
}

void Scorer::Impl::CommitRun(Call& call, const SameCodeGroups& groups, std::size_t k,
                             const eval::Verdict& v, store::VerdictWriter& writer) const {
  if (!call.error.ok()) return;
  const Pending& lead = groups.leaders[k];
  std::vector<std::pair<const Pending*, eval::Verdict>> same = {{&lead, v}};
  for (const Pending& c : groups.copies[k]) {
    eval::Verdict cv = v;
    cv.sample = c.job.sample_id;
    cv.evidence["same_code_as"] = lead.job.sample_id;
    same.emplace_back(&c, std::move(cv));
  }
  std::vector<std::size_t> told;
  for (auto& [p, pv] : same) {
    store::EvalResult r;
    r.sample = p->record;
    // A static rejection that stands is stored without a key, as CommitDecided stores one.
    const std::string key = p->static_rejection ? std::string() : p->cache_key;
    pv = WithAutoTriton(*p, std::move(pv));
    r.verdict = ToRecord(pv, p->record.key, key, device_model);
    auto s = Scored(pv, r.verdict);
    if (!s.ok()) {
      call.error = Status::Internal(s.status().message());
      return;
    }
    writer.Submit(std::move(r));
    call.out[p->index] = std::move(*s);
    told.push_back(p->index);
  }
  // Committed before anyone is told: a kill after this call loses nothing reported.
  if (auto st = writer.Flush(); !st.ok()) {
    call.error = st;
    return;
  }
  for (std::size_t i : told) {
    ++call.result.evaluated;
    call.Tell(i);
  }
}

Status Scorer::Impl::RunEngine(Call& call, const SameCodeGroups& groups) {
  if (groups.leaders.empty()) return Status::Ok();
  if (call.callbacks.cancelled && call.callbacks.cancelled()) {
    call.result.cancelled = true;  // before the sandbox probe: nothing of the engine starts
    return Status::Ok();
  }
  const eval::EngineConfig cfg = CallEngineConfig(call);
  auto writer = store::VerdictWriter::Open(config.db);
  if (!writer.ok()) return writer.status();
  // One pool over every runnable sample; each sample takes one of the worker slots that all
  // calls share while it runs, so concurrent calls interleave sample by sample and no sample
  // waits for a slow one of its own call to finish. Cancellation is checked per sample.
  std::vector<eval::SampleJob> jobs;
  for (const Pending& p : groups.leaders) jobs.push_back(p.job);
  eval::PoolControl control;
  // A store error stops the call too: nothing more would be kept.
  control.cancelled = [&call] {
    return !call.error.ok() || (call.callbacks.cancelled && call.callbacks.cancelled());
  };
  control.acquire_slot = [this] { slots.Acquire(); };
  control.release_slot = [this] { slots.Release(); };
  const int threads = std::min(config.jobs, static_cast<int>(jobs.size()));
  eval::RunPool(
      cfg, jobs, threads,
      [&](std::size_t k, eval::Verdict v) { CommitRun(call, groups, k, v, **writer); }, control);
  if (call.callbacks.cancelled) {
    for (const Pending& p : groups.leaders) {
      if (!call.out[p.index]) call.result.cancelled = true;  // never started: cancelled in turn
    }
  }
  if (auto st = (*writer)->Close(); !st.ok() && call.error.ok()) call.error = st;
  return Status::Ok();
}

// The phases of docs/scoring.md: validate, resume, decide statically (and from the cache),
// group the same code, commit what is decided, run the rest.
Result<BatchResult> Scorer::Score(const std::vector<Sample>& batch, const BatchOptions& options,
                                  const Callbacks& callbacks) {
  Impl& im = *impl_;
  // Bad input fails the call before anything is stored.
  TRITONRL_RETURN_IF_ERROR(im.ValidateBatch(batch));
  auto store = store::Store::Open(im.config.db);
  if (!store.ok()) return store.status();
  auto run = im.BeginRun(*store, batch, options);
  if (!run.ok()) return run.status();
  Call call(batch, callbacks, *store, std::move(*run));

  // Resumed verdicts first: reported before anything runs.
  auto todo = im.Resume(call);
  if (!todo.ok()) return todo.status();
  // Task records, static verification, cache lookups: everything decided before running.
  auto decisions = im.DecideAll(call, std::move(*todo));
  if (!decisions.ok()) return decisions.status();
  // With the cache on, samples of this batch with the same key (task, code, settings) run once
  // and the others take the verdict (evidence.same_code_as names the sample that ran).
  const SameCodeGroups groups = GroupSameCode(std::move(decisions->runnable), im.config.use_cache);
  // Decided verdicts (cache hits, static rejections) are committed in one transaction.
  TRITONRL_RETURN_IF_ERROR(im.CommitDecided(call, decisions->decided));
  TRITONRL_RETURN_IF_ERROR(im.RunEngine(call, groups));

  if (!call.error.ok()) return call.error;
  if (!call.result.cancelled)
    TRITONRL_RETURN_IF_ERROR(call.store.EndRun(call.run.id, call.run.host, call.run.shard));
  BatchResult result = std::move(call.result);
  for (auto& s : call.out) {
    if (s) result.samples.push_back(std::move(*s));
  }
  return result;
}

Result<WarmResult> Scorer::WarmReferences(const std::vector<std::string>& task_ids,
                                          const Callbacks& callbacks) {
  Impl& im = *impl_;
  if (im.config.reference_keep_s <= 0) {
    return Status::InvalidArgument(
        "warming references needs kept references (reference_keep_s > 0)");
  }
  const auto started = std::chrono::steady_clock::now();
  auto store = store::Store::Open(im.config.db);  // the reference timings' cache lives there
  if (!store.ok()) return store.status();
  const std::vector<Sample> none;
  Call call(none, callbacks, *store, store::RunInfo{});
  std::vector<eval::SampleJob> jobs;
  for (const std::string& id : task_ids) {
    TRITONRL_RETURN_IF_ERROR(im.CheckTask(id));
    if (call.task_content.count(id)) {
      return Status::InvalidArgument("warming references: task " + id + " given twice");
    }
    const task::TaskInfo* info = task::FindTask(im.suite, id);
    auto content = ReadFile(info->path);
    if (!content.ok()) return content.status();
    call.task_content[id] = *content;
    call.task_by_path[info->path] = id;
    eval::SampleJob job;
    job.sample_id = "reference";
    job.task_id = id;
    job.task_path = info->path;
    job.reference_only = true;
    jobs.push_back(std::move(job));
  }
  WarmResult r;
  r.tasks = static_cast<std::int64_t>(jobs.size());
  if (!jobs.empty()) {
    const eval::EngineConfig cfg = im.CallEngineConfig(call);
    eval::PoolControl control;
    control.cancelled = callbacks.cancelled;
    control.acquire_slot = [&im] { im.slots.Acquire(); };
    control.release_slot = [&im] { im.slots.Release(); };
    eval::RunPool(
        cfg, jobs, std::min(im.config.jobs, static_cast<int>(jobs.size())),
        [&r](std::size_t, eval::Verdict v) {
          const auto pool = eval::ReadEvidence<eval::PoolEvidence>(v.evidence);
          if (v.infra_failure) {
            ++r.failed;
          } else if (pool && pool->reference_kept) {
            ++r.kept_already;
          } else {
            ++r.computed;
          }
        },
        control);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

metrics::SampleResult MetricsInput(const ScoredSample& s, int level) {
  metrics::SampleResult m;
  m.task = s.task;
  m.level = level;
  m.outcome = std::string(vocab::OutcomeName(s.outcome));
  m.valid = s.valid;
  m.compiled = s.compiled;
  m.correct = s.correct;
  m.speedup = s.speedup;
  m.flags = s.flags;
  return m;
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
  std::map<std::string, int> level_of;  // the task records' levels, else the id's
  for (const auto& t : *tasks)
    if (t.level > 0) level_of[t.id] = t.level;
  RunSummary summary;
  summary.run_id = run_id;
  std::vector<metrics::SampleResult> inputs;
  for (const auto& r : *verdicts) {
    auto s = FromRecord(r);
    if (!s.ok()) return s.status();
    auto level = level_of.find(s->task);
    inputs.push_back(MetricsInput(*s, level != level_of.end() ? level->second : LevelOf(s->task)));
    summary.samples.push_back(std::move(*s));
  }
  summary.metrics = metrics::ComputeMetrics(inputs, options);
  return summary;
}

}  // namespace tritonrl::scoring
