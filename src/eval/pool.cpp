#include "eval/pool.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "eval/admission.h"

namespace tritonrl::eval {
namespace {

struct ReferenceSlot {
  enum State { kNotStarted, kRunning, kReady };
  State state = kNotStarted;
  bool kept = false;  // from an earlier run (EngineConfig::reuse_reference): not one of ours
  std::shared_ptr<const ReferenceResult> result;
  std::size_t remaining = 0;  // runnable jobs of this task not yet finished
};

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json AdmissionEvidence(const MemoryNeed& need, const MemoryAdmission& admission) {
  return {{"host_bytes_estimate", need.host},
          {"device_bytes_estimate", need.device},
          {"host_budget_bytes", admission.host_budget()},
          {"device_budget_bytes", admission.device_budget()}};
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
    v.outcome = "resource_exhausted";
    v.infra_failure = true;  // says nothing about the sample: never cached
    v.reasons.push_back({"admission", "resource_exhausted", ticket.status().message()});
    v.evidence["admission"] = AdmissionEvidence(need, admission);
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
    const double alone_wait_ms = MsSince(alone_asked);
    const std::string first = oom->message;
    v = RunCandidate(config, job.task_path, job.code, ref);
    v.evidence["out_of_memory_rerun"] = {{"first_run", first}, {"wait_ms", alone_wait_ms}};
  }
  v.evidence["admission"] = AdmissionEvidence(need, admission);
  if (waited_ms >= 1.0) v.timings_ms["admission_wait"] = waited_ms;
  return v;
}

}  // namespace

