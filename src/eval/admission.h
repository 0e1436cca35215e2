// Admission control: the pool starts a candidate worker only when its memory
// estimate fits beside the estimates of the workers already running, in host
// memory and (CUDA runs) device memory. A sample whose estimate exceeds a whole
// budget gets the outcome resource_exhausted instead of running; nothing kills
// the run. The budgets come from the engine (its own reading of /proc/meminfo
// and nvidia-smi), never from a worker. Thread-safe; nothing survives a crash.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "base/mutex.h"
#include "base/status.h"
#include "eval/types.h"

namespace tritonrl::eval {

struct MemoryNeed {
  std::uint64_t host = 0;
  std::uint64_t device = 0;
};

// What one worker of the runner holds besides tensors (interpreter, torch, Triton; with CUDA the
// context and host-side libraries).
inline constexpr std::uint64_t kWorkerBaseHostBytes = 768ull << 20;
inline constexpr std::uint64_t kWorkerBaseHostBytesCuda = 2ull << 30;
inline constexpr std::uint64_t kWorkerBaseDeviceBytes = 1ull << 30;

// A candidate of `ref`'s task: on the CPU its worker holds the largest trial's inputs and outputs,
// the previous trial's inputs (the storage-reuse check) and the forward's temporaries: 3x
// (inputs + outputs) on top of the base. On CUDA that lands in device memory and the host keeps
// the base plus two output slices in flight.
MemoryNeed EstimateCandidateMemory(const EngineConfig& config, const ReferenceResult& ref);
// A reference run, before anything about its task's sizes is known: the base only.
MemoryNeed EstimateReferenceMemory(const EngineConfig& config);

class MemoryAdmission {
 public:
  // 0: no limit on that side.
  MemoryAdmission(std::uint64_t host_budget, std::uint64_t device_budget)
      : host_budget_(host_budget), device_budget_(device_budget) {}

  // Returned by Admit; gives the reservation back when destroyed.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& o) noexcept : owner_(o.owner_), need_(o.need_), alone_(o.alone_) {
      o.owner_ = nullptr;
    }
    Ticket& operator=(Ticket&& o) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { Release(); }
    void Release();
    // Raises the reservation to at least `need` on each side, without waiting: the worker already
    // holds that memory (a reference admitted at its base reports its measured peak), so later
    // admissions must see it. May take the pool over its budget; no effect on an alone ticket.
    void GrowTo(MemoryNeed need);

   private:
    friend class MemoryAdmission;
    MemoryAdmission* owner_ = nullptr;
    MemoryNeed need_;
    bool alone_ = false;
  };

  // Waits until `need` fits beside the reservations held; Unavailable (with the numbers) when it
  // could not fit even alone.
  Result<Ticket> Admit(MemoryNeed need);
  // Waits until no other reservation is held and holds the whole pool until released: a worker
  // that ran out of GPU memory beside others is run again alone, so that how busy the GPU was
  // never decides its verdict. While it waits, no new Admit is granted (no starvation).
  Ticket AdmitAlone();

  std::uint64_t host_budget() const { return host_budget_; }
  std::uint64_t device_budget() const { return device_budget_; }

 private:
  void Give(MemoryNeed need, bool alone);
  void Take(MemoryNeed more);
  const std::uint64_t host_budget_, device_budget_;
  bool Fits(MemoryNeed need) const REQUIRES(mu_);
  base::Mutex mu_;
  base::CondVar freed_{&mu_};
  std::uint64_t host_held_ GUARDED_BY(mu_) = 0;
  std::uint64_t device_held_ GUARDED_BY(mu_) = 0;
  int alone_waiting_ GUARDED_BY(mu_) = 0;
  bool alone_held_ GUARDED_BY(mu_) = false;
};

// MemAvailable from /proc/meminfo, in bytes.
std::optional<std::uint64_t> HostAvailableBytes();
// Free memory of the first visible GPU as nvidia-smi reports it, in bytes.
std::optional<std::uint64_t> DeviceFreeBytes();
// The budgets of a run (0: unlimited on that side): the configured ones, else 90% of what is free
// when it starts (the rest is left to the engine, the page cache and whatever else runs on the
// host).
MemoryNeed RunBudgets(const EngineConfig& config);
// An admission over `budgets` less `reserved` (the run's idle pre-started workers,
// eval/worker_pool.h, which hold their memory outside any ticket); an unlimited side stays so.
MemoryAdmission MakeAdmission(MemoryNeed budgets, MemoryNeed reserved = {});
MemoryAdmission MakeAdmission(const EngineConfig& config);

}  // namespace tritonrl::eval
