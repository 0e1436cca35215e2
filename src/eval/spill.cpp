#include "eval/spill.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

namespace tritonrl::eval {

Result<std::shared_ptr<SpillFile>> SpillFile::Create(const std::string& dir,
                                                     std::uint64_t reserve_bytes,
                                                     std::shared_ptr<SpillBudget> budget) {
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
  return std::shared_ptr<SpillFile>(new SpillFile(fd, dir, reserve_bytes, std::move(budget)));
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) close(fd_);
  if (budget_) budget_->used -= static_cast<std::uint64_t>(size_);
}

Status SpillFile::Append(std::string_view bytes) {
  if (budget_ && budget_->limit != 0) {
    // Taken before the write, so concurrent writers never pass the limit together.
    const std::uint64_t before = budget_->used.fetch_add(bytes.size());
    if (before + bytes.size() > budget_->limit) {
      budget_->used -= bytes.size();
      return Status::Unavailable(fmt::format(
          "{}: the run's spill budget is {} MiB, {} MiB are in use and the reference's outputs "
          "need {} MiB more",
          dir_, budget_->limit >> 20, before >> 20, bytes.size() >> 20));
    }
  } else if (budget_) {
    budget_->used += bytes.size();
  }
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
  std::size_t at = 0;
  while (at < bytes.size()) {
    const ssize_t n = pwrite(fd_, bytes.data() + at, bytes.size() - at,
                             static_cast<off_t>(size_ + static_cast<std::int64_t>(at)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      unbook();
      if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
        return Status::Unavailable(fmt::format("{}: spill file: {}", dir_, std::strerror(errno)));
      return Status::IoError(fmt::format("{}: spill file: {}", dir_, std::strerror(errno)));
    }
    at += static_cast<std::size_t>(n);
  }
  size_ += static_cast<std::int64_t>(bytes.size());
  return Status::Ok();
}

Status SpillFile::ReadAt(std::int64_t offset, std::size_t n, std::string& into) const {
  if (offset < 0 || offset + static_cast<std::int64_t>(n) > size_)
    return Status::Internal(
        fmt::format("spill read [{}, +{}) past its {} bytes", offset, n, size_));
  into.resize(n);
  std::size_t at = 0;
  while (at < n) {
    const ssize_t got = pread(fd_, into.data() + at, n - at,
                              static_cast<off_t>(offset + static_cast<std::int64_t>(at)));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      return Status::IoError(fmt::format("{}: spill file read: {}", dir_,
                                         got < 0 ? std::strerror(errno) : "short read"));
    at += static_cast<std::size_t>(got);
  }
  return Status::Ok();
}

}  // namespace tritonrl::eval
