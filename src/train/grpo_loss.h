// GRPO's clipped surrogate on token log-probabilities (libtorch; only
// src/train and its tests include it). Per response token t with advantage A,
// behaviour log-prob b (the sampler's) and current log-prob n:
//   ratio = exp(n - b)
//   term  = min(ratio * A, clip(ratio, 1 - clip_low, 1 + clip_high) * A)
//   loss  = (sum over tokens of (-term + kl_coef * k3)) / denominator
// with k3 = exp(r - n) - (r - n) - 1 against the frozen reference's log-prob r
// (Schulman's estimator of KL(current || reference)). The denominator is the
// number of loss tokens of the whole step (token-level averaging, DAPO), so
// micro-batches of one step add up to the step's loss. Pure; any thread.
#pragma once

#include <ATen/core/Tensor.h>

namespace tritonrl::train {

struct SurrogateOptions {
  double clip_low = 0.2, clip_high = 0.28;  // DAPO's asymmetric clip range
  double kl_coef = 0;                       // > 0: add the k3 KL term (needs ref_logp)
};

struct SurrogateResult {
  at::Tensor loss;       // scalar, differentiable through new_logp
  double clipped = 0;    // tokens whose gradient the clip removed
  double kl_sum = 0;     // sum of k3 (against ref_logp, or else against old_logp)
  double ratio_sum = 0;  // sum of the ratios (diagnostics)
};

// new_logp, old_logp, advantages, mask: [N] (mask 1 for loss tokens, 0 for
// masked ones). ref_logp undefined or [N]. denominator > 0.
SurrogateResult ClippedSurrogate(const at::Tensor& new_logp, const at::Tensor& old_logp,
                                 const at::Tensor& advantages, const at::Tensor& mask,
                                 const at::Tensor& ref_logp, const SurrogateOptions& options,
                                 double denominator);

}  // namespace tritonrl::train
