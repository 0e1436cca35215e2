#include "eval/worker_pool.h"

#include <poll.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "base/sha256.h"
#include "eval/worker_spawn.h"

namespace tritonrl::eval {
namespace fs = std::filesystem;

namespace {

// A pre-started worker's arguments after "3 4" (worker.py).
std::vector<std::string> PrestartArgs(const EngineConfig& cfg) {
  return {"3", "4", "--prestart", cfg.device == "cpu" ? "cpu" : "cuda"};
}

// Three spawns failing in a row (no folder, no process), or three workers in a row found dead
// when taken: the filling stops, Acquire returns nothing and workers start as before (a worker
// whose start-up fails for good, e.g. CUDA refused, then fails its sample visibly there).
constexpr int kMaxFailuresInARow = 3;

// An idle worker writes nothing before its request: any byte, EOF or error on its result pipe
// means it died or misbehaved while it waited.
bool StillWaiting(const Child& child) {
  struct pollfd p = {child.from_child, POLLIN, 0};
  return poll(&p, 1, 0) == 0;
}

}  // namespace

std::string PrestartedSpawnName(const std::string& spawn) {
  const auto space = spawn.find(' ');
  if (space == std::string::npos) return spawn + "+prestarted";
  return spawn.substr(0, space) + "+prestarted" + spawn.substr(space);
}

std::string WorkerPool::KeyOf(const EngineConfig& cfg) {
  // The spec of a worker in a placeholder folder: every path of the real one is derived from it.
  const SpawnSpec spec = WorkerSpawnSpec(cfg, "\x01", "worker.py", PrestartArgs(cfg), "worker.log");
  const SandboxOptions& sb = spec.sandbox;
  std::string key = fmt::format("{}\n{}\n{}\n", cfg.device, cfg.warm_workers, cfg.work_dir);
  for (const auto* list : {&spec.argv, &spec.env, &spec.writable_dirs}) {
    for (const std::string& s : *list) key += s + "\n";
    key += "--\n";
  }
  key +=
      fmt::format("{} {} {} {} {} {} {} {} {} {} {} {} {} {} {}\n", sb.enabled, sb.pid_namespace,
                  sb.net_namespace, sb.seccomp, sb.private_proc, sb.read_only_fs, sb.scratch_bytes,
                  sb.drop_capabilities, sb.forbid_fork, sb.address_space_bytes, sb.data_bytes,
                  sb.file_size_bytes, sb.cpu_seconds, sb.open_files, sb.processes);
  const auto& prog = cfg.seccomp_program;
  key += tritonrl::Sha256Hex(std::string_view(reinterpret_cast<const char*>(prog.data()),
                                              prog.size() * sizeof(sock_filter)));
  return key;
}

MemoryNeed WorkerPool::IdleNeed(const EngineConfig& cfg) {
  return EstimateReferenceMemory(cfg);
}

int WorkerPool::ReadyCount(const EngineConfig& cfg, int threads, std::uint64_t host_budget,
                           std::uint64_t device_budget) {
  int n = cfg.prestart_workers < 0 ? threads : std::min(cfg.prestart_workers, threads);
  n = std::clamp(n, 0, kMaxPrestartWorkers);
  const MemoryNeed each = IdleNeed(cfg);
  const auto fits = [](std::uint64_t total, std::uint64_t budget) {
    return budget == 0 || total <= budget / 4;
  };
  while (n > 0 && !(fits(each.host * static_cast<std::uint64_t>(n), host_budget) &&
                    fits(each.device * static_cast<std::uint64_t>(n), device_budget)))
    --n;
  return n;
}

WorkerPool::WorkerPool(const EngineConfig& config, int ready, std::size_t demand)
    : config_(config), key_(KeyOf(config)), ready_(std::max(0, ready)), demand_(demand) {
  if (ready_ > 0) filler_ = std::thread([this] { Fill(); });
}

WorkerPool::~WorkerPool() {
  Drain();
}

bool WorkerPool::WantMore() const {
  return !stopping_ && suspended_ == 0 && failures_in_a_row_ < kMaxFailuresInARow &&
         deaths_in_a_row_ < kMaxFailuresInARow &&
         idle_.size() < std::min<std::size_t>(static_cast<std::size_t>(ready_), demand_);
}

Result<PrestartedWorker> WorkerPool::StartOne() const {
  auto dir = MakeWorkDir(config_.work_dir);
  if (!dir.ok()) return dir.status();
  const SpawnSpec spec =
      WorkerSpawnSpec(config_, *dir, "worker.py", PrestartArgs(config_), "worker.log");
  auto child = SpawnWorker(spec, config_.warm_workers);
  if (!child.ok()) {
    std::error_code ec;
    fs::remove_all(*dir, ec);
    return child.status();
  }
  child->spawn = PrestartedSpawnName(child->spawn);
  return PrestartedWorker{*dir, std::move(*child), {}};
}

void WorkerPool::Fill() {
  for (;;) {
    {
      base::MutexLock lock(&mu_);
      while (!stopping_ && !WantMore()) changed_.Wait();
      if (stopping_) return;
      spawning_ = true;
    }
    // Spawning may wait for the zygote (its first start imports torch): not under the lock.
    Result<PrestartedWorker> w = StartOne();
    base::MutexLock lock(&mu_);
    spawning_ = false;
    changed_.SignalAll();  // Suspend waits for this spawn
    if (!w.ok()) {
      ++stats_.spawn_failures;
      ++failures_in_a_row_;
      continue;
    }
    failures_in_a_row_ = 0;
    ++stats_.started;
    // After a Drain or Suspend began, they take it with the others.
    idle_.push_back(std::move(*w));
  }
}

std::optional<PrestartedWorker> WorkerPool::Acquire(const EngineConfig& cfg) {
  if (ready_ == 0 || KeyOf(cfg) != key_) return std::nullopt;
  std::deque<PrestartedWorker> dead;
  std::optional<PrestartedWorker> got;
  {
    base::MutexLock lock(&mu_);
    if (stopping_ || suspended_ > 0) return std::nullopt;
    if (demand_ > 0 && demand_ != kUnbounded) --demand_;
    while (!idle_.empty() && !got) {
      PrestartedWorker w = std::move(idle_.front());
      idle_.pop_front();
      if (StillWaiting(w.child)) {
        got = std::move(w);
        deaths_in_a_row_ = 0;
      } else {
        ++stats_.discarded;
        ++deaths_in_a_row_;
        dead.push_back(std::move(w));
      }
    }
    if (got) ++stats_.handed_out;
    changed_.SignalAll();  // a replacement
  }
  std::vector<std::string> notes = Discard(dead);
  base::MutexLock lock(&mu_);
  discarded_.insert(discarded_.end(), notes.begin(), notes.end());
  if (got) got->discarded = std::exchange(discarded_, {});
  return got;
}

std::vector<std::string> WorkerPool::Discard(std::deque<PrestartedWorker>& workers) const {
  std::vector<std::string> notes;
  for (PrestartedWorker& w : workers) {
    const pid_t pid = w.child.pid;
    const Finished fin = Finish(w.child, std::chrono::milliseconds(0));
    notes.push_back(fmt::format("pid {}: {} while idle", pid, fin.exit.ToString()));
    if (!config_.keep_work) {
      std::error_code ec;
      fs::remove_all(w.dir, ec);
    }
  }
  workers.clear();
  return notes;
}

void WorkerPool::Drain() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
    changed_.SignalAll();
  }
  if (filler_.joinable()) filler_.join();
  std::deque<PrestartedWorker> idle;
  {
    base::MutexLock lock(&mu_);
    idle.swap(idle_);
    stats_.drained += static_cast<int>(idle.size());
  }
  Discard(idle);
}

void WorkerPool::Suspend() {
  std::deque<PrestartedWorker> idle;
  {
    base::MutexLock lock(&mu_);
    ++suspended_;
    while (spawning_) changed_.Wait();  // a worker in the making is idle too
    idle.swap(idle_);
    stats_.drained += static_cast<int>(idle.size());
  }
  Discard(idle);
}

void WorkerPool::Resume() {
  base::MutexLock lock(&mu_);
  if (suspended_ > 0) --suspended_;
  changed_.SignalAll();
}

WorkerPool::Stats WorkerPool::stats() const {
  base::MutexLock lock(&mu_);
  return stats_;
}

int WorkerPool::idle() const {
  base::MutexLock lock(&mu_);
  return static_cast<int>(idle_.size());
}

std::vector<pid_t> WorkerPool::IdlePids() const {
  base::MutexLock lock(&mu_);
  std::vector<pid_t> pids;
  for (const PrestartedWorker& w : idle_) pids.push_back(w.child.pid);
  return pids;
}

}  // namespace tritonrl::eval
