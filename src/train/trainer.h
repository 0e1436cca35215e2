// Trainer pieces on libtorch, shared by SFT and (later) GRPO: fp32 master
// weights of a Qwen3 model and their compute-dtype view, token log-probs and
// the masked loss through the model module's one Forward, AdamW, the cosine
// schedule, gradient clipping, and training checkpoints (Hugging Face model
// files plus optimizer and trainer state). Only src/train includes this
// header (it carries libtorch types); others use train/sft.h. One training
// loop per process, driven from one thread. A checkpoint directory is
// complete or absent: it is written under a temporary name and renamed.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "base/status.h"
#include "model/end_of_turn.h"
#include "model/hf_files.h"
#include "model/qwen3.h"
#include "model/tokenizer.h"
#include "train/chunked_head.h"

namespace tritonrl::train {

struct Param {
  std::string name;   // our fused names, e.g. layers.3.qkv_proj
  at::Tensor value;   // fp32 leaf, requires_grad
  bool decay = true;  // false for norm weights and biases (1-D)
};

struct Trainable {
  model::Qwen3Model master;                         // fp32 leaves (lm_head aliases embed when tied)
  std::vector<Param> params;                        // each trained tensor once, in a fixed order
  c10::ScalarType compute = c10::kFloat;            // dtype of the forward/backward
  at::Tensor rope_cos, rope_sin, rope_sin_swapped;  // compute-dtype rotary tables
  // LoRA (master.lora.enabled()): the base weights are frozen in the compute dtype, the
  // params are the adapters (fp32 leaves, "layers.L.TARGET.lora_A" / "lora_B"), and the
  // checkpoint references the base by this directory (PEFT's base_model_name_or_path).
  std::string lora_base;
};

// Takes an fp32 model (any device) and makes its tensors trainable leaves.
Trainable MakeTrainable(model::Qwen3Model fp32_model, c10::ScalarType compute);
// Takes a model with LoRA adapters (model::AddLoraAdapters or a loaded adapter): the base
// weights become frozen tensors of the compute dtype (no gradient, no optimizer state), the
// adapters fp32 leaves that require gradients; `base_dir` is the base's directory.
Trainable MakeLoraTrainable(model::Qwen3Model model, c10::ScalarType compute, std::string base_dir);
// The model the forward runs: each master tensor cast to the compute dtype
// (differentiable: gradients reach the fp32 masters), or the masters
// themselves when compute is fp32. Also usable for sampling under NoGradGuard.
model::Qwen3Model ComputeView(const Trainable& t);

// A right-padded batch: causal attention never lets a real position see the
// padding after it, so no mask is needed (SDPA keeps its flash kernel).
struct TokenBatch {
  at::Tensor ids;      // [B, T] int64
  at::Tensor targets;  // [N] int64: the token predicted at each scored position
  at::Tensor rows;     // [N] int64: flat index b * T + t of the position predicting it
  int64_t real_tokens = 0;
};

// Scored positions: for each row, the positions t in [from[b], to[b]) predict ids[b][t + 1].
TokenBatch MakeBatch(const std::vector<std::vector<int32_t>>& rows,
                     const std::vector<int64_t>& score_from, c10::Device device);

// log p(target) at each scored position, fp32 [N]: hidden states of the final
// norm, the head applied to the scored positions only. temperature != 1: under
// softmax(logits / temperature), as the sampler reports its log-probs (GRPO).
// entropy non-null: receives each position's entropy of that distribution,
// fp32 [N], detached. chunk > 0: the head and the log-softmax over chunks of
// that many scored positions, forward and backward (HeadLogProbs: no fp32
// [N, vocab] tensor); 0: whole-batch logits.
at::Tensor ScoredLogProbs(const model::Qwen3Model& model, const TokenBatch& batch,
                          bool checkpoint_layers = false, double temperature = 1.0,
                          at::Tensor* entropy = nullptr, int64_t chunk = 0);

// How the SFT loss is computed (issue 19's speed options; none changes what is
// optimised, only rounding and memory).
struct LossKernels {
  bool checkpoint_layers = false;
  bool fused_norm = false, fused_proj = false, rope_roll = false;  // model::ForwardArgs'
  // > 0: the head and the cross-entropy run fused over chunks of this many
  // scored rows (HeadNllSum); 0: ScoredLogProbs' whole-batch fp32 logits.
  int64_t loss_chunk = 0;
  bool lora_dropout = false;  // training: the model's LoRA dropout (model::ForwardArgs')
};

// The final-normed hidden states of the scored positions, [N, hidden] (compute dtype).
at::Tensor ScoredHidden(const model::Qwen3Model& model, const TokenBatch& batch,
                        const LossKernels& k);
// The head and its loss over these hidden states: HeadNllSum (SFT) and HeadLogProbs (GRPO),
// train/chunked_head.h.

struct AdamWOptions {
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8, weight_decay = 0.1;
  // at::_fused_adamw_: one multi-tensor kernel per decay group instead of ~8
  // kernels per tensor; the same update, fp32 throughout (rounding may differ
  // in the last bit: in-register arithmetic instead of rounded temporaries).
  bool fused = false;
};
struct AdamWState {
  int64_t step = 0;
  std::vector<at::Tensor> exp_avg, exp_avg_sq;  // one per Param, fp32
  std::vector<at::Tensor> fused_steps;  // fused: each Param's step as a device scalar (not saved)
};
AdamWState InitAdamW(const Trainable& t);
// One decoupled-weight-decay Adam update (weight decay only on Param::decay).
void AdamWStep(Trainable& t, AdamWState& state, double lr, const AdamWOptions& o);

// Linear warm-up to `peak` over `warmup` steps, then cosine decay to
// peak * min_ratio at `total`. step counts from 0.
double CosineLr(int64_t step, int64_t warmup, int64_t total, double peak, double min_ratio);

// Global L2 norm of the gradients; scaled to max_norm when above it (max_norm <= 0: no clipping).
double ClipGradNorm(Trainable& t, double max_norm);
// The same with multi-tensor kernels and no host synchronisation: the
// gradients are multiplied by min(1, max_norm / (norm + 1e-6)) on the device
// (1 leaves them exact); returns the norm as a device scalar, for reading
// once the step is done.
at::Tensor ClipGradNormForeach(Trainable& t, double max_norm);

// Checkpoint directory layout:
//   config.json, model.safetensors (fp32, Hugging Face names), tokenizer.json
//   tokenizer_config.json, generation_config.json, special_tokens_map.json
//     (model::MakeHfSideFiles, from `tokenizer`; `end_of_turn` is their eos)
//   `carried`: the input model's other files (model::ReadCarriedModelFiles), written last, so
//     its own tokenizer_config.json, generation_config.json and tokenizer.json win
//   optimizer.safetensors ("exp_avg.NAME", "exp_avg_sq.NAME")
//   trainer_state.json (step, data cursor, options, seeds, file hashes)
// With LoRA, PEFT's adapter_config.json and adapter_model.safetensors (model/lora.h) replace
// config.json and model.safetensors: the base is referenced (Trainable::lora_base), not copied,
// and the optimizer state holds the adapters' moments only.
// Written to DIR.tmp then renamed over DIR.
Status SaveTrainCheckpoint(const std::string& dir, const Trainable& t, const AdamWState& adam,
                           const model::Tokenizer& tokenizer, const model::EndOfTurn& end_of_turn,
                           const std::string& state_json, const model::ModelFiles& carried = {});
// The model as served (`--save-dtype bf16`): config.json (torch_dtype) and model.safetensors
// with the master weights rounded once to `dtype`, the tokenizer and its side files and the
// carried files, as in a training checkpoint, but no optimizer or trainer state: a model to
// load (tritonrl, transformers), not a run to resume. Not for LoRA (merge the adapter).
// Written to DIR.tmp then renamed over DIR.
Status SaveServedModel(const std::string& dir, const Trainable& t,
                       const model::Tokenizer& tokenizer, const model::EndOfTurn& end_of_turn,
                       c10::ScalarType dtype, const model::ModelFiles& carried = {});
// Checks the file hashes recorded in trainer_state.json, the model against
// its config, and every optimizer tensor against its parameter: a corrupt or
// mismatched checkpoint fails with a message naming the file and the problem.
struct LoadedCheckpoint {
  Trainable trainable;
  AdamWState adam;
  model::Tokenizer tokenizer;
  model::EndOfTurn end_of_turn;  // model::FindEndOfTurn of the checkpoint's own files
  std::string state_json;
  model::ModelFiles carried_files;  // the checkpoint's files that the next save carries
};
Result<LoadedCheckpoint> LoadTrainCheckpoint(const std::string& dir, c10::Device device,
                                             c10::ScalarType compute);

}  // namespace tritonrl::train
