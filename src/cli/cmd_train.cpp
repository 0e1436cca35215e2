// tritonrl train sft: supervised fine-tuning of a Qwen3 policy on
// {"prompt", "completion"} JSONL (src/train). Built only when the trainer
// (libtorch) is part of the build.
#ifdef TRITONRL_HAVE_TRAIN

#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "train/sft.h"

namespace {

namespace t = tritonrl::train;

int RunSftCommand(const t::SftOptions& o) {
  auto r = t::RunSft(o);
  if (!r.ok()) {
    std::fprintf(stderr, "tritonrl train sft: %s\n", r.status().message().c_str());
    return 2;
  }
  std::fprintf(
      stderr, "train sft: %s; %lld steps, loss %.4f -> %.4f%s, %.0f tokens/s; checkpoint %s\n",
      r->description.c_str(), static_cast<long long>(r->steps), r->first_loss, r->last_loss,
      r->eval_loss >= 0 ? (", eval loss " + std::to_string(r->eval_loss)).c_str() : "",
      r->tokens_per_second, r->checkpoint.c_str());
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"train", "Train a Qwen3 policy (sft)", [](CLI::App& sub) {
       sub.require_subcommand(1);
       auto o = std::make_shared<t::SftOptions>();
       CLI::App* sft =
           sub.add_subcommand("sft", "Supervised fine-tuning on prompt/completion JSONL");
       sft->add_option("--model", o->model,
                       "Model directory (config.json, *.safetensors, tokenizer.json), "
                       "builtin:tiny or builtin:small")
           ->capture_default_str();
       sft->add_option("--data", o->data, "Training JSONL: {\"prompt\", \"completion\"} per line")
           ->required();
       sft->add_option("--eval-data", o->eval_data, "Held-out JSONL (loss only)");
       sft->add_option("--out", o->out, "Output directory (metrics.jsonl, checkpoint/)")
           ->required();
       sft->add_option("--resume", o->resume,
                       "Continue from this checkpoint (its model and training options)");
       sft->add_option("--device", o->device, "cpu, cuda or cuda:N (default: cuda if available)");
       sft->add_option("--dtype", o->dtype,
                       "Compute dtype fp32, bf16 or fp16 (default: bf16 on GPU, fp32 on CPU); "
                       "master weights stay fp32");
       sft->add_option("--epochs", o->epochs)->check(CLI::PositiveNumber)->capture_default_str();
       sft->add_option("--steps", o->max_steps, "Optimizer steps (overrides --epochs; cycles)")
           ->capture_default_str();
       sft->add_option("--stop-after", o->stop_after,
                       "Save and stop after this step (resume later with --resume)");
       sft->add_option("--max-tokens", o->max_tokens, "Sequence length cap")->capture_default_str();
       sft->add_option("--batch-tokens", o->batch_tokens,
                       "Padded tokens per micro-batch (length-bucketed)")
           ->capture_default_str();
       sft->add_option("--grad-accum", o->grad_accum, "Micro-batches per optimizer step")
           ->check(CLI::PositiveNumber)
           ->capture_default_str();
       sft->add_option("--lr", o->lr, "Peak learning rate")->capture_default_str();
       sft->add_option("--min-lr-ratio", o->min_lr_ratio, "Final lr / peak (cosine)")
           ->capture_default_str();
       sft->add_option("--warmup", o->warmup, "Linear warm-up steps")->capture_default_str();
       sft->add_option("--weight-decay", o->weight_decay,
                       "AdamW decoupled decay (not on norms, biases)")
           ->capture_default_str();
       sft->add_option("--beta1", o->beta1)->capture_default_str();
       sft->add_option("--beta2", o->beta2)->capture_default_str();
       sft->add_option("--clip", o->clip, "Gradient norm clip (0: off)")->capture_default_str();
       sft->add_flag("--checkpoint-layers", o->checkpoint_layers,
                     "Recompute layer activations in the backward pass (less memory)");
       sft->add_option("--eval-every", o->eval_every,
                       "Held-out loss every N steps (and at the end)");
       sft->add_option("--save-every", o->save_every, "Checkpoint every N steps (and at the end)");
       sft->add_option("--seed", o->seed, "builtin weights and data order")->capture_default_str();
       sft->add_option("--small-vocab", o->small_vocab, "builtin:small BPE vocabulary size")
           ->capture_default_str();
       auto quiet_ptr = std::make_shared<bool>(false);
       sft->add_flag("--no-progress", *quiet_ptr, "No progress bar");
       return [o, quiet_ptr, sft]() -> int {
         if (!sft->parsed()) return 2;
         o->progress = !*quiet_ptr;
         return RunSftCommand(*o);
       };
     }});

}  // namespace

#endif  // TRITONRL_HAVE_TRAIN
