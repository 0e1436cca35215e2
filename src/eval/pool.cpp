#include "eval/pool.h"

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "eval/admission.h"

namespace tritonrl::eval {
namespace {

struct ReferenceSlot {
  std::once_flag once;
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

// A task's reference, run once its worker's base memory is admitted; run again alone when it ran
// out of GPU memory beside other workers (a reference failure fails every sample of its task).
ReferenceResult AdmitAndRunReference(const EngineConfig& config, const std::string& task_path,
                                     MemoryAdmission& admission, bool shared) {
  auto ticket = admission.Admit(EstimateReferenceMemory(config));
  if (!ticket.ok()) {
    ReferenceResult ref;
    ref.error = {"reference", "resource_exhausted",
                 task_path + ": the reference cannot be started: " + ticket.status().message()};
    return ref;
  }
  ReferenceResult ref = RunReference(config, task_path);
  if (!ref.ok && ref.out_of_memory && shared) {
    ticket->Release();
    MemoryAdmission::Ticket alone = admission.AdmitAlone();
    ref = RunReference(config, task_path);
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
             const std::function<void(std::size_t, Verdict)>& on_done) {
  std::map<std::string, std::shared_ptr<ReferenceSlot>> slots;
  for (const auto& job : jobs) {
    auto& slot = slots[job.task_path];
    if (!slot) slot = std::make_shared<ReferenceSlot>();
    if (!job.pre_verdict) ++slot->remaining;
  }
  MemoryAdmission admission = MakeAdmission(config);
  // Other workers can share the GPU only with more than one thread.
  const bool shared = threads > 1;
  std::mutex mu;  // guards slot->result release, remaining, and on_done
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= jobs.size()) return;
      const SampleJob& job = jobs[i];
      Verdict v;
      if (job.pre_verdict) {
        v = *job.pre_verdict;
      } else {
        auto slot = slots.at(job.task_path);
        const auto asked = std::chrono::steady_clock::now();
        bool ran_reference = false;
        std::call_once(slot->once, [&] {
          ran_reference = true;
          auto r = std::make_shared<ReferenceResult>(
              AdmitAndRunReference(config, job.task_path, admission, shared));
          std::lock_guard<std::mutex> lock(mu);
          slot->result = std::move(r);
        });
        // Blocked behind another thread's reference run: in no stage of this sample's own.
        const double waited_ms = ran_reference ? 0.0 : MsSince(asked);
        std::shared_ptr<const ReferenceResult> ref;
        {
          std::lock_guard<std::mutex> lock(mu);
          ref = slot->result;
        }
        v = AdmitAndRunCandidate(config, job, *ref, admission, shared);
        if (!ran_reference) v.timings_ms["reference_wait"] = waited_ms;
        std::lock_guard<std::mutex> lock(mu);
        if (--slot->remaining == 0) slot->result.reset();
      }
      v.sample = job.sample_id;
      v.task = job.task_id;
      std::lock_guard<std::mutex> lock(mu);
      on_done(i, std::move(v));
    }
  };
  std::vector<std::thread> pool;
  const int n = std::max(1, threads);
  for (int t = 0; t < n; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
}

}  // namespace tritonrl::eval
