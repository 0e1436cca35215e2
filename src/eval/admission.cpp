#include "eval/admission.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

namespace tritonrl::eval {

MemoryNeed EstimateCandidateMemory(const EngineConfig& cfg, const ReferenceResult& ref) {
  const auto tensors = static_cast<std::uint64_t>(ref.max_input_bytes) +
                       static_cast<std::uint64_t>(ref.max_output_bytes);
  if (cfg.device == "cpu") return {kWorkerBaseHostBytes + 3 * tensors, 0};
  // The reference's worker ran the same trials through the same runner: its measured peak and a
  // quarter more, but never less than the runner's own copies (inputs, their copy, outputs).
  const auto peak = static_cast<std::uint64_t>(std::max<std::int64_t>(0, ref.peak_device_bytes));
  const std::uint64_t device =
      peak > 0 ? std::max(peak + peak / 4, 2 * static_cast<std::uint64_t>(ref.max_input_bytes) +
                                               static_cast<std::uint64_t>(ref.max_output_bytes))
               : 3 * tensors;
  return {kWorkerBaseHostBytesCuda + 2 * FrameLimits{}.max_payload,
          kWorkerBaseDeviceBytes + device};
}

MemoryNeed EstimateReferenceMemory(const EngineConfig& cfg) {
  if (cfg.device == "cpu") return {kWorkerBaseHostBytes, 0};
  return {kWorkerBaseHostBytesCuda, kWorkerBaseDeviceBytes};
}

MemoryAdmission::Ticket& MemoryAdmission::Ticket::operator=(Ticket&& o) noexcept {
  if (this != &o) {
    Release();
    owner_ = o.owner_;
    need_ = o.need_;
    alone_ = o.alone_;
    o.owner_ = nullptr;
  }
  return *this;
}

void MemoryAdmission::Ticket::Release() {
  if (owner_ != nullptr) owner_->Give(need_, alone_);
  owner_ = nullptr;
}

void MemoryAdmission::Ticket::GrowTo(MemoryNeed need) {
  if (owner_ == nullptr || alone_) return;
  const MemoryNeed more{need.host > need_.host ? need.host - need_.host : 0,
                        need.device > need_.device ? need.device - need_.device : 0};
  if (more.host == 0 && more.device == 0) return;
  owner_->Take(more);
  need_.host += more.host;
  need_.device += more.device;
}

void MemoryAdmission::Take(MemoryNeed more) {
  base::MutexLock lock(&mu_);
  host_held_ += more.host;
  device_held_ += more.device;
}

// Nobody waits to run alone or runs alone, and the need fits beside what is held.
bool MemoryAdmission::Fits(MemoryNeed need) const {
  const auto over = [](std::uint64_t need_bytes, std::uint64_t budget) {
    return budget != 0 && need_bytes > budget;
  };
  return alone_waiting_ == 0 && !alone_held_ && !over(host_held_ + need.host, host_budget_) &&
         !over(device_held_ + need.device, device_budget_);
}

Result<MemoryAdmission::Ticket> MemoryAdmission::Admit(MemoryNeed need) {
  const auto over = [](std::uint64_t need_bytes, std::uint64_t budget) {
    return budget != 0 && need_bytes > budget;
  };
  if (over(need.host, host_budget_) || over(need.device, device_budget_)) {
    return Status::Unavailable(fmt::format(
        "the sample needs an estimated {} MiB of host and {} MiB of device memory; the run's "
        "budgets are {} MiB and {} MiB (0: unlimited)",
        need.host >> 20, need.device >> 20, host_budget_ >> 20, device_budget_ >> 20));
  }
  base::MutexLock lock(&mu_);
  while (!Fits(need)) freed_.Wait();
  host_held_ += need.host;
  device_held_ += need.device;
  Ticket t;
  t.owner_ = this;
  t.need_ = need;
  return t;
}

MemoryAdmission::Ticket MemoryAdmission::AdmitAlone() {
  base::MutexLock lock(&mu_);
  ++alone_waiting_;
  while (alone_held_ || host_held_ != 0 || device_held_ != 0) freed_.Wait();
  --alone_waiting_;
  alone_held_ = true;
  Ticket t;
  t.owner_ = this;
  t.alone_ = true;
  return t;
}

void MemoryAdmission::Give(MemoryNeed need, bool alone) {
  {
    base::MutexLock lock(&mu_);
    host_held_ -= need.host;
    device_held_ -= need.device;
    if (alone) alone_held_ = false;
  }
  freed_.SignalAll();
}

std::optional<std::uint64_t> HostAvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> DeviceFreeBytes() {
  std::string index = "0";
  if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES"); vis && *vis) {
    index = std::string(vis).substr(0, std::string(vis).find(','));
    for (char c : index) {  // an index or a GPU UUID; nothing a shell would interpret
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return std::nullopt;
    }
  }
  const std::string cmd = fmt::format(
      "nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits -i {} 2>/dev/null", index);
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return std::nullopt;
  char line[128] = {};
  const bool got = std::fgets(line, sizeof line, p) != nullptr;
  pclose(p);
  if (!got) return std::nullopt;
  char* end = nullptr;
  const unsigned long long mib = std::strtoull(line, &end, 10);
  if (end == line) return std::nullopt;
  return static_cast<std::uint64_t>(mib) << 20;
}

MemoryNeed RunBudgets(const EngineConfig& cfg) {
  std::uint64_t host = cfg.host_memory_budget, device = cfg.device_memory_budget;
  if (host == 0) {
    host = HostAvailableBytes().value_or(0) / 10 * 9;
    // The memory tier of the spilled reference outputs takes its share of the same memory.
    const std::uint64_t spills = cfg.memory_spill_budget ? cfg.memory_spill_budget->limit : 0;
    host = host > spills ? host - spills : 0;
  }
  if (device == 0 && cfg.device != "cpu") device = DeviceFreeBytes().value_or(0) / 10 * 9;
  return {host, device};
}

MemoryAdmission MakeAdmission(MemoryNeed budgets, MemoryNeed reserved) {
  // At least a byte left: 0 would read as unlimited.
  const auto less = [](std::uint64_t budget, std::uint64_t minus) -> std::uint64_t {
    return budget == 0 ? 0 : budget > minus ? budget - minus : 1;
  };
  return MemoryAdmission(less(budgets.host, reserved.host), less(budgets.device, reserved.device));
}

MemoryAdmission MakeAdmission(const EngineConfig& cfg) {
  return MakeAdmission(RunBudgets(cfg));
}

}  // namespace tritonrl::eval
