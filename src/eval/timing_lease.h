// The timing lease: exclusive use of one GPU for timing (docs/measurement.md, protocol step 1).
// The rule: timing of two samples never overlaps on one GPU, whichever engine process runs them.
// An in-process mutex per key plus an flock on <lock_dir>/tritonrl-timing-<key>.lock, so engine
// processes on one host serialise too. Any thread may acquire; the holder's thread releases (or
// the destructor). A crash releases the flock with the process.
#pragma once

#include <string>

#include "base/status.h"

namespace tritonrl::eval {

class TimingLease {
 public:
  TimingLease() = default;
  TimingLease(TimingLease&& other) noexcept;
  TimingLease& operator=(TimingLease&& other) noexcept;
  TimingLease(const TimingLease&) = delete;
  TimingLease& operator=(const TimingLease&) = delete;
  ~TimingLease();
  bool held() const { return fd_ >= 0; }
  double wait_ms() const { return wait_ms_; }
  void Release();

 private:
  friend Result<TimingLease> AcquireTimingLease(const std::string& lock_dir,
                                                const std::string& key);
  int fd_ = -1;
  void* mutex_ = nullptr;  // the in-process mutex (std::timed_mutex) held with the lock
  double wait_ms_ = 0;
};

// Blocks until the lease on `key` is held ("" lock_dir: $TRITONRL_LOCK_DIR, else /tmp).
Result<TimingLease> AcquireTimingLease(const std::string& lock_dir, const std::string& key);

}  // namespace tritonrl::eval