void RunPool(const EngineConfig& config, const std::vector<SampleJob>& jobs, int threads,
             const std::function<void(std::size_t, Verdict)>& on_done, const PoolControl& control) {
  const int n = std::max(1, threads);
  std::map<std::string, std::shared_ptr<ReferenceSlot>> slots;
  std::vector<std::size_t> pending;  // runnable jobs not yet taken, in input order
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].pre_verdict) continue;
    auto& slot = slots[jobs[i].task_path];
    if (!slot) {
      slot = std::make_shared<ReferenceSlot>();
      if (config.reuse_reference) {
        if (auto kept = config.reuse_reference(jobs[i].task_path)) {
          slot->result = std::move(kept);
          slot->state = ReferenceSlot::kReady;
          slot->kept = true;
        }
      }
    }
    ++slot->remaining;
    pending.push_back(i);
  }
  MemoryAdmission admission = MakeAdmission(config);
  // Other workers can share the GPU only with more than one thread.
  const bool shared = n > 1;
  const auto pool_start = std::chrono::steady_clock::now();
  std::mutex mu;  // guards the slots' states, pending, live and on_done
  std::condition_variable changed;
  // References started and not yet dropped: at most one per thread, so a run over many tasks
  // never holds every task's spilled reference outputs at once.
  int live = 0;
  // References that ran out of spill space and wait to run again: while any waits, no new
  // reference starts, and a waiter runs again once every other live reference is dropped (their
  // candidates, which free the space, keep running) and the kept ones' spills are let go.
  // KernelBench's default sizes spill 6-13 GB a task; 16 at once do not fit a 64 GB disk.
  int space_waiters = 0;
  std::size_t next_decided = 0;

  // The next job for a free thread (under mu): a job of a task whose reference is ready; else the
  // first job of a task whose reference nobody runs yet (this thread runs it), while fewer than
  // `n` references are live; else none (wait). A thread blocks only when every runnable job waits
  // on a reference in flight.
  auto take = [&](std::size_t k) {
    const std::size_t i = pending[k];
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
    return i;
  };
  bool stopped = false;   // control.cancelled said so: nothing more is taken
  bool deferred = false;  // the last pick passed over a task whose reference another run computes
  auto pick = [&](bool& run_reference) -> std::optional<std::size_t> {
    deferred = false;
    if (!stopped && control.cancelled && control.cancelled()) {
      stopped = true;
      changed.notify_all();
    }
    if (stopped) return std::nullopt;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (slots.at(jobs[pending[k]].task_path)->state == ReferenceSlot::kReady) return take(k);
    }
    if (live >= n || space_waiters > 0) return std::nullopt;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const std::string& path = jobs[pending[k]].task_path;
      auto& slot = slots.at(path);
      if (slot->state != ReferenceSlot::kNotStarted) continue;
      if (config.reuse_reference) {  // kept by another run since this one began
        if (auto kept = config.reuse_reference(path)) {
          slot->result = std::move(kept);
          slot->state = ReferenceSlot::kReady;
          slot->kept = true;
          return take(k);
        }
      }
      if (config.claim_reference && !config.claim_reference(path)) {
        deferred = true;
        continue;
      }
      slot->state = ReferenceSlot::kRunning;
      ++live;
      run_reference = true;
      return take(k);
    }
    return std::nullopt;
  };

  auto work = [&](int thread_index) {
    for (;;) {
      std::size_t i = 0;
      bool run_reference = false;
      double waited_ms = 0;
      {
        std::unique_lock<std::mutex> lock(mu);
        // Decided samples first: they cost nothing and free their callers early.
        while (next_decided < jobs.size() && !jobs[next_decided].pre_verdict) ++next_decided;
        if (next_decided < jobs.size()) {
          i = next_decided++;
          Verdict v = *jobs[i].pre_verdict;
          v.sample = jobs[i].sample_id;
          v.task = jobs[i].task_id;
          on_done(i, std::move(v));
          continue;
        }
        if (pending.empty()) return;
        const auto asked = std::chrono::steady_clock::now();
        std::optional<std::size_t> got;
        // A task passed over for another run's reference in flight is looked at again every
        // 100 ms: that run's keeping it wakes nobody here.
        while (!(pending.empty() || (got = pick(run_reference)).has_value() || stopped)) {
          if (deferred) {
            changed.wait_for(lock, std::chrono::milliseconds(100));
          } else {
            changed.wait(lock);
          }
        }
        if (!got) return;
        i = *got;
        waited_ms = MsSince(asked);
      }
      if (control.acquire_slot) control.acquire_slot();
      const SampleJob& job = jobs[i];
      auto slot = slots.at(job.task_path);
      const double start_ms = MsSince(pool_start);
      std::shared_ptr<const ReferenceResult> ref;
      double space_wait_ms = -1;
      if (run_reference) {
        ReferenceResult first = AdmitAndRunReference(config, job.task_path, admission, shared);
        if (!first.ok && first.out_of_space && shared) {
          const auto asked = std::chrono::steady_clock::now();
          bool retry = false;
          {
            std::unique_lock<std::mutex> lock(mu);
            ++space_waiters;
            // This reference is live and waits; the others that wait do not count.
            // A stopped pool runs no more samples, so the others may never be dropped: the
            // first failure stands.
            changed.wait(lock, [&] { return stopped || live - space_waiters == 0; });
            --space_waiters;
            retry = !stopped;
          }
          space_wait_ms = MsSince(asked);
          if (retry) {
            if (config.drop_kept_spills) config.drop_kept_spills();
            first = AdmitAndRunReference(config, job.task_path, admission, shared);
          }
        }
        auto r = std::make_shared<const ReferenceResult>(std::move(first));
        if (r->ok && config.keep_reference) config.keep_reference(job.task_path, r);
        if (config.release_reference) config.release_reference(job.task_path);
        std::lock_guard<std::mutex> lock(mu);
        slot->result = r;
        slot->state = ReferenceSlot::kReady;
        ref = r;
        changed.notify_all();
      } else {
        std::lock_guard<std::mutex> lock(mu);
        ref = slot->result;
      }
      Verdict v = AdmitAndRunCandidate(config, job, *ref, admission, shared);
      // Blocked while other threads ran references: in no stage of this sample's own.
      if (!run_reference && waited_ms >= 1.0) v.timings_ms["reference_wait"] = waited_ms;
      // Its reference ran out of spill space beside others and ran again once they were dropped.
      if (space_wait_ms >= 0) v.timings_ms["reference_space_wait"] = space_wait_ms;
      // Where the sample sat in the run (for the benchmarks' utilisation figures).
      v.evidence["pool"] = {{"thread", thread_index},
                            {"start_ms", start_ms},
                            {"end_ms", MsSince(pool_start)},
                            {"ran_reference", run_reference}};
      if (slot->kept) {
        // The reference ran for an earlier run: none of its time is this sample's.
        v.evidence["pool"]["reference_kept"] = true;
      } else if (ref->ok) {
        // The task's reference run in this pool, shared by its samples (and its worker's phases).
        v.timings_ms["reference"] = ref->ms;
        for (const auto& [name, ms] : ref->phase_ms) v.timings_ms["reference_phase_" + name] = ms;
      }
      if (!slot->kept && !ref->oom_reruns.empty())
        v.evidence["pool"]["reference_oom_reruns"] = ref->oom_reruns;
      v.sample = job.sample_id;
      v.task = job.task_id;
      if (control.release_slot) control.release_slot();
      std::lock_guard<std::mutex> lock(mu);
      if (--slot->remaining == 0) {
        slot->result.reset();
        if (!slot->kept) --live;
      }
      on_done(i, std::move(v));
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < n; ++t) pool.emplace_back(work, t);
  for (auto& t : pool) t.join();
}

}  // namespace tritonrl::eval
