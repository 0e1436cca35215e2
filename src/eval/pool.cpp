#include "eval/pool.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "base/mutex.h"
#include "eval/admission.h"
#include "eval/clock.h"
#include "eval/engine.h"
#include "eval/evidence.h"
#include "eval/worker_pool.h"

namespace tritonrl::eval {
namespace {

struct ReferenceSlot {
  enum State { kNotStarted, kRunning, kReady };
  State state = kNotStarted;
  bool kept = false;  // from an earlier run (EngineConfig::reuse_reference): not one of ours
  std::shared_ptr<const ReferenceResult> result;
  std::size_t remaining = 0;  // runnable jobs of this task not yet finished
};

// A run alone (after running out of GPU memory beside others) has no idle pre-started worker
// beside it either: each holds a CUDA context. Its own worker is spawned as without the pool.
class IdleWorkersSuspended {
 public:
  explicit IdleWorkersSuspended(WorkerPool* pool) : pool_(pool) {
    if (pool_) pool_->Suspend();
  }
  ~IdleWorkersSuspended() {
    if (pool_) pool_->Resume();
  }
  IdleWorkersSuspended(const IdleWorkersSuspended&) = delete;
  IdleWorkersSuspended& operator=(const IdleWorkersSuspended&) = delete;

 private:
  WorkerPool* pool_;
};

AdmissionEvidence AdmissionOf(const MemoryNeed& need, const MemoryAdmission& admission) {
  return {need.host, need.device, admission.host_budget(), admission.device_budget()};
}

const Reason* FindReason(const Verdict& v, const std::string& code) {
  for (const Reason& r : v.reasons)
    if (r.code == code) return &r;
  return nullptr;
}

// A task's reference, run once its worker's base memory is admitted (its sizes are unknown until
// it runs). When it ran out of GPU memory beside other workers (a reference failure fails every
// sample of its task), it runs again once what it needed then, and a quarter more, is admitted:
// KernelBench's default sizes need 13-20 GB a reference, and running each of them alone, with
// every other admission held meanwhile, serialised a 16-job run. Out of memory again, or with no
// need known: alone.
ReferenceResult AdmitAndRunReference(const EngineConfig& config, const std::string& task_path,
                                     MemoryAdmission& admission, bool shared) {
  const MemoryNeed base = EstimateReferenceMemory(config);
  auto ticket = admission.Admit(base);
  if (!ticket.ok()) {
    ReferenceResult ref;
    ref.error = {"reference", "resource_exhausted",
                 task_path + ": the reference cannot be started: " + ticket.status().message()};
    return ref;
  }
  // Once a trial reports the worker's allocator peak, the admission holds that (and a quarter
  // more) instead of the base: later workers are admitted beside what it really uses.
  const auto grow = [&](MemoryAdmission::Ticket& t) {
    return [&t, &base](std::int64_t peak) {
      const auto p = static_cast<std::uint64_t>(peak);
      t.GrowTo({base.host, base.device + p + p / 4});
    };
  };
  ReferenceResult ref = RunReference(config, task_path, grow(*ticket));
  // Out of spill space is RunPool's to retry: the space is held by other tasks' spilled outputs,
  // which only their candidates' runs free, so waiting alone for admission would not free it.
  if (!ref.ok && ref.out_of_memory && shared) {
    ticket->Release();
    std::vector<std::string> reruns;
    const std::uint64_t need = ref.oom_device_bytes + ref.oom_device_bytes / 4;
    if (need > 0 && (admission.device_budget() == 0 || need < admission.device_budget())) {
      auto sized = admission.Admit({base.host, std::max(base.device, need)});
      if (sized.ok()) {
        ref = RunReference(config, task_path, grow(*sized));
        reruns.push_back(fmt::format("beside others, {} MiB admitted", need >> 20));
      }
    }
    if (!ref.ok && ref.out_of_memory) {
      MemoryAdmission::Ticket alone = admission.AdmitAlone();
      IdleWorkersSuspended quiet(config.worker_pool.get());
      ref = RunReference(config, task_path);
      reruns.push_back("alone");
    }
    ref.oom_reruns = std::move(reruns);
  }
  return ref;
}

// A candidate, run once its estimate is admitted (waiting while others hold the memory), or the
// resource_exhausted verdict when it can never fit.
Verdict AdmitAndRunCandidate(const EngineConfig& config, const SampleJob& job,
                             const ReferenceResult& ref, MemoryAdmission& admission, bool shared) {
  if (!ref.ok) return RunCandidate(config, job.task_path, job.code, ref);  // says why
  const MemoryNeed need = EstimateCandidateMemory(config, ref);
  const auto asked = std::chrono::steady_clock::now();
  auto ticket = admission.Admit(need);
  if (!ticket.ok()) {
    Verdict v;
    v.device = config.device;
    v.provisional = config.device == "cpu";
    v.outcome = vocab::Outcome::kResourceExhausted;
    v.infra_failure = true;  // says nothing about the sample: never cached
    v.reasons.push_back({"admission", "resource_exhausted", ticket.status().message()});
    WriteEvidence(v.evidence, AdmissionOf(need, admission));
    return v;
  }
  const double waited_ms = MsSince(asked);
  Verdict v = RunCandidate(config, job.task_path, job.code, ref);
  if (const Reason* oom = FindReason(v, "out_of_memory"); shared && oom != nullptr) {
    // Out of GPU memory beside other workers: the verdict must not depend on them, so the sample
    // runs again with the pool to itself, and that verdict stands (a candidate that raises the
    // error itself only buys one more, serial, run of the same failure).
    ticket->Release();
    const auto alone_asked = std::chrono::steady_clock::now();
    MemoryAdmission::Ticket alone = admission.AdmitAlone();
    IdleWorkersSuspended quiet(config.worker_pool.get());
    const double alone_wait_ms = MsSince(alone_asked);
    const std::string first = oom->message;
    v = RunCandidate(config, job.task_path, job.code, ref);
    WriteEvidence(v.evidence, OomRerunEvidence{first, alone_wait_ms});
  }
  WriteEvidence(v.evidence, AdmissionOf(need, admission));
  if (waited_ms >= 1.0) v.timings_ms["admission_wait"] = waited_ms;
  return v;
}

// One RunPool call: the shared state of its threads, each field guarded by mu_, and the phases of
// a thread's loop (take a job, run its task's reference if this thread owns it, run the sample,
// finish). on_done is called with mu_ held, so callers see one call at a time.
class PoolRun {
 public:
  PoolRun(const EngineConfig& config, const std::vector<SampleJob>& jobs, int threads,
          const std::function<void(std::size_t, Verdict)>& on_done, const PoolControl& control)
      : config_(config),
        jobs_(jobs),
        n_(std::max(1, threads)),
        on_done_(on_done),
        control_(control),
        budgets_(RunBudgets(config)),
        own_pool_(!config.worker_pool),
        prestart_(own_pool_ ? WorkerPool::ReadyCount(config, n_, budgets_.host, budgets_.device)
                            : config.worker_pool->ready()),
        // Idle pre-started workers hold a worker's base each, outside any ticket.
        admission_(MakeAdmission(
            budgets_,
            {WorkerPool::IdleNeed(config).host * static_cast<std::uint64_t>(prestart_),
             WorkerPool::IdleNeed(config).device * static_cast<std::uint64_t>(prestart_)})),
        shared_(n_ > 1),  // other workers share the GPU only with more than one thread
        start_(std::chrono::steady_clock::now()) {
    base::MutexLock lock(&mu_);
    PlanTasks();
    if (own_pool_ && prestart_ > 0 && !pending_.empty())
      config_.worker_pool = std::make_shared<WorkerPool>(config_, prestart_, WorkersExpected());
  }

