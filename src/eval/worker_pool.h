// Pre-started workers (issue 35): the start-up of a worker that depends on no sample, done before
// the sample arrives. Each worker is still a fresh sandboxed process that runs one request and
// exits; what is done ahead is only what a fresh worker would do before reading its request
// anyway: its private folder made, the process spawned (warm from the zygote, or cold) into its
// sandbox, torch, Triton and the runner's modules imported and, on the GPU, its CUDA context
// created (python/tritonrl_runner/worker.py `--prestart DEVICE`). It then blocks reading its
// request. The role's protections, the task, the seeds and the candidate come with the request.
//
// Contract:
// - Acquire hands out a worker at most once, and only one spawned for the same spec (KeyOf: the
//   interpreter, runner, environment, device, spawn kind and sandbox); otherwise, or when none is
//   ready, it returns nothing and the caller spawns as before. A worker that died or wrote
//   anything while idle is discarded (killed, reaped, its folder removed) and named in the next
//   handed-out worker's `discarded`, never handed out.
// - The caller owns what Acquire returns: it writes its files into `dir` (the worker's private
//   mount namespace shows files written there after it was made: only tmp/, home/ and
//   triton-cache/ are its own tmpfs), sends the request, and Finishes the child (process.h) and
//   removes the folder as for any worker.
// - A background thread keeps `ready` workers idle, never more than the Acquires still expected
//   (`demand`). It is the parent of cold workers, whose PR_SET_PDEATHSIG fires when the thread
//   that forked them ends: Drain (or the destructor) may run only once no handed-out worker is
//   still in use. Drain kills and reaps the idle workers and removes their folders (kept with
//   EngineConfig::keep_work); Acquire returns nothing after it.
// - Memory: each idle worker holds a worker's base (admission.h, kWorkerBase*; on the GPU a CUDA
//   context of about 500 MB). ReadyCount bounds their number and RunPool takes IdleNeed() x ready
//   off the admission budgets, so idle workers are counted once and running ones as before.
// - Lifetime: RunPool makes a pool per run unless its caller gives one (EngineConfig::worker_pool)
//   with demand kUnbounded, which outlives runs: its idle workers wait, and are refilled, between
//   them (a GRPO step's generation and update), so a run's first samples find their CUDA contexts
//   made. Fresh contexts come at a fixed rate however many processes ask (about 6.8 a second on an
//   H100, bench/RESULTS.md), so starting them while nothing is scored is what makes a run shorter.
// Thread-safe: any number of threads may call Acquire at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "eval/admission.h"
#include "eval/process.h"
#include "eval/types.h"

namespace tritonrl::eval {

struct PrestartedWorker {
  std::string dir;  // its private folder (tmp/, home/, triton-cache/, worker.log)
  Child child;      // child.spawn ends in "+prestarted"
  // Workers found dead or misbehaving while idle, discarded before this one was handed out
  // ("pid 123: exit code 1"): the verdict reports them (evidence.prestart_discarded).
  std::vector<std::string> discarded;
};

class WorkerPool {
 public:
  // No bound on the Acquires expected: the pool keeps `ready` idle until Drain.
  static constexpr std::size_t kUnbounded = static_cast<std::size_t>(-1);

  // Starts the filling thread. `ready`: idle workers kept (0: none, Acquire returns nothing);
  // `demand`: the Acquires expected in all (no worker is started beyond them; kUnbounded).
  WorkerPool(const EngineConfig& config, int ready, std::size_t demand);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // An idle worker started for a config with `config`'s KeyOf, or none.
  std::optional<PrestartedWorker> Acquire(const EngineConfig& config) EXCLUDES(mu_);
  // Stops filling, kills and reaps the idle workers, removes their folders. Idempotent.
  void Drain() EXCLUDES(mu_);
  // While suspended no worker is idle (those idle are killed, as by Drain) and Acquire returns
  // nothing: a sample run again alone after running out of GPU memory (pool.cpp) must not share
  // the GPU with idle CUDA contexts either. Resume fills again. Nested calls count.
  void Suspend() EXCLUDES(mu_);
  void Resume() EXCLUDES(mu_);

  struct Stats {
    int started = 0;     // workers spawned ahead
    int handed_out = 0;  // by Acquire
    int discarded = 0;   // found dead or talking while idle
    int drained = 0;     // idle at Drain
    int spawn_failures = 0;
  };
  Stats stats() const EXCLUDES(mu_);
  // The idle workers it keeps (its `ready`).
  int ready() const { return ready_; }
  // Idle workers now, and their process groups (tests).
  int idle() const EXCLUDES(mu_);
  std::vector<pid_t> IdlePids() const EXCLUDES(mu_);

  // Everything a worker's spawn depends on but its folder.
  static std::string KeyOf(const EngineConfig& config);
  // The idle workers of a run: `threads` (with EngineConfig::prestart_workers < 0) or fewer, at
  // most kMaxPrestartWorkers, and no more than fit into a quarter of each budget (0: unlimited)
  // at IdleNeed() each.
  static int ReadyCount(const EngineConfig& config, int threads, std::uint64_t host_budget,
                        std::uint64_t device_budget);
  // What one idle worker holds: the base of a worker (admission.h).
  static MemoryNeed IdleNeed(const EngineConfig& config);
  static constexpr int kMaxPrestartWorkers = 32;

 private:
  void Fill() EXCLUDES(mu_);
  bool WantMore() const REQUIRES(mu_);
  Result<PrestartedWorker> StartOne() const;
  // Kills, reaps and removes the folder of workers no sample will use; returns how each ended.
  std::vector<std::string> Discard(std::deque<PrestartedWorker>& workers) const;

  const EngineConfig config_;
  const std::string key_;
  const int ready_;
  mutable base::Mutex mu_;
  base::CondVar changed_{&mu_};
  std::deque<PrestartedWorker> idle_ GUARDED_BY(mu_);   // oldest first: the likeliest to be ready
  std::size_t demand_ GUARDED_BY(mu_);                  // Acquires still expected
  std::vector<std::string> discarded_ GUARDED_BY(mu_);  // not yet reported to an Acquire
  bool stopping_ GUARDED_BY(mu_) = false;
  int suspended_ GUARDED_BY(mu_) = 0;
  bool spawning_ GUARDED_BY(mu_) = false;      // the filler is starting a worker, unlocked
  int failures_in_a_row_ GUARDED_BY(mu_) = 0;  // spawns that failed
  int deaths_in_a_row_ GUARDED_BY(mu_) = 0;    // workers found dead at Acquire
  Stats stats_ GUARDED_BY(mu_);
  std::thread filler_;
};

// "warm" -> "warm+prestarted", "cold (zygote unavailable: why)" -> "cold+prestarted (zygote
// unavailable: why)": the verdict's sandbox.spawn of a pre-started worker.
std::string PrestartedSpawnName(const std::string& spawn);

}  // namespace tritonrl::eval
