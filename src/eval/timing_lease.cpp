#include "eval/timing_lease.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "base/mutex.h"

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
      wait_ms_(other.wait_ms_) {}

TimingLease& TimingLease::operator=(TimingLease&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    mutex_ = std::exchange(other.mutex_, nullptr);
    wait_ms_ = other.wait_ms_;
  }
  return *this;
}

TimingLease::~TimingLease() {
  Release();
}

void TimingLease::Release() {
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

Result<TimingLease> AcquireTimingLease(const std::string& lock_dir, const std::string& key) {
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
  lease.wait_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return lease;
}

}  // namespace tritonrl::eval
