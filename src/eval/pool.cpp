#include "eval/pool.h"

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace tritonrl::eval {
namespace {

struct ReferenceSlot {
  std::once_flag once;
  std::shared_ptr<const ReferenceResult> result;
  std::size_t remaining = 0;  // runnable jobs of this task not yet finished
};

}  // namespace

void RunPool(const EngineConfig& config, const std::vector<SampleJob>& jobs, int threads,
             const std::function<void(std::size_t, Verdict)>& on_done) {
  std::map<std::string, std::shared_ptr<ReferenceSlot>> slots;
  for (const auto& job : jobs) {
    auto& slot = slots[job.task_path];
    if (!slot) slot = std::make_shared<ReferenceSlot>();
    if (!job.pre_verdict) ++slot->remaining;
  }
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
          auto r = std::make_shared<ReferenceResult>(RunReference(config, job.task_path));
          std::lock_guard<std::mutex> lock(mu);
          slot->result = std::move(r);
        });
        // Blocked behind another thread's reference run: in no stage of this sample's own.
        const double waited_ms = ran_reference ? 0.0
                                               : std::chrono::duration<double, std::milli>(
                                                     std::chrono::steady_clock::now() - asked)
                                                     .count();
        std::shared_ptr<const ReferenceResult> ref;
        {
          std::lock_guard<std::mutex> lock(mu);
          ref = slot->result;
        }
        v = RunCandidate(config, job.task_path, job.code, *ref);
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
