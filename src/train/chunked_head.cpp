#include "train/chunked_head.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>

namespace tritonrl::train {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The sampler reports log-probs under softmax(logits / temperature), with no
// division at temperature 1 (or 0, greedy); the trainers score the same way.
bool Scaled(double temperature) {
  return temperature > 0 && temperature != 1.0;
}

// One chunk's fp32 log-softmax of hidden @ head^T / temperature: the GEMM in
// the hidden states' dtype, the rest in fp32 (the whole-batch path's order).
at::Tensor ChunkLogSoftmax(const at::Tensor& hc, const at::Tensor& head, double temperature) {
  at::Tensor logits = at::linear(hc, head);
  if (!Scaled(temperature)) return at::log_softmax(logits, -1, at::kFloat);
  return at::log_softmax(logits.to(at::kFloat).div_(temperature), -1);
}

// Entropy of each row of a log-softmax, -sum p log p, fp32 (one [rows, vocab] temporary).
at::Tensor RowEntropy(const at::Tensor& logp) {
  return logp.exp().mul_(logp).sum(-1).neg();
}

// The head's two GEMMs for rows [s, s + n) given dz, the gradient with respect to that chunk's
// logits (in the hidden states' dtype): d hidden of those rows into dh (when asked), and
// dz^T @ hidden added to the fp32 dw (when asked).
void HeadChunkBackward(const at::Tensor& dz, const at::Tensor& hc, const at::Tensor& head,
                       int64_t s, at::Tensor* dh, at::Tensor* dw) {
  if (dh) {
    at::Tensor out = dh->narrow(0, s, dz.size(0));
    at::mm_out(out, dz, head);
  }
  if (dw) {
    if (head.scalar_type() == at::kFloat) {
      dw->addmm_(dz.t(), hc);
    } else {
      dw->add_(at::mm(dz.t(), hc));
    }
  }
}

// -sum log p(target) over the rows of `hidden`, a chunk of rows at a time;
// with dh / dw set, also d(that sum)/d hidden into *dh (hidden's dtype) and
// d/d head into *dw (fp32, accumulated over the chunks).
at::Tensor ChunkedNll(const at::Tensor& hidden, const at::Tensor& head, const at::Tensor& targets,
                      int64_t chunk, at::Tensor* dh, at::Tensor* dw) {
  const int64_t N = hidden.size(0);
  at::Tensor nll = at::zeros({}, hidden.options().dtype(at::kFloat));
  if (dh) *dh = at::empty_like(hidden);
  if (dw) *dw = at::zeros(head.sizes(), head.options().dtype(at::kFloat));
  for (int64_t s = 0; s < N; s += chunk) {
    const int64_t n = std::min(chunk, N - s);
    at::Tensor hc = hidden.narrow(0, s, n);
    at::Tensor tc = targets.narrow(0, s, n).unsqueeze(1);
    at::Tensor logp = ChunkLogSoftmax(hc, head, 1.0);
    at::Tensor lpt = logp.gather(1, tc);
    nll.sub_(lpt.sum());
    if (!dh && !dw) continue;
    // d(-log p_t)/d logits = softmax - onehot(t), rounded to the compute dtype
    // as autograd's path rounds it; the target column from the fp32 log-prob,
    // so p_t - 1 is not the difference of an already rounded p_t.
    at::Tensor g = at::empty(logp.sizes(), hidden.options());
    at::exp_out(g, logp);
    logp.reset();  // the fp32 chunk is the largest tensor: free it before the GEMMs
    g.scatter_(1, tc, lpt.exp().sub_(1.0).to(g.scalar_type()));
    HeadChunkBackward(g, hc, head, s, dh, dw);
  }
  return nll;
}

// The gradients are computed in the forward pass (the loss is linear in the
// sum, so the backward pass only scales them): no [N, vocab] tensor outlives
// its chunk and the head's GEMM is not run again.
struct FusedHeadNll : torch::autograd::Function<FusedHeadNll> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& hidden, const at::Tensor& head,
                            const at::Tensor& targets, int64_t chunk) {
    at::Tensor dh, dw;
    at::Tensor nll =
        ChunkedNll(hidden, head, targets, chunk, hidden.requires_grad() ? &dh : nullptr,
                   head.requires_grad() ? &dw : nullptr);
    ctx->saved_data["dh"] = dh;
    ctx->saved_data["dw"] = dw;
    ctx->saved_data["head_dtype"] = static_cast<int64_t>(head.scalar_type());
    return nll;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_out) {
    at::Tensor dh = ctx->saved_data["dh"].toTensor();
    at::Tensor dw = ctx->saved_data["dw"].toTensor();
    const auto head_dtype = static_cast<c10::ScalarType>(ctx->saved_data["head_dtype"].toInt());
    ctx->saved_data.clear();                // the gradients are handed on: keep no second reference
    const at::Tensor& scale = grad_out[0];  // fp32 scalar on the device: no host sync
    if (dh.defined()) dh.mul_(scale.to(dh.scalar_type()));
    if (dw.defined()) dw = dw.mul_(scale).to(head_dtype);
    return {dh, dw, at::Tensor(), at::Tensor()};
  }
};