  void Run() {
    std::vector<std::thread> pool;
    for (int t = 0; t < n_; ++t) pool.emplace_back([this, t] { Work(t); });
    for (auto& t : pool) t.join();
    // Every sample's worker is finished: the idle ones go (cold ones die with the pool's thread),
    // unless the pool is the caller's, kept for its next run.
    if (own_pool_ && config_.worker_pool) config_.worker_pool->Drain();
  }

 private:
  // A job taken by a thread: its index, and what the thread needs of its task's reference
  // (read under mu_, so the thread touches no slot field unlocked).
  struct Taken {
    std::size_t index = 0;
    std::shared_ptr<ReferenceSlot> slot;
    bool run_reference = false;                  // this thread runs the task's reference first
    bool kept = false;                           // the reference is from an earlier run
    std::shared_ptr<const ReferenceResult> ref;  // set when the reference was ready
    double waited_ms = 0;
  };

  // One slot per task with runnable jobs (a kept reference makes it ready at once), and the
  // runnable jobs in input order.
  void PlanTasks() REQUIRES(mu_) {
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      if (jobs_[i].pre_verdict) continue;
      auto& slot = slots_[jobs_[i].task_path];
      if (!slot) {
        slot = std::make_shared<ReferenceSlot>();
        if (config_.reuse_reference) {
          if (auto kept = config_.reuse_reference(jobs_[i].task_path)) {
            slot->result = std::move(kept);
            slot->state = ReferenceSlot::kReady;
            slot->kept = true;
          }
        }
      }
      ++slot->remaining;
      pending_.push_back(i);
    }
  }

