// Qwen3 decoder on libtorch tensors: plain weight structs and free functions.
// Embeddings, RMSNorm, rotary embeddings, grouped-query attention with q/k
// RMSNorm, SwiGLU MLP, tied or untied head. q/k/v and gate/up projections are
// stored fused (one GEMM each); checkpoints use Hugging Face's separate names.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>
#include <vector>

#include "base/status.h"
#include "model/lora_config.h"
#include "model/qwen3_config.h"

namespace tritonrl::model {

struct Qwen3Layer {
  at::Tensor input_norm;    // [hidden]
  at::Tensor qkv_proj;      // [(heads + 2 kv_heads) * head_dim, hidden]
  at::Tensor qkv_bias;      // undefined unless attention_bias
  at::Tensor o_proj;        // [hidden, heads * head_dim]
  at::Tensor o_bias;        // undefined unless attention_bias
  at::Tensor q_norm;        // [head_dim]
  at::Tensor k_norm;        // [head_dim]
  at::Tensor qk_norm;       // [heads + kv_heads, head_dim]: q_norm per query head, then k_norm
                            // per kv head (decode normalises q and k in one call)
  at::Tensor post_norm;     // [hidden]
  at::Tensor gate_up_proj;  // [2 * intermediate, hidden]
  at::Tensor down_proj;     // [hidden, intermediate]
  LoraLayer lora;           // adapters by LoraTarget (model/lora.h); undefined when not targeted
};

struct Qwen3Model {
  Qwen3Config config;
  at::Tensor embed;  // [vocab, hidden]
  std::vector<Qwen3Layer> layers;
  at::Tensor final_norm;  // [hidden]
  at::Tensor lm_head;     // [vocab, hidden]; the same tensor as embed when tied
  // [max_positions, head_dim], model dtype. rope_sin_swapped[p] = cat(sin[p][h:], -sin[p][:h])
  // (h = head_dim / 2): x * sin_swapped holds both halves of rotate_half(x) * sin, swapped.
  at::Tensor rope_cos, rope_sin, rope_sin_swapped;
  c10::Device device = c10::Device(c10::kCPU);
  c10::ScalarType dtype = c10::kFloat;
  LoraConfig lora;  // r == 0: no adapters (model/lora.h)