// log p(target) per row (and the entropy), a chunk of rows at a time, no graph.
at::Tensor ChunkedLogProbs(const at::Tensor& hidden, const at::Tensor& head,
                           const at::Tensor& targets, double temperature, int64_t chunk,
                           at::Tensor* entropy) {
  const int64_t N = hidden.size(0);
  const auto f32 = hidden.options().dtype(at::kFloat);
  at::Tensor out = at::empty({N}, f32);
  if (entropy) *entropy = at::empty({N}, f32);
  for (int64_t s = 0; s < N; s += chunk) {
    const int64_t n = std::min(chunk, N - s);
    at::Tensor logp = ChunkLogSoftmax(hidden.narrow(0, s, n), head, temperature);
    out.narrow(0, s, n).copy_(logp.gather(1, targets.narrow(0, s, n).unsqueeze(1)).squeeze(1));
    if (entropy) entropy->narrow(0, s, n).copy_(RowEntropy(logp));
  }
  return out;
}

// GRPO's loss is not linear in the log-probs, so the backward pass needs the
// incoming per-row gradient g: it recomputes each chunk's log-softmax and
// sends g_t * (onehot(t) - softmax) / temperature through the head's GEMMs
// (the fp32 value rounded once to the compute dtype, as autograd's path).
// Keeping the softmax from the forward pass instead would keep the
// [N, vocab] tensor this exists to avoid.
struct ChunkedHeadLogProbs : torch::autograd::Function<ChunkedHeadLogProbs> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& hidden,
                               const at::Tensor& head, const at::Tensor& targets,
                               double temperature, int64_t chunk) {
    at::Tensor entropy;
    at::Tensor lp = ChunkedLogProbs(hidden, head, targets, temperature, chunk, &entropy);
    ctx->save_for_backward({hidden, head});
    ctx->saved_data["targets"] = targets;
    ctx->saved_data["temperature"] = temperature;
    ctx->saved_data["chunk"] = chunk;
    ctx->mark_non_differentiable({entropy});
    return {lp, entropy};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_out) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& hidden = saved[0];
    const at::Tensor& head = saved[1];
    const at::Tensor targets = ctx->saved_data["targets"].toTensor();
    const double temperature = ctx->saved_data["temperature"].toDouble();
    const int64_t chunk = ctx->saved_data["chunk"].toInt();
    const bool need_h = ctx->needs_input_grad(0), need_w = ctx->needs_input_grad(1);
    at::Tensor g = grad_out[0];
    if (!g.defined()) g = at::zeros({hidden.size(0)}, hidden.options().dtype(at::kFloat));
    if (Scaled(temperature)) g = g / temperature;
    at::Tensor dh = need_h ? at::empty_like(hidden) : at::Tensor();
    at::Tensor dw =
        need_w ? at::zeros(head.sizes(), head.options().dtype(at::kFloat)) : at::Tensor();
    const int64_t N = hidden.size(0);
    for (int64_t s = 0; s < N; s += chunk) {
      const int64_t n = std::min(chunk, N - s);
      at::Tensor hc = hidden.narrow(0, s, n);
      at::Tensor gc = g.narrow(0, s, n).unsqueeze(1);
      // d(g_t log p_t)/d logits = g_t (onehot(t) - p), in fp32 in place of the log-softmax.
      at::Tensor dz = ChunkLogSoftmax(hc, head, temperature).exp_().mul_(gc.neg());
      dz.scatter_add_(1, targets.narrow(0, s, n).unsqueeze(1), gc);
      HeadChunkBackward(dz.to(hidden.scalar_type()), hc, head, s, need_h ? &dh : nullptr,
                        need_w ? &dw : nullptr);
    }
    if (need_w) dw = dw.to(head.scalar_type());
    return {dh, dw, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor HeadNllSum(const at::Tensor& hidden, const at::Tensor& head, const at::Tensor& targets,
                      int64_t loss_chunk) {
  if (loss_chunk <= 0) {
    at::Tensor logits = at::linear(hidden, head).to(at::kFloat);
    return at::log_softmax(logits, -1).gather(1, targets.unsqueeze(1)).sum().neg();
  }
  const bool grad = at::GradMode::is_enabled() && (hidden.requires_grad() || head.requires_grad());
  if (!grad) return ChunkedNll(hidden, head, targets, loss_chunk, nullptr, nullptr);
  return FusedHeadNll::apply(hidden, head, targets, loss_chunk);
}

at::Tensor HeadLogProbs(const at::Tensor& hidden, const at::Tensor& head, const at::Tensor& targets,
                        double temperature, int64_t chunk, at::Tensor* entropy) {
  if (chunk <= 0) {
    at::Tensor logits = at::linear(hidden, head).to(at::kFloat);
    if (Scaled(temperature)) logits = logits / temperature;
    at::Tensor logp = at::log_softmax(logits, -1);
    if (entropy) {
      at::NoGradGuard no_grad;
      *entropy = RowEntropy(logp.detach());
    }
    return logp.gather(1, targets.unsqueeze(1)).squeeze(1);
  }
  const bool grad = at::GradMode::is_enabled() && (hidden.requires_grad() || head.requires_grad());
  if (!grad) return ChunkedLogProbs(hidden, head, targets, temperature, chunk, entropy);
  variable_list out = ChunkedHeadLogProbs::apply(hidden, head, targets, temperature, chunk);
  if (entropy) *entropy = out[1];
  return out[0];
}

}  // namespace tritonrl::train
