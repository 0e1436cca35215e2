#include "eval/spill.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "eval/admission.h"

namespace tritonrl::eval {

namespace {

// Books `n` bytes in `budget` before they are written, so that concurrent writers never pass
// its limit together; false (nothing booked) when they would.
bool Book(SpillBudget& budget, std::uint64_t n, std::uint64_t* before_out = nullptr) {
  const std::uint64_t before = budget.used.fetch_add(n);
  if (before_out != nullptr) *before_out = before;
  if (budget.limit != 0 && before + n > budget.limit) {
    budget.used -= n;
    return false;
  }
  return true;
}

Status WriteAllAt(int fd, std::string_view bytes, std::int64_t offset) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const ssize_t n = pwrite(fd, bytes.data() + at, bytes.size() - at,
                             static_cast<off_t>(offset + static_cast<std::int64_t>(at)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      if (err == ENOSPC || err == EDQUOT || err == EFBIG)
        return Status::Unavailable(std::strerror(err));
      return Status::IoError(std::strerror(err));
    }
    at += static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

Status ReadAllAt(int fd, std::int64_t offset, char* into, std::size_t n) {
  std::size_t at = 0;
  while (at < n) {
    const ssize_t got =
        pread(fd, into + at, n - at, static_cast<off_t>(offset + static_cast<std::int64_t>(at)));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return Status::IoError(got < 0 ? std::strerror(errno) : "short read");
    at += static_cast<std::size_t>(got);
  }
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<SpillFile>> SpillFile::Create(const std::string& dir,
                                                     std::uint64_t reserve_bytes,
                                                     std::shared_ptr<SpillBudget> budget,
                                                     std::shared_ptr<SpillBudget> memory) {
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    // File systems without O_TMPFILE: a named file, unlinked before anything is written.
    std::string path = dir + "/spill-XXXXXX";
    fd = mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0)
      return Status::IoError(
          fmt::format("{}: cannot create a spill file: {}", dir, std::strerror(errno)));
    unlink(path.c_str());
  }
  if (memory && memory->limit == 0) memory = nullptr;
  return std::shared_ptr<SpillFile>(
      new SpillFile(fd, dir, reserve_bytes, std::move(budget), std::move(memory)));
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) close(fd_);
  if (memory_fd_ >= 0) close(memory_fd_);
  if (budget_) budget_->used -= static_cast<std::uint64_t>(size_ - memory_size_);
  if (memory_) memory_->used -= static_cast<std::uint64_t>(memory_size_);
}

bool SpillFile::AppendToMemory(std::string_view bytes) {
  // Once any append went to the disk, memory would no longer be the file's head.
  if (!memory_ || size_ > memory_size_) return false;
  const auto available = HostAvailableBytes();
  if (!available || *available < bytes.size() + memory_->keep_available) return false;
  if (!Book(*memory_, bytes.size())) return false;
  if (memory_fd_ < 0) memory_fd_ = memfd_create("tritonrl-spill", MFD_CLOEXEC);
  // Any failure (no memfd, a cgroup limit) leaves the bytes to the disk.
  if (memory_fd_ < 0 || !WriteAllAt(memory_fd_, bytes, memory_size_).ok()) {
    memory_->used -= bytes.size();
    if (memory_fd_ >= 0) ftruncate(memory_fd_, memory_size_);
    return false;
  }
  memory_size_ += static_cast<std::int64_t>(bytes.size());
  size_ += static_cast<std::int64_t>(bytes.size());
  return true;
}

Status SpillFile::Append(std::string_view bytes) {
  if (AppendToMemory(bytes)) return Status::Ok();
  return AppendToDisk(bytes);
}

Status SpillFile::AppendToDisk(std::string_view bytes) {
  std::uint64_t before = 0;
  if (budget_ && !Book(*budget_, bytes.size(), &before))
    return Status::Unavailable(fmt::format(
        "{}: the run's spill budget is {} MiB, {} MiB are in use and the reference's outputs "
        "need {} MiB more",
        dir_, budget_->limit >> 20, before >> 20, bytes.size() >> 20));
  // From here on the bytes are counted in the budget: a failed write gives them back.
  const auto unbook = [&] {
    if (budget_) budget_->used -= bytes.size();
  };
  struct statvfs fs {};
  if (fstatvfs(fd_, &fs) == 0) {
    const std::uint64_t free_bytes = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (free_bytes < bytes.size() + reserve_) {
      unbook();
      return Status::Unavailable(fmt::format(
          "{}: {} MiB free, the reference's outputs need {} MiB more and {} MiB stay reserved",
          dir_, free_bytes >> 20, bytes.size() >> 20, reserve_ >> 20));
    }
  }
  const Status wrote = WriteAllAt(fd_, bytes, size_ - memory_size_);
  if (!wrote.ok()) {
    unbook();
    const std::string what = fmt::format("{}: spill file: {}", dir_, wrote.message());
    return wrote.code() == StatusCode::kUnavailable ? Status::Unavailable(what)
                                                    : Status::IoError(what);
  }
  size_ += static_cast<std::int64_t>(bytes.size());
  return Status::Ok();
}

Status SpillFile::ReadAt(std::int64_t offset, std::size_t n, std::string& into) const {
  if (offset < 0 || offset + static_cast<std::int64_t>(n) > size_)
    return Status::Internal(
        fmt::format("spill read [{}, +{}) past its {} bytes", offset, n, size_));
  into.resize(n);
  // The memory part is the file's head: a read may take its start from memory, its end from disk.
  const std::int64_t end = offset + static_cast<std::int64_t>(n);
  const std::int64_t split = std::clamp(memory_size_, offset, end);
  if (split > offset) {
    if (Status s =
            ReadAllAt(memory_fd_, offset, into.data(), static_cast<std::size_t>(split - offset));
        !s.ok())
      return Status::IoError(fmt::format("{}: spill memory read: {}", dir_, s.message()));
  }
  if (end > split) {
    if (Status s = ReadAllAt(fd_, split - memory_size_, into.data() + (split - offset),
                             static_cast<std::size_t>(end - split));
        !s.ok())
      return Status::IoError(fmt::format("{}: spill file read: {}", dir_, s.message()));
  }
  return Status::Ok();
}

}  // namespace tritonrl::eval
