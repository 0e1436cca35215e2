// Supervised fine-tuning of a Qwen3 policy on {"prompt", "completion"} JSONL
// (loss on completion tokens only), behind a libtorch-free interface for the
// CLI and the demo. RunSft owns the process's training loop (one at a time,
// from one thread). What survives a crash: OUT/metrics.jsonl up to the last
// logged step and OUT/checkpoint as of the last save (complete or absent, never
// half written); --resume OUT/checkpoint continues with identical results.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace tritonrl::train {

struct SftOptions {
  std::string model = "builtin:tiny";  // a Hugging Face directory, builtin:tiny, builtin:small
  std::string data;                    // training JSONL
  std::string eval_data;               // held-out JSONL (optional)
  std::string out;                     // output directory
  std::string resume;                  // a checkpoint directory written by an earlier run
  std::string device;                  // empty: cuda if available, else cpu
  std::string dtype;  // compute dtype; empty: bf16 on GPU, fp32 on CPU (masters are fp32)
  int64_t epochs = 1;
  int64_t max_steps = 0;         // > 0: this many optimizer steps (cycling the data)
  int64_t stop_after = 0;        // > 0: save and return after this step (an interruption)
  int64_t max_tokens = 2048;     // sequence length cap
  int64_t batch_tokens = 16384;  // padded tokens per micro-batch
  int64_t grad_accum = 1;        // micro-batches per optimizer step
  double lr = 3e-4;
  double min_lr_ratio = 0.1;
  int64_t warmup = 10;
  double weight_decay = 0.1;
  double beta1 = 0.9, beta2 = 0.95, adam_eps = 1e-8;
  double clip = 1.0;  // <= 0: no clipping
  bool checkpoint_layers = false;
  // Synchronise the device between a step's phases and log each one's milliseconds
  // (metrics "phase_ms": batch, forward (the layers), head (head and loss), head_backward,
  // backward (the rest), allreduce, clip, optimizer); slower.
  bool phase_timing = false;
  // Speed options (issue 19; docs/train.md "Speed options"). Implementation
  // choices, not part of the trajectory: a resumed run uses its own flags. On by
  // default: together they measured 1.63x a plain PyTorch loop on the H200
  // (Qwen3-0.6B, bf16, 8 x 2048). false / 0 each: the reference-order path.
  bool fused_adamw = true;    // at::_fused_adamw_ and multi-tensor clipping, no host sync
  int64_t loss_chunk = 4096;  // > 0: head + cross-entropy fused over chunks of this many rows
  bool fused_norm = true;     // at::rms_norm's fused kernel in the training forward
  bool fused_proj = true;     // one q/k/v GEMM and one gate/up GEMM in the training forward
  bool rope_roll = true;      // rotary embedding with a roll (same values, cheaper backward)
  int64_t eval_every = 0;     // steps; 0: at the end only (when eval_data is set)
  // Save the step with the lowest held-out loss (of those evaluated) to OUT/best, a complete
  // checkpoint beside OUT/checkpoint (needs eval_data). Picks the SFT policy GRPO starts from.
  bool keep_best = false;
  int64_t save_every = 0;  // steps; 0: at the end only
  bool save = true;        // false: no checkpoint at all (benchmarks: 7 GB per 0.6B run)
  // "bf16": each save also writes OUT/model, the model as served (weights rounded once to bf16,
  // tokenizer and side files, no optimizer or trainer state); OUT/checkpoint stays the fp32
  // resume checkpoint. "fp32": OUT/checkpoint only. Not a trajectory option.
  std::string save_dtype = "fp32";
  uint64_t seed = 0;           // builtin weights and the data order
  int32_t small_vocab = 4096;  // builtin:small's BPE vocabulary
  // LoRA (docs/train.md "LoRA"): lora_r > 0 trains adapters on the target projections only
  // (y = W x + (alpha / r) B A dropout(x)); the base is frozen in the compute dtype and the
  // checkpoint is a PEFT adapter. lora_targets: PEFT module names joined by commas, or "all",
  // "attention", "mlp".
  int64_t lora_r = 0;
  double lora_alpha = 16;
  double lora_dropout = 0;
  std::string lora_targets = "all";
  bool progress = true;  // progress bar on stderr
};

struct SftSummary {
  int64_t steps = 0;  // optimizer steps done in total (including before a resume)
  double first_loss = 0, last_loss = 0;
  double eval_loss = -1;         // last held-out loss; -1 when none
  double tokens_per_second = 0;  // over the optimizer steps (held-out loss and saves excluded)
  // --keep-best: the step with the lowest held-out loss, saved in OUT/best (0: none).
  int64_t best_step = 0;
  double best_eval_loss = -1;
  std::string best_checkpoint;
  std::string checkpoint;   // directory of the last checkpoint
  std::string description;  // model and device
};

Result<SftSummary> RunSft(const SftOptions& options);

}  // namespace tritonrl::train
