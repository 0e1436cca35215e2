// The language-model head and its log-softmax over chunks of rows: the one
// home of the trainers' "hidden states -> log-probabilities" step. A head of
// Qwen3-8B's vocabulary (151,936) makes an fp32 [tokens, vocab] tensor of
// 2.4 GB per 4,096 tokens, and autograd through whole-batch logits keeps
// several of them (bf16 logits, their fp32 copy, the log-softmax, its
// gradient). Here such tensors exist one chunk of rows at a time.
//
//   SFT:  HeadNllSum       -sum log p(target); its loss is linear in that sum,
//                          so the gradients are computed in the forward pass
//                          and the backward pass only scales them.
//   GRPO: HeadLogProbs     log p(target) per row (and the entropy); its loss is
//                          not linear in them, so the backward pass runs the
//                          head's GEMM again, chunk by chunk.
//
// Both compute the head's GEMM in the hidden states' dtype and the softmax in
// fp32, as autograd's whole-batch path does (chunk <= 0 runs that path: the
// reference the tests compare against). Pure functions of their inputs; any
// thread. Only src/train and its tests include this header.
//
//   at::Tensor entropy;
//   at::Tensor lp = HeadLogProbs(hidden, model.lm_head, targets, temperature, 4096, &entropy);
//   loss_of(lp).backward();  // gradients reach hidden and the head, 4096 rows at a time
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace tritonrl::train {

// Sum over rows of -log softmax(hidden @ head^T)[target], fp32 scalar. With
// loss_chunk > 0 the [N, vocab] logits exist one chunk at a time: the forward
// also computes the gradients of that sum (softmax - onehot, through the head's
// two GEMMs; the fp32 head gradient accumulated over chunks) and the backward
// only scales them by the incoming scalar, so nothing is recomputed and no
// fp32 [N, vocab] tensor is kept. Exact for a loss linear in this sum (SFT's).
at::Tensor HeadNllSum(const at::Tensor& hidden, const at::Tensor& head, const at::Tensor& targets,
                      int64_t loss_chunk);

// log p(target) per row under softmax(hidden @ head^T / temperature), fp32 [N],
// differentiable in hidden and head (temperature <= 0 or 1: no scaling, as the
// sampler reports log-probs). entropy non-null: each row's entropy of that
// distribution, fp32 [N], detached. chunk > 0: at most `chunk` rows of logits
// exist at once, forward and backward; the backward pass recomputes each
// chunk's logits (one extra head GEMM per chunk) and accumulates the head's
// gradient in fp32 (handed on in the head's dtype). chunk <= 0: autograd
// through whole-batch fp32 logits.
at::Tensor HeadLogProbs(const at::Tensor& hidden, const at::Tensor& head, const at::Tensor& targets,
                        double temperature, int64_t chunk, at::Tensor* entropy = nullptr);

}  // namespace tritonrl::train
