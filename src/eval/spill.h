// Reference outputs kept out of the engine's memory: an anonymous file in the
// engine's work folder (unlinked from the start, so it has no path a worker
// could open; the descriptor is close-on-exec and no worker inherits it).
// Written once, in order, by the pool thread that runs a task's reference;
// then read concurrently by the threads comparing that task's candidates with
// pread (no shared file offset, never mapped: a read costs only its buffer).
// Nothing survives a crash: the file system frees the space when the last
// descriptor closes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace tritonrl::eval {

class SpillFile {
 public:
  // `reserve_bytes`: an append that would leave less free space than this on the folder's file
  // system fails with Unavailable (the sample gets resource_exhausted, the disk does not fill).
  static Result<std::shared_ptr<SpillFile>> Create(const std::string& dir,
                                                   std::uint64_t reserve_bytes);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends at the end; only the writer thread, before any reader.
  Status Append(std::string_view bytes);
  std::int64_t size() const { return size_; }
  // Reads exactly `n` bytes at `offset` into `into` (resized); any thread.
  Status ReadAt(std::int64_t offset, std::size_t n, std::string& into) const;

 private:
  SpillFile(int fd, std::string dir, std::uint64_t reserve)
      : fd_(fd), dir_(std::move(dir)), reserve_(reserve) {}
  int fd_ = -1;
  std::string dir_;
  std::uint64_t reserve_ = 0;
  std::int64_t size_ = 0;
};

}  // namespace tritonrl::eval