  // The workers this run will start: one per runnable sample that runs a candidate, and one per
  // reference not kept.
  std::size_t WorkersExpected() const REQUIRES(mu_) {
    std::size_t references = 0, candidates = 0;
    for (const auto& [path, slot] : slots_) references += slot->state != ReferenceSlot::kReady;
    for (std::size_t i : pending_) candidates += !jobs_[i].reference_only;
    return candidates + references;
  }

  void Work(int thread_index) EXCLUDES(mu_) {
    for (;;) {
      if (PassDecided()) continue;
      std::optional<Taken> taken = Take();
      if (!taken) return;
      if (control_.acquire_slot) control_.acquire_slot();
      const SampleJob& job = jobs_[taken->index];
      const double start_ms = MsSince(start_);
      double space_wait_ms = -1;
      if (taken->run_reference) taken->ref = RunTaskReference(job, *taken->slot, space_wait_ms);
      Verdict v = job.reference_only
                      ? ReferenceOnlyVerdict(*taken->ref)
                      : AdmitAndRunCandidate(config_, job, *taken->ref, admission_, shared_);
      Annotate(v, *taken, thread_index, start_ms, space_wait_ms);
      if (control_.release_slot) control_.release_slot();
      Finish(*taken, std::move(v));
    }
  }

  // Decided samples first: they cost nothing and free their callers early. True when one was
  // passed on.
  bool PassDecided() EXCLUDES(mu_) {
    base::MutexLock lock(&mu_);
    while (next_decided_ < jobs_.size() && !jobs_[next_decided_].pre_verdict) ++next_decided_;
    if (next_decided_ >= jobs_.size()) return false;
    const std::size_t i = next_decided_++;
    Verdict v = *jobs_[i].pre_verdict;
    v.sample = jobs_[i].sample_id;
    v.task = jobs_[i].task_id;
    on_done_(i, std::move(v));
    return true;
  }

  // Blocks until a job can be taken; none when the work is done or the pool stopped.
  std::optional<Taken> Take() EXCLUDES(mu_) {
    base::MutexLock lock(&mu_);
    if (pending_.empty()) return std::nullopt;
    const auto asked = std::chrono::steady_clock::now();
    std::optional<Taken> got;
    // A task passed over for another run's reference in flight is looked at again every
    // 100 ms: that run's keeping it wakes nobody here.
    while (!(pending_.empty() || (got = Pick()).has_value() || stopped_)) {
      if (deferred_) {
        changed_.WaitUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
      } else {
        changed_.Wait();
      }
    }
    if (got) got->waited_ms = MsSince(asked);
    return got;
  }

