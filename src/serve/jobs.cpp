#include "serve/jobs.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "base/file.h"

namespace tritonrl::serve {

namespace fs = std::filesystem;
using nlohmann::json;

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
    case JobState::kHandedBack:
      return "handed_back";
  }
  return "unknown";
}

struct JobManager::Job {
  std::string id;
  std::string kind;
  bool recovered = false;
  std::vector<scoring::Sample> samples;
  std::map<std::pair<std::string, std::string>, size_t> index;  // (task, sample id) -> position
  // Guarded by the manager's mutex.
  JobState state = JobState::kRunning;
  size_t done = 0;
  std::vector<std::optional<scoring::ScoredSample>> results;
  std::string error;

  JobSnapshot Snapshot() const {
    return JobSnapshot{id, kind, state, recovered, samples.size(), done, results, error};
  }
};

namespace {

std::string NewJobId() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard lock(mu);
  return fmt::format("{:016x}", rng());
}

bool IsJobId(const std::string& id) {
  return id.size() == 16 && std::all_of(id.begin(), id.end(), [](char c) {
           return std::isxdigit(c) && !std::isupper(c);
         });
}

json JobFileJson(const std::string& id, const std::string& kind,
                 const std::vector<scoring::Sample>& samples) {
  json s = json::array();
  for (const auto& x : samples) {
    s.push_back({{"task", x.task},
                 {"id", x.id},
                 {"text", x.text},
                 {"kind", x.kind == scoring::TextKind::kCode ? "code" : "output"}});
  }
  return {{"id", id}, {"kind", kind}, {"samples", s}};
}

// The inverse of JobFileJson; errors name the file.
Result<std::pair<std::string, std::vector<scoring::Sample>>> ParseJobFile(const std::string& path,
                                                                          const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("samples") || !j["samples"].is_array() || !j.contains("kind") ||
      !j["kind"].is_string())
    return Status::Corruption(path + ": not a job file");
  std::vector<scoring::Sample> samples;
  for (const json& s : j["samples"]) {
    if (!s.is_object() || !s.value("task", json()).is_string() ||
        !s.value("id", json()).is_string() || !s.value("text", json()).is_string())
      return Status::Corruption(path + ": a sample lacks task, id or text");
    samples.push_back({s["task"].get<std::string>(), s["id"].get<std::string>(),
                       s["text"].get<std::string>(),
                       s.value("kind", "output") == "code" ? scoring::TextKind::kCode
                                                           : scoring::TextKind::kOutput});
  }
  return std::make_pair(j["kind"].get<std::string>(), std::move(samples));
}

}  // namespace

JobManager::JobManager(scoring::Scorer* scorer, ServeMetrics* metrics, JobsConfig config)
    : scorer_(scorer), metrics_(metrics), config_(std::move(config)) {
  jobs_dir_ = (fs::path(config_.state_dir) / "jobs").string();
}

Result<std::unique_ptr<JobManager>> JobManager::Open(scoring::Scorer* scorer, ServeMetrics* metrics,
                                                     const JobsConfig& config) {
  if (config.state_dir.empty()) return Status::InvalidArgument("the state folder is not set");
  std::unique_ptr<JobManager> m(new JobManager(scorer, metrics, config));
  std::error_code ec;
  fs::create_directories(m->jobs_dir_, ec);
  if (ec) return Status::IoError(fmt::format("{}: {}", m->jobs_dir_, ec.message()));
  return m;
}

JobManager::~JobManager() {
  Shutdown(std::chrono::seconds(0));
}

Result<size_t> JobManager::Recover() {
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(jobs_dir_, ec)) {
    const fs::path p = e.path();
    if (p.extension() == ".json" && IsJobId(p.stem().string()))
      files.emplace_back(fs::last_write_time(p, ec), p);
  }
  if (ec) return Status::IoError(fmt::format("{}: {}", jobs_dir_, ec.message()));
  std::sort(files.begin(), files.end());
  while (files.size() > config_.max_kept_jobs) {
    fs::remove(files.front().second, ec);
    files.erase(files.begin());
  }
  size_t recovered = 0;
  for (const auto& [when, path] : files) {
    auto text = ReadFile(path.string());
    auto parsed = text.ok()
                      ? ParseJobFile(path.string(), *text)
                      : Result<std::pair<std::string, std::vector<scoring::Sample>>>(text.status());
    if (!parsed.ok()) {
      std::fprintf(stderr, "serve: skipping %s\n", parsed.status().message().c_str());
      continue;
    }
    auto job = std::make_shared<Job>();
    job->id = path.stem().string();
    job->kind = parsed->first;
    job->samples = std::move(parsed->second);
    job->recovered = true;
    {
      base::MutexLock lock(&mu_);
      ++active_;
    }
    TRITONRL_RETURN_IF_ERROR(Start(job));
    ++recovered;
  }
  return recovered;
}

Result<std::string> JobManager::Submit(std::vector<scoring::Sample> samples,
                                       const std::string& kind) {
  auto job = std::make_shared<Job>();
  job->kind = kind;
  job->samples = std::move(samples);
  {
    base::MutexLock lock(&mu_);
    if (shutting_down_) return Status::Unavailable("the server is shutting down");
    if (active_ >= config_.max_active_jobs)
      return Status::Unavailable(
          fmt::format("{} jobs are running, the most this server takes", active_));
    do {
      job->id = NewJobId();
    } while (jobs_.count(job->id) != 0);
    ++active_;  // reserves the slot while the file is written
  }
  // On disk before anyone learns the id: a job a client knows of survives a crash.
  const std::string path = (fs::path(jobs_dir_) / (job->id + ".json")).string();
  if (auto st = WriteFileAtomic(path, JobFileJson(job->id, kind, job->samples).dump()); !st.ok()) {
    base::MutexLock lock(&mu_);
    --active_;
    changed_.SignalAll();
    return st;
  }
  TRITONRL_RETURN_IF_ERROR(Start(job));
  return job->id;
}

