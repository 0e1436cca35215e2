// A background writer: the engine's threads hand results over without waiting for
// fsync, and commits are batched so that many fast verdicts cost few transactions.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "base/mutex.h"
#include "store/store.h"

namespace tritonrl::store {

struct VerdictWriter::Impl {
  explicit Impl(Store s, WriterOptions o) : store(std::move(s)), options(std::move(o)) {}

  Store store;  // the thread's alone, until Close has joined it
  WriterOptions options;
  base::Mutex mu;
  base::CondVar wake{&mu};      // the thread: work or stop
  base::CondVar progress{&mu};  // Flush: the committed count moved
  std::deque<EvalResult> queue GUARDED_BY(mu);
  uint64_t submitted GUARDED_BY(mu) = 0;
  uint64_t committed GUARDED_BY(mu) = 0;  // results handled (written or dropped after an error)
  Status error GUARDED_BY(mu);
  bool stop GUARDED_BY(mu) = false;
  bool closed GUARDED_BY(mu) = false;
  std::thread thread;

  void Loop() {
    using Clock = std::chrono::steady_clock;
    mu.Lock();
    for (;;) {
      while (!stop && queue.empty()) wake.Wait();
      if (queue.empty() && stop) break;
      // Give later results a moment to join this transaction, unless a batch is full.
      const auto deadline = Clock::now() + std::chrono::milliseconds(options.max_delay_ms);
      while (!stop && queue.size() < static_cast<size_t>(options.max_batch)) {
        if (!wake.WaitUntil(deadline)) break;
      }
      std::vector<EvalResult> batch;
      while (!queue.empty() && batch.size() < static_cast<size_t>(options.max_batch)) {
        batch.push_back(std::move(queue.front()));
        queue.pop_front();
      }
      const bool failed = !error.ok();
      mu.Unlock();
      Status st = failed ? Status::Ok() : store.PutResults(batch);
      mu.Lock();
      if (!st.ok() && error.ok()) error = st;
      committed += batch.size();
      progress.SignalAll();
    }
    mu.Unlock();
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
  base::MutexLock lock(&impl_->mu);
  if (impl_->closed) {
    if (impl_->error.ok())
      impl_->error = Status::FailedPrecondition(impl_->store.path() + ": writer already closed");
    return;
  }
  impl_->queue.push_back(std::move(result));
  ++impl_->submitted;
  impl_->wake.Signal();
}

Status VerdictWriter::Flush() {
  base::MutexLock lock(&impl_->mu);
  const uint64_t target = impl_->submitted;
  impl_->wake.Signal();
  while (impl_->committed < target) impl_->progress.Wait();
  return impl_->error;
}

Status VerdictWriter::Close() {
  {
    base::MutexLock lock(&impl_->mu);
    if (impl_->closed) return impl_->error;
    impl_->closed = true;
    impl_->stop = true;
    impl_->wake.Signal();
  }
  impl_->thread.join();
  base::MutexLock lock(&impl_->mu);
  return impl_->error;
}

}  // namespace tritonrl::store
