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
// Since tritonrl-eval/35 a candidate's ticket covers all of its code before its own lease (its
// import, each constructor, its trials), and a reference's lease is always quiet (worker_driver):
// a reference's timings are kept across samples and runs, so no candidate may run beside them.
#pragma once

#include <string>

#include "base/status.h"

namespace tritonrl::eval {

// What one lease saw of its GPU's other work (evidence.timing of the timed sample).
struct LeaseFacts {
  double wait_ms = 0;        // acquiring the lease, the quiet wait included
  double quiet_wait_ms = 0;  // of it, letting the candidates' trials in flight end (quiet only)
  bool quiet = false;
  // Tickets held when the lease was granted (after a quiet wait, references' only), and of them
  // the candidates' (0 after a quiet wait).
  int trials_in_flight_at_go = 0, candidates_in_flight_at_go = 0;
  // Tickets taken while it was held: candidates' (0 with quiet) and references' (a reference's
  // correctness stage begun). Set by Release.
  int trials_started_while_timed = 0, references_started_while_timed = 0;
};

class TimingLease {
 public:
  TimingLease() = default;
  TimingLease(TimingLease&& other) noexcept;
  TimingLease& operator=(TimingLease&& other) noexcept;
  TimingLease(const TimingLease&) = delete;
  TimingLease& operator=(const TimingLease&) = delete;
  ~TimingLease();
  bool held() const { return fd_ >= 0; }
  const LeaseFacts& facts() const { return facts_; }
  void Release();

 private:
  friend Result<TimingLease> AcquireTimingLease(const std::string& lock_dir, const std::string& key,
                                                bool quiet);
  int fd_ = -1;
  void* mutex_ = nullptr;  // the in-process mutex (std::timed_mutex) held with the lock
  void* gate_ = nullptr;   // the key's trial gate, marked busy while held
  bool quiet_ = false;
  LeaseFacts facts_;
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