Status JobManager::Start(std::shared_ptr<Job> job) {
  job->results.assign(job->samples.size(), std::nullopt);
  for (size_t i = 0; i < job->samples.size(); ++i)
    job->index[{job->samples[i].task, job->samples[i].id}] = i;
  {
    base::MutexLock lock(&mu_);
    jobs_[job->id] = job;
  }
  try {
    std::thread([this, job] { RunJob(job); }).detach();
  } catch (const std::system_error& e) {
    base::MutexLock lock(&mu_);
    job->state = JobState::kFailed;
    job->error = fmt::format("cannot start a thread: {}", e.what());
    --active_;
    changed_.SignalAll();
    return Status::Unavailable(job->error);
  }
  return Status::Ok();
}

void JobManager::RunJob(std::shared_ptr<Job> job) {
  scoring::BatchOptions options;
  options.run_id = "serve-" + job->id;
  scoring::Callbacks callbacks;
  callbacks.on_verdict = [this, &job](const scoring::ScoredSample& s, size_t, size_t) {
    {
      base::MutexLock lock(&mu_);
      auto it = job->index.find({s.task, s.id});
      if (it != job->index.end() && !job->results[it->second]) {
        job->results[it->second] = s;
        ++job->done;
      }
    }
    changed_.SignalAll();
    if (metrics_ && !s.resumed) {
      metrics_->RecordEvaluated(std::string(vocab::OutcomeName(s.outcome)));
      // Each sample gets a fresh worker; these outcomes are the ones whose worker was killed or
      // died and had to be replaced before the next sample.
      if (s.outcome == vocab::Outcome::kTimeout || s.outcome == vocab::Outcome::kRuntimeError ||
          s.outcome == vocab::Outcome::kResourceExhausted)
        metrics_->RecordWorkerRestarts(1);
    }
  };
  callbacks.cancelled = [this] {
    base::MutexLock lock(&mu_);
    return cancel_;
  };
  auto result = scorer_->Score(job->samples, options, callbacks);
  {
    base::MutexLock lock(&mu_);
    if (!result.ok()) {
      job->state = JobState::kFailed;
      job->error = result.status().message();
    } else {
      for (const auto& s : result->samples) {
        auto it = job->index.find({s.task, s.id});
        if (it != job->index.end() && !job->results[it->second]) {
          job->results[it->second] = s;
          ++job->done;
        }
      }
      job->state = result->cancelled ? JobState::kHandedBack : JobState::kDone;
    }
    finished_order_.push_back(job->id);
    ForgetOldJobs();
    --active_;
    // Under the lock: once it is released, Shutdown may return and the manager be destroyed.
    changed_.SignalAll();
  }
}

void JobManager::ForgetOldJobs() {
  while (finished_order_.size() > config_.max_kept_jobs) {
    const std::string id = finished_order_.front();
    finished_order_.erase(finished_order_.begin());
    auto it = jobs_.find(id);
    if (it != jobs_.end() && it->second->state == JobState::kHandedBack) continue;
    jobs_.erase(id);
    std::error_code ec;
    fs::remove(fs::path(jobs_dir_) / (id + ".json"), ec);
  }
}

std::optional<JobSnapshot> JobManager::Get(const std::string& id) const {
  base::MutexLock lock(&mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return it->second->Snapshot();
}

std::optional<JobSnapshot> JobManager::WaitForProgress(
    const std::string& id, size_t seen, std::chrono::steady_clock::time_point deadline) const {
  base::MutexLock lock(&mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  std::shared_ptr<Job> job = it->second;
  while (!(job->done > seen || job->state != JobState::kRunning)) {
    if (!changed_.WaitUntil(deadline)) break;
  }
  return job->Snapshot();
}

size_t JobManager::QueuedSamples() const {
  base::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [id, job] : jobs_) {
    if (job->state == JobState::kRunning) n += job->samples.size() - job->done;
  }
  return n;
}

std::vector<Gauge> JobManager::Gauges() const {
  base::MutexLock lock(&mu_);
  std::map<JobState, size_t> by_state;
  size_t queued = 0;
  for (const auto& [id, job] : jobs_) {
    ++by_state[job->state];
    if (job->state == JobState::kRunning) queued += job->samples.size() - job->done;
  }
  std::vector<Gauge> g;
  g.push_back({"tritonrl_serve_queue_depth", "Submitted samples without a verdict yet",
               static_cast<double>(queued)});
  for (JobState s :
       {JobState::kRunning, JobState::kDone, JobState::kFailed, JobState::kHandedBack}) {
    g.push_back({fmt::format("tritonrl_serve_jobs{{state=\"{}\"}}", JobStateName(s)),
                 "Jobs the server remembers, by state", static_cast<double>(by_state[s])});
  }
  return g;
}

void JobManager::Shutdown(std::chrono::seconds grace) {
  base::MutexLock lock(&mu_);
  shutting_down_ = true;
  const auto grace_end = std::chrono::steady_clock::now() + grace;
  while (active_ != 0) {
    if (!changed_.WaitUntil(grace_end)) break;
  }
  cancel_ = true;
  while (active_ != 0) changed_.Wait();
}

}  // namespace tritonrl::serve
