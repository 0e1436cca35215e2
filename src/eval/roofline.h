// A physical lower bound on a kernel's time, for the plausibility flag of a
// speedup: a correct implementation must at least read its inputs and write
// its outputs once (bytes / memory bandwidth) and, where the task's FLOPs are
// known, do them (FLOPs / peak). A measured time below the floor, or a
// speedup above the configured cap where no floor is known, is flagged for
// review (never scored as an error by itself).
#pragma once

#include <optional>
#include <string>

namespace tritonrl::eval {

struct DevicePeaks {
  std::string name;        // "H200", ... ("" = unknown: only the cap applies)
  double bytes_per_s = 0;  // measured device-to-device copy bandwidth
  double fp32_flops = 0;   // non-tensor-core fp32 peak
  double half_flops = 0;   // dense bf16/fp16 tensor-core peak
};

// Peaks for a device model string (nvidia-smi's name); unknown devices get none.
DevicePeaks PeaksFor(const std::string& device_model);

struct WorkSize {
  double bytes = 0;             // input + output bytes of one call
  std::optional<double> flops;  // one call's FLOPs as the reference worker counted them
  bool half_precision = false;  // fp16/bf16 task: tensor-core peak
};

// Minimal time of one call in ms; nullopt when the device's peaks are unknown.
std::optional<double> RooflineFloorMs(const WorkSize& work, const DevicePeaks& peaks);

struct Plausibility {
  bool implausible = false;
  std::string why;
  std::optional<double> floor_ms;
};

// `slack` (< 1) leaves room for measurement error: flagged below slack * floor.
Plausibility CheckPlausibility(double candidate_ms, double speedup, const WorkSize& work,
                               const DevicePeaks& peaks, double speedup_cap, double slack = 0.9);

}  // namespace tritonrl::eval