  // The next job for a free thread: a job of a task whose reference is ready; else the first job
  // of a task whose reference nobody runs yet (this thread runs it), while fewer than n_
  // references are live; else none (wait). A thread blocks only when every runnable job waits on
  // a reference in flight.
  std::optional<Taken> Pick() REQUIRES(mu_) {
    deferred_ = false;
    if (!stopped_ && control_.cancelled && control_.cancelled()) {
      stopped_ = true;
      changed_.SignalAll();
    }
    if (stopped_) return std::nullopt;
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      if (slots_.at(jobs_[pending_[k]].task_path)->state == ReferenceSlot::kReady) return TakeAt(k);
    }
    if (live_ >= n_ || space_waiters_ > 0) return std::nullopt;
    for (std::size_t k = 0; k < pending_.size(); ++k) {
      const std::string& path = jobs_[pending_[k]].task_path;
      auto& slot = slots_.at(path);
      if (slot->state != ReferenceSlot::kNotStarted) continue;
      if (config_.reuse_reference) {  // kept by another run since this one began
        if (auto kept = config_.reuse_reference(path)) {
          slot->result = std::move(kept);
          slot->state = ReferenceSlot::kReady;
          slot->kept = true;
          return TakeAt(k);
        }
      }
      if (config_.claim_reference && !config_.claim_reference(path)) {
        deferred_ = true;
        continue;
      }
      slot->state = ReferenceSlot::kRunning;
      ++live_;
      Taken t = TakeAt(k);
      t.run_reference = true;
      return t;
    }
    return std::nullopt;
  }

