// Throughput of the engine's slice-by-slice output comparison (OutputComparison::Feed), the
// per-byte cost every candidate output pays in the engine (KernelBench's default sizes send
// 6.4 GB per trial). Prints: dtype, case, MiB compared, seconds, GB/s (best of 3).
//   compare_bench [MiB per case, default 512]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "eval/compare.h"

using tritonrl::eval::DType;
using tritonrl::eval::OutputComparison;
using tritonrl::eval::Tolerance;

namespace {

constexpr std::size_t kSlice = 4u << 20;  // the runner's slice size

std::uint16_t ToBFloat16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<std::uint16_t>(u >> 16);
}

// `bytes` of reference values and a candidate that differs by a tiny relative amount ("match")
// or by 1.0 in every 1000th element ("mismatch").
void Fill(DType dtype, std::size_t bytes, bool mismatch, std::string& ref, std::string& out) {
  ref.resize(bytes);
  out.resize(bytes);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  const std::size_t esize = dtype == DType::kFloat32 ? 4 : 2;
  for (std::size_t i = 0; i < bytes / esize; ++i) {
    const float b = normal(rng);
    float a = b * (1.f + 1e-6f);
    if (mismatch && i % 1000 == 0) a += 1.f;
    if (esize == 4) {
      std::memcpy(&ref[i * 4], &b, 4);
      std::memcpy(&out[i * 4], &a, 4);
    } else {
      const std::uint16_t hb = ToBFloat16(b), ha = ToBFloat16(a);
      std::memcpy(&ref[i * 2], &hb, 2);
      std::memcpy(&out[i * 2], &ha, 2);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 512;
  const std::size_t bytes = std::max<std::size_t>(1, mib) << 20;
  std::printf("%-9s %-9s %8s %9s %8s\n", "dtype", "case", "MiB", "seconds", "GB/s");
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    const std::size_t esize = dtype == DType::kFloat32 ? 4 : 2;
    const double t = dtype == DType::kFloat32 ? 1e-4 : 1e-2;  // KernelBench's fp32 / bf16
    const Tolerance tol{t, t, true};
    for (bool mismatch : {false, true}) {
      std::string ref, out;
      Fill(dtype, kSlice * 8, mismatch, ref, out);  // 32 MiB of data, fed round-robin
      double best = 1e30;
      for (int rep = 0; rep < 3; ++rep) {
        OutputComparison cmp(dtype, {static_cast<std::int64_t>(bytes / esize)}, dtype,
                             {static_cast<std::int64_t>(bytes / esize)}, tol);
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t at = 0; at < bytes; at += kSlice) {
          const std::size_t off = at % ref.size();
          cmp.Feed(std::string_view(out).substr(off, kSlice),
                   std::string_view(ref).substr(off, kSlice));
        }
        const auto r = cmp.Finish();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::min(best, s);
        if (r.ok == mismatch) {
          std::fprintf(stderr, "unexpected verdict %d for %s\n", r.ok,
                       mismatch ? "mismatch" : "match");
          return 1;
        }
      }
      std::printf("%-9s %-9s %8zu %9.3f %8.2f\n", dtype == DType::kFloat32 ? "float32" : "bfloat16",
                  mismatch ? "mismatch" : "match", mib, best, bytes / best / 1e9);
    }
  }
  return 0;
}
