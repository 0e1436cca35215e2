// A mutex, its scoped lock and a condition variable that Clang's thread-safety analysis can check
// (-Wthread-safety): a field marked GUARDED_BY(mu_) may only be touched with mu_ held, a function
// marked REQUIRES(mu_) only called with it held. std::mutex carries no such annotations in
// libstdc++, so the shared state of the scorer, the server, the store and the data tools uses
// these instead; scripts/check_thread_safety.sh (run by scripts/test.sh) compiles them with Clang
// and the warning as an error. With GCC the annotations are empty. Any thread.
//
//   base::Mutex mu_;
//   int pending_ GUARDED_BY(mu_) = 0;
//   void Add() { base::MutexLock lock(&mu_); ++pending_; }
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define TRITONRL_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define TRITONRL_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) TRITONRL_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY TRITONRL_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) TRITONRL_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) TRITONRL_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) TRITONRL_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) TRITONRL_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) TRITONRL_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) TRITONRL_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) TRITONRL_THREAD_ANNOTATION(assert_capability(x))
#define NO_THREAD_SAFETY_ANALYSIS TRITONRL_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace tritonrl::base {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // Tells the analysis the caller holds the mutex (a callback run under the lock).
  void AssertHeld() ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds the mutex for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* mu_;
};

// A condition variable bound to one Mutex; every wait is called with that mutex held, and
// returns with it held again. (The waits carry no REQUIRES: the analysis cannot see that the
// caller's mutex and this one's are the same object, as LevelDB's port::CondVar notes too.)
class CondVar {
 public:
  explicit CondVar(Mutex* mu) : mu_(mu) {}
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait() {
    std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // False when the deadline passed (the caller checks its condition either way).
  template <class Clock, class Duration>
  bool WaitUntil(const std::chrono::time_point<Clock, Duration>& deadline) {
    std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
    const bool woke = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return woke;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  Mutex* const mu_;
  std::condition_variable cv_;
};

}  // namespace tritonrl::base