  int64_t max_positions() const { return rope_cos.size(0); }
};

struct ModelOptions {
  c10::Device device = c10::Device(c10::kCPU);
  c10::ScalarType dtype = c10::kFloat;  // kFloat, kBFloat16 or kHalf
  int64_t max_positions = 0;            // rotary table length; 0: min(config, 32768)
};

// Parses "cpu", "cuda", "cuda:1" and "fp32"/"float32", "bf16"/"bfloat16", "fp16"/"float16".
Result<c10::Device> ParseDevice(const std::string& text);
Result<c10::ScalarType> ParseModelDType(const std::string& text);

// Reads DIR/config.json and the safetensors checkpoint in DIR. Errors list every
// missing, unexpected or mis-shaped tensor by its Hugging Face name. A LoRA adapter
// directory is read by LoadQwen3 (model/lora.h): base plus adapters, unmerged.
Result<Qwen3Model> LoadQwen3Checkpoint(const std::string& dir, const ModelOptions& options);
// Random weights (normal, std 0.02; norms near 1) drawn on the CPU from `seed`,
// so the same seed gives the same model on every device.
Qwen3Model RandomQwen3(const Qwen3Config& config, uint64_t seed, const ModelOptions& options);
// Writes DIR/config.json and DIR/model.safetensors (Hugging Face names, model dtype).
Status SaveQwen3(const Qwen3Model& model, const std::string& dir);

// KV cache: per layer one K and one V tensor of [batch, kv_heads, capacity, head_dim]. One
// tensor per layer (not one [layers, ...] tensor) so that generation can regrow or compact it
// a layer at a time: only one layer's old and new copies exist at once.
struct KvCache {
  std::vector<at::Tensor> k, v;
  int64_t capacity() const { return k.empty() ? 0 : k[0].size(2); }
  int64_t batch() const { return k.empty() ? 0 : k[0].size(0); }
};
// Slots [0, filled) are left uninitialised for the caller to write (a prefill); the others are
// zeroed, because masked-out slots inside an attention window are still multiplied (0 * garbage
// could be NaN).
KvCache AllocateKvCache(const Qwen3Model& model, int64_t batch, int64_t capacity,
                        int64_t filled = 0);

struct ForwardArgs {
  at::Tensor ids;        // [B, T] int64
  at::Tensor positions;  // [B, T] int64 rotary positions
  // [B, 1, T, L] bool: may query t attend key slot j. Without a cache L = T;
  // with a cache L = attend_len (slots [0, attend_len) of the cache).
  at::Tensor mask;
  // Unpadded rows and no earlier cache contents: plain causal attention over
  // the T new positions (no mask, so SDPA can pick its flash kernel); `mask`
  // is ignored and the keys/values go to cache slots [0, T).
  bool causal = false;
  KvCache* cache = nullptr;  // if set, the T new keys/values are written at `slots`
  at::Tensor slots;          // [T] int64 cache slots (same for every row)
  int64_t attend_len = 0;
  bool last_only = false;  // logits of the last position only: [B, V] instead of [B, T, V]
  // Training: the final-normed hidden states [B, T, hidden] (model dtype) instead
  // of logits, so a loss can apply the head to the positions it scores only.
  bool hidden_only = false;
  // Training: recompute each layer's activations in the backward pass instead
  // of keeping them (causal, cache-free forwards that record gradients).
  bool checkpoint_layers = false;
  // Training speed options for T > 1 (issue 19; A/B-measured by bench/train/sft_bench.sh).
  // fused_norm: at::rms_norm's fused kernel for every RMSNorm (one pass forward and backward on
  // the GPU instead of ~7 fp32 ops each way; x * rstd * w rounded once instead of twice, as the
  // decode step already does). fused_proj: one q/k/v GEMM and one gate/up GEMM over the fused
  // weights (other summation blocking than the reference's separate GEMMs, so not bit-equal).
  bool fused_norm = false;
  bool fused_proj = false;
  // rope_roll: rotary embedding as x * cos + roll(x * sin_swapped) (bit-identical values,
  // gradients up to reduction order; a cheaper backward pass than in-place adds into halves).
  bool rope_roll = false;
  // Training: LoRA dropout (the model's lora.dropout) on the adapters' input, drawn from the
  // device's default generator.
  bool lora_dropout = false;
};

// True when a forward of `model` records an autograd graph (grad mode on and
// its weights require gradients): it then runs out of place, same values.
bool RecordsGradients(const Qwen3Model& model);

// fp32 logits. Inputs of more than one position follow the reference
// implementation's operations and rounding points exactly (separate q/k/v and
// gate/up GEMMs, RMSNorm rounded before the weight multiply, SDPA); a decode
// step (T == 1) uses fused kernels instead (see docs/model.md, "Numerics").
at::Tensor Forward(const Qwen3Model& model, const ForwardArgs& args);

// Full causal forward over right-aligned rows without a cache (reference path
// for tests): ids [B, T], pad [B] = number of leading padding tokens per row.
at::Tensor ForwardNoCache(const Qwen3Model& model, const at::Tensor& ids, const at::Tensor& pad);

// Mask for left-padded rows: query slot i (given per query by `query_slots` [T])
// sees key slots j with pad[b] <= j <= i; a padding query sees itself, so no row
// of the softmax is empty. Returns [B, 1, T, L] bool on pad's device.
at::Tensor LeftPaddedCausalMask(const at::Tensor& pad, const at::Tensor& query_slots, int64_t L);

}  // namespace tritonrl::model
