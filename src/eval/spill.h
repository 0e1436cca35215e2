// Reference outputs kept out of the engine's address space: first in an
// anonymous memory file (memfd) while the run's memory tier has room, then in
// an anonymous file in the engine's work folder (unlinked from the start, so it
// has no path a worker could open). Both descriptors are close-on-exec and no
// worker inherits them. The memory tier exists because a disk spill of
// KernelBench's 6-8 GB outputs ran at the disk's write speed and filled it.
// Written once, in order, by the pool thread that runs a task's reference;
// then read concurrently by the threads comparing that task's candidates with
// pread (no shared file offset, never mapped: a read costs only its buffer).
// Nothing survives a crash: the file system frees the space when the last
// descriptor closes.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace tritonrl::eval {

// The spilled bytes an engine's files may hold at once, over all of them (a run's own disk
// quota, beside the free-space reserve); shared by the files it is given to.
// For the memory tier, limit 0 turns the tier off, and an append also needs the host's
// MemAvailable to stay at or above keep_available after it.
struct SpillBudget {
  std::uint64_t limit = 0;  // 0: only the file system's free space limits
  std::atomic<std::uint64_t> used{0};
  std::uint64_t keep_available = 0;  // memory tier only
};

class SpillFile {
 public:
  // `reserve_bytes`: an append that would leave less free space than this on the folder's file
  // system fails with Unavailable (the sample gets resource_exhausted, the disk does not fill);
  // so does one that would take `budget` (may be null) past its limit. Appends go to memory
  // while `memory` (may be null) has room, and to the disk from the first one that does not fit
  // on (so the memory part is always the file's head).
  static Result<std::shared_ptr<SpillFile>> Create(const std::string& dir,
                                                   std::uint64_t reserve_bytes,
                                                   std::shared_ptr<SpillBudget> budget = nullptr,
                                                   std::shared_ptr<SpillBudget> memory = nullptr);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends at the end; only the writer thread, before any reader.
  Status Append(std::string_view bytes);
  std::int64_t size() const { return size_; }
  // Of size(), the bytes held in memory.
  std::int64_t memory_bytes() const { return memory_size_; }
  // Reads exactly `n` bytes at `offset` into `into` (resized); any thread.
  Status ReadAt(std::int64_t offset, std::size_t n, std::string& into) const;

 private:
  SpillFile(int fd, std::string dir, std::uint64_t reserve, std::shared_ptr<SpillBudget> budget,
            std::shared_ptr<SpillBudget> memory)
      : fd_(fd),
        dir_(std::move(dir)),
        reserve_(reserve),
        budget_(std::move(budget)),
        memory_(std::move(memory)) {}
  bool AppendToMemory(std::string_view bytes);
  Status AppendToDisk(std::string_view bytes);
  int fd_ = -1;
  int memory_fd_ = -1;  // made by the first append that fits in memory
  std::string dir_;
  std::uint64_t reserve_ = 0;
  std::shared_ptr<SpillBudget> budget_;
  std::shared_ptr<SpillBudget> memory_;
  std::int64_t size_ = 0;
  std::int64_t memory_size_ = 0;
};

}  // namespace tritonrl::eval
