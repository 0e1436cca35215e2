#include "train/grpo_loss.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

namespace tritonrl::train {

SurrogateResult ClippedSurrogate(const at::Tensor& new_logp, const at::Tensor& old_logp,
                                 const at::Tensor& advantages, const at::Tensor& mask,
                                 const at::Tensor& ref_logp, const SurrogateOptions& o,
                                 double denominator) {
  const at::Tensor ratio = (new_logp - old_logp).exp();
  const at::Tensor unclipped = ratio * advantages;
  const at::Tensor clipped = ratio.clamp(1.0 - o.clip_low, 1.0 + o.clip_high) * advantages;
  at::Tensor per_token = -at::minimum(unclipped, clipped);
  const bool with_kl = o.kl_coef > 0 && ref_logp.defined();
  at::Tensor k3;
  {
    // k3 of the current policy against the reference (or, for the metric alone, the behaviour).
    const at::Tensor other = with_kl ? ref_logp : old_logp;
    const at::Tensor d = other - new_logp;
    k3 = d.exp() - d - 1.0;
  }
  if (with_kl) per_token = per_token + o.kl_coef * k3;
  SurrogateResult r;
  r.loss = (per_token * mask).sum() / denominator;
  at::NoGradGuard no_grad;
  const at::Tensor ratio_d = ratio.detach();
  // The clip removed the gradient where the clipped branch is the smaller one
  // and the ratio lies outside the range (A > 0 above it, A < 0 below it).
  const at::Tensor cut = ((ratio_d > 1.0 + o.clip_high) & (advantages > 0)) |
                         ((ratio_d < 1.0 - o.clip_low) & (advantages < 0));
  r.clipped = (cut.to(at::kDouble) * mask).sum().item<double>();
  r.kl_sum = (k3.detach().to(at::kDouble) * mask).sum().item<double>();
  r.ratio_sum = (ratio_d.to(at::kDouble) * mask).sum().item<double>();
  return r;
}

}  // namespace tritonrl::train
