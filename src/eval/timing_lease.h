// The timing lease: exclusive use of one GPU for timing (docs/measurement.md, protocol step 1).
// The rule: timing of two samples never overlaps on one GPU, whichever engine process runs them.
// An in-process mutex per key plus an flock on <lock_dir>/tritonrl-timing-<key>.lock, so engine
// processes on one host serialise too. Any thread may acquire; the holder's thread releases (or
// the destructor). A crash releases the flock with the process.
//
// The same key's correctness work is counted against the lease (docs/measurement.md, "Quiet
// timing"): a worker driver holds a TrialTicket while a trial of its worker may run on the GPU
// (a candidate: from its trial's seed to its last output slice; a reference: its correctness
// stages).
// Every lease records how many tickets were held when its timed phase began and how many were
// taken during it. With `quiet`, a candidate's ticket waits while a lease holds or waits for the
// GPU, and the lease waits until the tickets held have ended, so no candidate trial of this
// process runs while a sample is timed. A reference's ticket never waits (its worker has every
// seed up front, so its trials cannot be held back), and other engine processes are not counted.
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
  // Of the wait, the part spent letting the trials in flight end (quiet only).
  double quiet_wait_ms() const { return quiet_wait_ms_; }
  // Tickets held when the lease was granted (after the quiet wait: 0 with quiet but for
  // references).
  int trials_in_flight_at_start() const { return in_flight_at_start_; }
  // Candidates' tickets taken while it was held (0 with quiet), and references' (a reference's
  // correctness stage begun); set by Release.
  int trials_started_while_held() const { return started_while_held_; }
  int references_started_while_held() const { return references_while_held_; }
  void Release();

 private:
  friend Result<TimingLease> AcquireTimingLease(const std::string& lock_dir, const std::string& key,
                                                bool quiet);
  int fd_ = -1;
  void* mutex_ = nullptr;  // the in-process mutex (std::timed_mutex) held with the lock
  void* gate_ = nullptr;   // the key's trial gate, marked busy while held
  bool quiet_ = false;
  double wait_ms_ = 0, quiet_wait_ms_ = 0;
  int in_flight_at_start_ = 0, started_while_held_ = 0, references_while_held_ = 0;
};

// Blocks until the lease on `key` is held ("" lock_dir: $TRITONRL_LOCK_DIR, else /tmp); with
// `quiet`, also until the key's candidate trials in flight have ended.
Result<TimingLease> AcquireTimingLease(const std::string& lock_dir, const std::string& key,
                                       bool quiet = false);

// Held by a worker driver while its worker's trial may run on the GPU of `key`.
class TrialTicket {
 public:
  TrialTicket() = default;
  TrialTicket(TrialTicket&& other) noexcept;
  TrialTicket& operator=(TrialTicket&& other) noexcept;
  TrialTicket(const TrialTicket&) = delete;
  TrialTicket& operator=(const TrialTicket&) = delete;
  ~TrialTicket();
  bool held() const { return gate_ != nullptr; }
  void Release();

 private:
  friend TrialTicket EnterTrial(const std::string& key, bool candidate);
  void* gate_ = nullptr;  // the key's gate
  bool reference_ = false;
};

// Takes a ticket on `key`: a candidate's first waits while a quiet lease on the key is held or
// waited for; a reference's never blocks.
TrialTicket EnterTrial(const std::string& key, bool candidate);

}  // namespace tritonrl::eval
