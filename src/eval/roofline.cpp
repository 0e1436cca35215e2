#include "eval/roofline.h"

#include <algorithm>

#include <fmt/format.h>

namespace tritonrl::eval {

DevicePeaks PeaksFor(const std::string& device_model) {
  DevicePeaks p;
  // H200 SXM: copy bandwidth measured on our machine (4.27 TB/s); dense bf16
  // ~790 TFLOP/s and fp32 ~60 TFLOP/s from the datasheet class of the part.
  if (device_model.find("H200") != std::string::npos) {
    p = {"H200", 4.27e12, 60e12, 790e12};
  } else if (device_model.find("H100") != std::string::npos) {
    p = {"H100", 3.0e12, 60e12, 790e12};
  }
  return p;
}

std::optional<double> RooflineFloorMs(const WorkSize& work, const DevicePeaks& peaks) {
  if (peaks.bytes_per_s <= 0) return std::nullopt;
  double seconds = work.bytes / peaks.bytes_per_s;
  const double peak = work.half_precision ? peaks.half_flops : peaks.fp32_flops;
  // fp32 matmuls may run on TF32 tensor cores: the half peak bounds them too.
  const double best_peak = std::max(peak, peaks.half_flops);
  if (work.flops && best_peak > 0) seconds = std::max(seconds, *work.flops / best_peak);
  return seconds * 1e3;
}

Plausibility CheckPlausibility(double candidate_ms, double speedup, const WorkSize& work,
                               const DevicePeaks& peaks, double speedup_cap, double slack) {
  Plausibility p;
  p.floor_ms = RooflineFloorMs(work, peaks);
  if (p.floor_ms && candidate_ms < slack * *p.floor_ms) {
    p.implausible = true;
    p.why =
        fmt::format("{:.4f} ms is below the {} roofline floor of {:.4f} ms ({:.0f} bytes moved{})",
                    candidate_ms, peaks.name, *p.floor_ms, work.bytes,
                    work.flops ? fmt::format(", {:.3g} FLOPs", *work.flops) : "");
  } else if (speedup_cap > 0 && speedup > speedup_cap) {
    p.implausible = true;
    p.why = fmt::format("speedup {:.2f}x exceeds the review cap of {:.1f}x", speedup, speedup_cap);
  }
  return p;
}

}  // namespace tritonrl::eval
