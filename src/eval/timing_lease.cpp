#include "eval/timing_lease.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "base/mutex.h"
#include "eval/clock.h"

namespace tritonrl::eval {
namespace fs = std::filesystem;

namespace {

// One mutex per lease key, alive for the process (keys are few: one per GPU). Timed, as a lease
// waits with a deadline, so not base::Mutex; the map of them is guarded by the registry's lock.
struct KeyRegistry {
  base::Mutex mu;
  std::map<std::string, std::unique_ptr<std::timed_mutex>> mutexes GUARDED_BY(mu);
};

std::timed_mutex* KeyMutex(const std::string& key) {
  static KeyRegistry registry;
  base::MutexLock lock(&registry.mu);
  auto& m = registry.mutexes[key];
  if (!m) m = std::make_unique<std::timed_mutex>();
  return m.get();
}

// What a key's leases know of its trials (timing_lease.h). Plain std::mutex: the condition
// variable needs it.
struct TrialGate {
  std::mutex mu;
  std::condition_variable changed;
  int candidates = 0, references = 0;  // tickets held
  int quiet_claims = 0;                // quiet leases held or waited for
  bool lease_held = false;
  int started_while_held = 0, references_while_held = 0;
};

TrialGate* GateFor(const std::string& key) {
  struct Gates {
    base::Mutex mu;
    std::map<std::string, std::unique_ptr<TrialGate>> gates GUARDED_BY(mu);
  };
  static Gates registry;
  base::MutexLock lock(&registry.mu);
  auto& g = registry.gates[key];
  if (!g) g = std::make_unique<TrialGate>();
  return g.get();
}

std::string SafeKey(const std::string& key) {
  std::string out;
  for (char c : key)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "gpu" : out;
}

}  // namespace

TimingLease::TimingLease(TimingLease&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      mutex_(std::exchange(other.mutex_, nullptr)),
      gate_(std::exchange(other.gate_, nullptr)),
      quiet_(other.quiet_),
      facts_(other.facts_) {}

TimingLease& TimingLease::operator=(TimingLease&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    mutex_ = std::exchange(other.mutex_, nullptr);
    gate_ = std::exchange(other.gate_, nullptr);
    quiet_ = other.quiet_;
    facts_ = other.facts_;
  }
  return *this;
}

TimingLease::~TimingLease() {
  Release();
}

void TimingLease::Release() {
  if (gate_ != nullptr) {
    auto* g = static_cast<TrialGate*>(std::exchange(gate_, nullptr));
    {
      std::lock_guard<std::mutex> lock(g->mu);
      g->lease_held = false;
      facts_.trials_started_while_timed = g->started_while_held;
      facts_.references_started_while_timed = g->references_while_held;
      if (quiet_) --g->quiet_claims;
    }
    g->changed.notify_all();
  }
  if (fd_ >= 0) {
    flock(fd_, LOCK_UN);
    close(fd_);
    fd_ = -1;
  }
  if (mutex_ != nullptr) {
    static_cast<std::timed_mutex*>(mutex_)->unlock();
    mutex_ = nullptr;
  }
}

Result<TimingLease> AcquireTimingLease(const std::string& lock_dir, const std::string& key,
                                       bool quiet) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string dir = lock_dir;
  if (dir.empty()) {
    const char* env = std::getenv("TRITONRL_LOCK_DIR");
    dir = env && *env ? env : "/tmp";
  }
  const std::string path =
      (fs::path(dir) / fmt::format("tritonrl-timing-{}.lock", SafeKey(key))).string();
  std::timed_mutex* mu = KeyMutex(key);
  mu->lock();  // threads of this process first: one flock per process at a time
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    mu->unlock();
    return Status::IoError(
        fmt::format("{}: cannot open the timing lock: {}", path, std::strerror(errno)));
  }
  while (flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int err = errno;
      close(fd);
      mu->unlock();
      return Status::IoError(fmt::format("{}: flock: {}", path, std::strerror(err)));
    }
  }
  TimingLease lease;
  lease.fd_ = fd;
  lease.mutex_ = mu;
  lease.quiet_ = quiet;
  TrialGate* g = GateFor(key);
  {
    std::unique_lock<std::mutex> lock(g->mu);
    if (quiet) {
      // Claimed first, so that no candidate trial starts while those in flight drain.
      ++g->quiet_claims;
      const auto q0 = std::chrono::steady_clock::now();
      g->changed.wait(lock, [g] { return g->candidates == 0; });
      lease.facts_.quiet_wait_ms = MsSince(q0);
    }
    g->lease_held = true;
    g->started_while_held = 0;
    g->references_while_held = 0;
    lease.facts_.quiet = quiet;
    lease.facts_.trials_in_flight_at_go = g->candidates + g->references;
    lease.facts_.candidates_in_flight_at_go = g->candidates;
  }
  lease.gate_ = g;
  lease.facts_.wait_ms = MsSince(t0);
  return lease;
}

TrialTicket::TrialTicket(TrialTicket&& other) noexcept
    : gate_(std::exchange(other.gate_, nullptr)), reference_(other.reference_) {}

TrialTicket& TrialTicket::operator=(TrialTicket&& other) noexcept {
  if (this != &other) {
    Release();
    gate_ = std::exchange(other.gate_, nullptr);
    reference_ = other.reference_;
  }
  return *this;
}

TrialTicket::~TrialTicket() {
  Release();
}

void TrialTicket::Release() {
  if (gate_ == nullptr) return;
  auto* g = static_cast<TrialGate*>(std::exchange(gate_, nullptr));
  {
    std::lock_guard<std::mutex> lock(g->mu);
    --(reference_ ? g->references : g->candidates);
  }
  g->changed.notify_all();
}

TrialTicket EnterTrial(const std::string& key, bool candidate) {
  TrialGate* g = GateFor(key);
  std::unique_lock<std::mutex> lock(g->mu);
  if (candidate) {
    g->changed.wait(lock, [g] { return g->quiet_claims == 0; });
    ++g->candidates;
  } else {
    ++g->references;
  }
  if (g->lease_held) ++(candidate ? g->started_while_held : g->references_while_held);
  TrialTicket t;
  t.gate_ = g;
  t.reference_ = !candidate;
  return t;
}

}  // namespace tritonrl::eval