  Taken TakeAt(std::size_t k) REQUIRES(mu_) {
    Taken t;
    t.index = pending_[k];
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(k));
    t.slot = slots_.at(jobs_[t.index].task_path);
    t.kept = t.slot->kept;
    t.ref = t.slot->result;
    return t;
  }

  // Runs the task's reference (this thread owns it), waits and runs it again when it ran out of
  // spill space beside others, offers it to keep_reference and marks the slot ready.
  std::shared_ptr<const ReferenceResult> RunTaskReference(const SampleJob& job, ReferenceSlot& slot,
                                                          double& space_wait_ms) EXCLUDES(mu_) {
    ReferenceResult first = AdmitAndRunReference(config_, job.task_path, admission_, shared_);
    if (!first.ok && first.out_of_space && shared_) {
      const auto asked = std::chrono::steady_clock::now();
      const bool retry = WaitForOtherReferences();
      space_wait_ms = MsSince(asked);
      if (retry) {
        if (config_.drop_kept_spills) config_.drop_kept_spills();
        first = AdmitAndRunReference(config_, job.task_path, admission_, shared_);
      }
    }
    auto r = std::make_shared<const ReferenceResult>(std::move(first));
    if (r->ok && config_.keep_reference) config_.keep_reference(job.task_path, r);
    if (config_.release_reference) config_.release_reference(job.task_path);
    base::MutexLock lock(&mu_);
    slot.result = r;
    slot.state = ReferenceSlot::kReady;
    changed_.SignalAll();
    return r;
  }

  // A reference out of spill space waits, starting no new reference meanwhile, until it is the
  // only live one that does not wait; false when the pool stopped (a stopped pool runs no more
  // samples, so the others may never be dropped: the first failure stands).
  bool WaitForOtherReferences() EXCLUDES(mu_) {
    base::MutexLock lock(&mu_);
    ++space_waiters_;
    // This reference is live and waits; the others that wait do not count.
    while (!(stopped_ || live_ - space_waiters_ == 0)) changed_.Wait();
    --space_waiters_;
    return !stopped_;
  }

  // The sample's place in the run and its share of the reference's time.
  void Annotate(Verdict& v, const Taken& t, int thread_index, double start_ms,
                double space_wait_ms) const {
    // Blocked while other threads ran references: in no stage of this sample's own.
    if (!t.run_reference && t.waited_ms >= 1.0) v.timings_ms["reference_wait"] = t.waited_ms;
    // Its reference ran out of spill space beside others and ran again once they were dropped.
    if (space_wait_ms >= 0) v.timings_ms["reference_space_wait"] = space_wait_ms;
    // Where the sample sat in the run (for the benchmarks' utilisation figures).
    PoolEvidence pool{thread_index, start_ms, MsSince(start_), t.run_reference};
    if (t.kept) {
      // The reference ran for an earlier run: none of its time is this sample's.
      pool.reference_kept = true;
    } else if (t.ref->ok) {
      // The task's reference run in this pool, shared by its samples (and its worker's phases).
      v.timings_ms["reference"] = t.ref->ms;
      for (const auto& [name, ms] : t.ref->phase_ms) v.timings_ms["reference_phase_" + name] = ms;
    }
    if (!t.kept) pool.reference_oom_reruns = t.ref->oom_reruns;
    WriteEvidence(v.evidence, pool);
    const SampleJob& job = jobs_[t.index];
    v.sample = job.sample_id;
    v.task = job.task_id;
  }

  // The task's last sample drops its reference (and frees a live place); the verdict goes out.
  void Finish(const Taken& t, Verdict v) EXCLUDES(mu_) {
    base::MutexLock lock(&mu_);
    if (--t.slot->remaining == 0) {
      t.slot->result.reset();
      if (!t.kept) --live_;
    }
    on_done_(t.index, std::move(v));
    changed_.SignalAll();
  }

  // The caller's config, with this run's pre-started workers (EngineConfig::worker_pool).
  EngineConfig config_;
  const std::vector<SampleJob>& jobs_;
  const int n_;
  const std::function<void(std::size_t, Verdict)>& on_done_;
  const PoolControl& control_;
  const MemoryNeed budgets_;
  const bool own_pool_;  // no pool came with the config: this run makes (and drains) its own
  const int prestart_;   // idle pre-started workers kept (WorkerPool::ReadyCount, or the caller's)
  MemoryAdmission admission_;
  const bool shared_;
  const std::chrono::steady_clock::time_point start_;

  base::Mutex mu_;
  base::CondVar changed_{&mu_};
  // The map's shape is fixed once planned; its slots' fields change under mu_ too.
  std::map<std::string, std::shared_ptr<ReferenceSlot>> slots_ GUARDED_BY(mu_);
  std::vector<std::size_t> pending_ GUARDED_BY(mu_);  // runnable jobs not yet taken, in order
  // References started and not yet dropped: at most one per thread, so a run over many tasks
  // never holds every task's spilled reference outputs at once.
  int live_ GUARDED_BY(mu_) = 0;
  // References that ran out of spill space and wait to run again: while any waits, no new
  // reference starts, and a waiter runs again once every other live reference is dropped (their
  // candidates, which free the space, keep running) and the kept ones' spills are let go.
  // KernelBench's default sizes spill 6-13 GB a task; 16 at once do not fit a 64 GB disk.
  int space_waiters_ GUARDED_BY(mu_) = 0;
  std::size_t next_decided_ GUARDED_BY(mu_) = 0;
  bool stopped_ GUARDED_BY(mu_) = false;   // control.cancelled said so: nothing more is taken
  bool deferred_ GUARDED_BY(mu_) = false;  // the last pick passed over another run's reference
};

}  // namespace

Verdict ReferenceOnlyVerdict(const ReferenceResult& ref) {
  Verdict v;
  if (ref.ok) {
    v.outcome = vocab::Outcome::kCorrect;
    v.reasons.push_back({"reference", "ok", "the task's reference ran (no candidate)"});
  } else {
    v.infra_failure = true;
    v.reasons.push_back(ref.error);
  }
  return v;
}

void RunPool(const EngineConfig& config, const std::vector<SampleJob>& jobs, int threads,
             const std::function<void(std::size_t, Verdict)>& on_done, const PoolControl& control) {
  PoolRun(config, jobs, threads, on_done, control).Run();
}

}  // namespace tritonrl::eval
