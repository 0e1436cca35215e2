// Evaluation jobs of the server: a batch of samples scored in the background through the one
// shared scoring::Scorer (whose worker limit all jobs share, as do their GPU timing leases), with
// progress that HTTP threads read, wait on or stream.
//
// Durability: a job's samples are written to the state folder (jobs/<id>.json, atomically) before
// its id is handed out, and each verdict is committed to the store by the Scorer under the run
// "serve-<id>" before the job learns of it. A restarted server re-submits every job file under its
// run id: finished verdicts come back from the store (ScoredSample::resumed), only the rest runs.
// So nothing acknowledged is lost to kill -9.
//
// Threads: every method may be called from any thread. Each running job has one thread of its own
// (inside Score it waits for worker slots with the others); at most `max_active_jobs` jobs are
// queued or running at once, more are refused. Shutdown(): no new jobs, running ones get the grace
// period, then are cancelled between groups of samples and handed back to the state folder.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/mutex.h"
#include "base/status.h"
#include "scoring/score_batch.h"
#include "serve/metrics.h"

namespace tritonrl::serve {

enum class JobState {
  kRunning,     // submitted; its samples are queued for or inside the worker pool
  kDone,        // every sample has a verdict
  kFailed,      // Score returned an error (the message is kept)
  kHandedBack,  // cancelled at shutdown; the next server start resumes it
};
const char* JobStateName(JobState state);

struct JobsConfig {
  std::string state_dir;        // jobs/ is created inside; required
  size_t max_active_jobs = 64;  // running at once; more: Submit fails with Unavailable
  size_t max_kept_jobs = 1000;  // finished jobs remembered (and their files); oldest dropped
};

// A copy of a job's state at one moment.
struct JobSnapshot {
  std::string id;
  std::string kind;  // "evaluate" or "reward"
  JobState state = JobState::kRunning;
  bool recovered = false;  // re-submitted from the state folder after a restart
  size_t total = 0;
  size_t done = 0;
  std::vector<std::optional<scoring::ScoredSample>> results;  // batch order; nullopt: not yet
  std::string error;
};

class JobManager {
 public:
  // Creates <state_dir>/jobs. The scorer and metrics must outlive the manager.
  static Result<std::unique_ptr<JobManager>> Open(scoring::Scorer* scorer, ServeMetrics* metrics,
                                                  const JobsConfig& config);
  ~JobManager();  // Shutdown(0) and waits for every job thread
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  // Re-submits every job file of the state folder (newest max_kept_jobs; older files are
  // removed). Returns how many.
  Result<size_t> Recover();

  // Persists the samples, starts the job, returns its id (16 hex digits). Unavailable when
  // max_active_jobs are running or shutdown began; IoError if the job file cannot be written.
  Result<std::string> Submit(std::vector<scoring::Sample> samples, const std::string& kind);

  // nullopt for an unknown id. `id` is only ever compared with the ids handed out.
  std::optional<JobSnapshot> Get(const std::string& id) const;
  // Waits until the job has more than `seen` verdicts or has ended, or until `deadline`.
  std::optional<JobSnapshot> WaitForProgress(const std::string& id, size_t seen,
                                             std::chrono::steady_clock::time_point deadline) const;

  // Samples submitted and not yet scored, over all jobs.
  size_t QueuedSamples() const;
  std::vector<Gauge> Gauges() const;

  // Refuses new jobs, lets running ones finish for `grace`, then cancels the rest (they stop
  // after the samples in flight and stay in the state folder), and waits for them.
  void Shutdown(std::chrono::seconds grace);

 private:
  struct Job;
  JobManager(scoring::Scorer* scorer, ServeMetrics* metrics, JobsConfig config);
  Status Start(std::shared_ptr<Job> job);
  void RunJob(std::shared_ptr<Job> job);
  void ForgetOldJobs() REQUIRES(mu_);

  scoring::Scorer* scorer_;
  ServeMetrics* metrics_;
  JobsConfig config_;
  std::string jobs_dir_;
  // Guards the fields below and every Job's results, done, state and error.
  mutable base::Mutex mu_;
  mutable base::CondVar changed_{&mu_};
  std::map<std::string, std::shared_ptr<Job>> jobs_ GUARDED_BY(mu_);
  std::vector<std::string> finished_order_ GUARDED_BY(mu_);  // ids of ended jobs, oldest first
  size_t active_ GUARDED_BY(mu_) = 0;                        // jobs whose thread has not ended
  bool shutting_down_ GUARDED_BY(mu_) = false;
  bool cancel_ GUARDED_BY(mu_) = false;
};

}  // namespace tritonrl::serve
