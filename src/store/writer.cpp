// A background writer: the engine's threads hand results over without waiting for
// fsync, and commits are batched so that many fast verdicts cost few transactions.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "store/store.h"

namespace tritonrl::store {

struct VerdictWriter::Impl {
  explicit Impl(Store s, WriterOptions o) : store(std::move(s)), options(std::move(o)) {}

  Store store;
  WriterOptions options;
  std::mutex mu;
  std::condition_variable wake;      // the thread: work or stop
  std::condition_variable progress;  // Flush: the committed count moved
  std::deque<EvalResult> queue;
  uint64_t submitted = 0;
  uint64_t committed = 0;  // results handled (written or dropped after an error)
  Status error;
  bool stop = false;
  bool closed = false;
  std::thread thread;

  void Loop() {
    using Clock = std::chrono::steady_clock;
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      wake.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty() && stop) return;
      // Give later results a moment to join this transaction, unless a batch is full.
      auto deadline = Clock::now() + std::chrono::milliseconds(options.max_delay_ms);
      wake.wait_until(lock, deadline, [&] {
        return stop || queue.size() >= static_cast<size_t>(options.max_batch);
      });
      std::vector<EvalResult> batch;
      while (!queue.empty() && batch.size() < static_cast<size_t>(options.max_batch)) {
        batch.push_back(std::move(queue.front()));
        queue.pop_front();
      }
      bool failed = !error.ok();
      lock.unlock();
      Status st = failed ? Status::Ok() : store.PutResults(batch);
      lock.lock();
      if (!st.ok() && error.ok()) error = st;
      committed += batch.size();
      progress.notify_all();
    }
  }
};

VerdictWriter::VerdictWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<VerdictWriter>> VerdictWriter::Open(const std::string& path,
                                                           const WriterOptions& options) {
  if (options.open.read_only)
    return Status::InvalidArgument(path + ": a writer needs a read-write store");
  auto store = Store::Open(path, options.open);
  if (!store.ok()) return store.status();
  WriterOptions o = options;
  if (o.max_batch < 1) o.max_batch = 1;
  if (o.max_delay_ms < 0) o.max_delay_ms = 0;
  auto impl = std::make_unique<Impl>(std::move(store).value(), o);
  Impl* raw = impl.get();
  raw->thread = std::thread([raw] { raw->Loop(); });
  return std::unique_ptr<VerdictWriter>(new VerdictWriter(std::move(impl)));
}

VerdictWriter::~VerdictWriter() {
  (void)Close();
}

void VerdictWriter::Submit(EvalResult result) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->closed) {
    if (impl_->error.ok())
      impl_->error = Status::FailedPrecondition(impl_->store.path() + ": writer already closed");
    return;
  }
  impl_->queue.push_back(std::move(result));
  ++impl_->submitted;
  impl_->wake.notify_one();
}

Status VerdictWriter::Flush() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  uint64_t target = impl_->submitted;
  impl_->wake.notify_one();
  impl_->progress.wait(lock, [&] { return impl_->committed >= target; });
  return impl_->error;
}

Status VerdictWriter::Close() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->closed) return impl_->error;
    impl_->closed = true;
    impl_->stop = true;
    impl_->wake.notify_one();
  }
  impl_->thread.join();
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->error;
}

}  // namespace tritonrl::store
