// Peak memory and time of GRPO's head + log-softmax, forward and backward, with and
// without chunks (train/chunked_head.h), on random tensors of a real vocabulary:
//   head_memory ROWS VOCAB HIDDEN CHUNK [cpu|cuda]
// One configuration per process, so the process's peak resident set (CPU) or the
// allocator's peak (CUDA) is that configuration's. Prints one JSON line.
#include <ATen/ATen.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "train/chunked_head.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: head_memory ROWS VOCAB HIDDEN CHUNK [cpu|cuda]\n");
    return 2;
  }
  const int64_t N = std::atoll(argv[1]), V = std::atoll(argv[2]), H = std::atoll(argv[3]);
  const int64_t chunk = std::atoll(argv[4]);
  const std::string device = argc > 5 ? argv[5] : "cpu";
  const auto opts = at::TensorOptions()
                        .dtype(device == "cuda" ? at::kBFloat16 : at::kFloat)
                        .device(c10::Device(device));
  at::manual_seed(1);
  at::Tensor hidden = at::randn({N, H}, opts).requires_grad_(true);
  at::Tensor head = (at::randn({V, H}, opts) * 0.02).detach().requires_grad_(true);
  at::Tensor targets = at::randint(V, {N}, opts.dtype(at::kLong));
  at::Tensor adv = at::randn({N}, opts.dtype(at::kFloat));
  const auto t0 = std::chrono::steady_clock::now();
  at::Tensor entropy;
  at::Tensor lp = tritonrl::train::HeadLogProbs(hidden, head, targets, 0.9, chunk, &entropy);
  // A surrogate-like loss: not linear in the log-probs.
  ((lp - lp.detach()).exp() * adv).sum().neg().backward();
  const double grad_sum = hidden.grad().sum().item<double>() + head.grad().sum().item<double>();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf(
      "{\"rows\": %lld, \"vocab\": %lld, \"hidden\": %lld, \"chunk\": %lld, \"device\": \"%s\", "
      "\"seconds\": %.3f, \"peak_rss_mb\": %.1f, \"grad_sum\": %.6g}\n",
      static_cast<long long>(N), static_cast<long long>(V), static_cast<long long>(H),
      static_cast<long long>(chunk), device.c_str(), seconds, ru.ru_maxrss / 1024.0, grad_sum);
  return 0;
}
