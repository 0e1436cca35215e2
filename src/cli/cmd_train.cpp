// tritonrl train sft|grpo: supervised fine-tuning of a Qwen3 policy on
// {"prompt", "completion"} JSONL, and GRPO with TritonRL's hierarchical reward
// decomposition against our scorer (src/train). Built only when the trainer
// (libtorch) is part of the build.
#ifdef TRITONRL_HAVE_TRAIN

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "train/grpo.h"
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
      r->tokens_per_second, r->checkpoint.empty() ? "none (--no-save)" : r->checkpoint.c_str());
  if (r->best_step > 0) {
    std::fprintf(stderr, "train sft: best held-out loss %.4f at step %lld; checkpoint %s\n",
                 r->best_eval_loss, static_cast<long long>(r->best_step),
                 r->best_checkpoint.c_str());
  }
  return 0;
}

int RunGrpoCommand(t::GrpoOptions o, const std::string& levels, const std::string& off_policy) {
  if (!levels.empty()) {
    auto parsed = t::ParseLevels(levels);
    if (!parsed.ok()) {
      std::fprintf(stderr, "tritonrl train grpo: %s\n", parsed.status().message().c_str());
      return 2;
    }
    o.levels = std::move(parsed.value());
  }
  if (off_policy != "0" && off_policy != "1") {
    std::fprintf(stderr, "tritonrl train grpo: --off-policy must be 0 or 1, not '%s'\n",
                 off_policy.c_str());
    return 2;
  }
  o.off_policy = off_policy == "1";
  auto r = t::RunGrpo(o);
  if (!r.ok()) {
    std::fprintf(stderr, "tritonrl train grpo: %s\n", r.status().message().c_str());
    return 2;
  }
  std::fprintf(stderr,
               "train grpo: %s; %lld steps, R_correct %.3f -> %.3f, correct %.2f -> %.2f; "
               "checkpoint %s\n",
               r->description.c_str(), static_cast<long long>(r->steps), r->first.reward_correct,
               r->last.reward_correct, r->first.correct_rate, r->last.correct_rate,
               r->checkpoint.c_str());
  return 0;
}

// The LoRA flags, the same four for `train sft` and `train grpo` (SftOptions, GrpoOptions);
// only the help of the rank and the dropout differs.
template <typename Options>
void AddLoraOptions(CLI::App* app, Options& o, const char* rank_help, const char* dropout_help) {
  app->add_option("--lora-r", o.lora_r, rank_help)->capture_default_str();
  app->add_option("--lora-alpha", o.lora_alpha, "LoRA alpha (the adapter's scale is alpha/r)")
      ->capture_default_str();
  app->add_option("--lora-dropout", o.lora_dropout, dropout_help)->capture_default_str();
  app->add_option("--lora-targets", o.lora_targets,
                  "LoRA target projections: q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,"
                  "down_proj (comma-separated), all, attention or mlp")
      ->capture_default_str();
}

// GRPO's memory options: the update's micro-batches, chunked head and recomputed layers, and
// LoRA. None changes what is optimised, except LoRA, which changes which weights train.
void AddGrpoMemoryOptions(CLI::App* g, t::GrpoOptions& o) {
  g->add_option("--update-batch-tokens", o.update_batch_tokens,
                "Padded tokens per update micro-batch")
      ->capture_default_str();
  g->add_option("--loss-chunk", o.loss_chunk,
                "Memory: the update's head and log-softmax over chunks of N scored rows, forward "
                "and backward (default 4096; 0: whole-batch fp32 logits)")
      ->capture_default_str();
  g->add_flag("--checkpoint-layers", o.checkpoint_layers,
              "Recompute layer activations in the update's backward pass (less memory)");
  AddLoraOptions(g, o,
                 "LoRA rank: train adapters on the target projections only, the base frozen "
                 "(0: full fine-tuning, unless --model is an adapter, which is continued)",
                 "LoRA dropout: must be 0 in GRPO (the ratio's sampler has none)");
}

void AddGrpo(CLI::App& sub, std::vector<std::function<int()>>& runs) {
  auto o = std::make_shared<t::GrpoOptions>();
  auto levels = std::make_shared<std::string>("1:1");
  auto off_policy = std::make_shared<std::string>("0");
  auto quiet = std::make_shared<bool>(false);
  CLI::App* g = sub.add_subcommand(
      "grpo", "GRPO with hierarchical reward decomposition, rewards from the scorer");
  g->add_option("--model", o->model,
                "Starting policy: a model directory (an SFT checkpoint, or a LoRA adapter "
                "directory, continued), builtin:tiny or builtin:small")
      ->capture_default_str();
  g->add_option("--tasks", o->tasks, "Task folder: a suite (levelN/) or a `data synth` output")
      ->required();
  g->add_option("--out", o->out,
                "Output directory (metrics.jsonl, rollouts.jsonl, scores.sqlite, checkpoint/)")
      ->required();
  g->add_option("--resume", o->resume, "Continue from this GRPO checkpoint (its options)");
  g->add_option("--device", o->device,
                "Policy device: cpu, cuda or cuda:N (default: cuda if "
                "available)");
  g->add_option("--dtype", o->dtype, "Compute dtype (default: bf16 on GPU, fp32 on CPU)");
  g->add_option("--eval-device", o->eval_device,
                "Scoring device: cpu (Triton interpreter), cuda or auto (default: the policy's)");
  g->add_option("--jobs", o->jobs, "Scoring worker processes (0: the scorer's default)")
      ->capture_default_str();
  g->add_option("--prestart-workers", o->prestart_workers,
                "scoring workers started ahead of their samples (sandboxed, CUDA context made; "
                "each runs one sample): -1 one per job, 0 off")
      ->capture_default_str();
  g->add_flag("--keep-idle-workers", o->keep_idle_workers,
              "keep the pre-started scoring workers between steps, so they make their CUDA "
              "contexts while the policy generates and updates (about 500 MB of GPU memory each)");
  g->add_flag("--quiet-timing", o->quiet_timing,
              "hold other candidates' trials back while a sample is timed (docs/measurement.md, "
              "\"Quiet timing\")");
  g->add_option("--warm-references", o->warm_references,
                "compute the first steps' task references ahead, beside the first generation: "
                "auto (where scoring runs on a GPU), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  g->add_option("--variants", o->variants,
                "Scoring: comma-separated variants to run, of those each task has (default: "
                "the device's, cuda: all)")
      ->delimiter(',');
  g->add_option("--steps", o->steps, "Training steps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  g->add_option("--stop-after", o->stop_after,
                "Save and stop after this step (resume later with --resume)");
  g->add_option("--save-every", o->save_every, "Checkpoint every N steps (and at the end)");
  g->add_option("--save-dtype", o->save_dtype,
                "fp32: OUT/checkpoint (fp32, optimizer state) only; bf16: also OUT/model, the "
                "policy as served (bf16, no optimizer state)")
      ->capture_default_str();
  g->add_option("--group", o->group, "Rollouts per task (G)")->capture_default_str();
  g->add_option("--tasks-per-step", o->tasks_per_step, "Tasks (groups) per step (B)")
      ->capture_default_str();
  g->add_option("--mode", o->mode, "Advantage mode: hrd, uniform or binary")->capture_default_str();
  g->add_option("--alpha", o->alpha, "HRD: weight of the speedup advantage on plan tokens")
      ->capture_default_str();
  g->add_option("--beta", o->beta, "uniform: weight of R_correct (1 - beta on R_speedup)")
      ->capture_default_str();
  g->add_option("--clip-low", o->clip_low, "Ratio clip below 1 (1 - clip_low)")
      ->capture_default_str();
  g->add_option("--clip-high", o->clip_high, "Ratio clip above 1 (1 + clip_high; DAPO)")
      ->capture_default_str();
  g->add_option("--kl", o->kl, "k3 KL penalty to the starting policy (0: off)")
      ->capture_default_str();
  g->add_option("--lr", o->lr, "Learning rate (after the warm-up; the peak under cosine)")
      ->capture_default_str();
  g->add_option("--warmup-steps", o->warmup_steps, "Linear learning-rate warm-up steps")
      ->capture_default_str();
  g->add_option("--lr-schedule", o->lr_schedule,
                "After the warm-up: constant, or cosine down to --min-lr-ratio at the last step")
      ->capture_default_str();
  g->add_option("--min-lr-ratio", o->min_lr_ratio, "cosine: the last step's lr / --lr")
      ->capture_default_str();
  g->add_option("--adam-beta1", o->adam_beta1)->capture_default_str();
  g->add_option("--adam-beta2", o->adam_beta2)->capture_default_str();
  g->add_option("--weight-decay", o->weight_decay)->capture_default_str();
  g->add_option("--speedup-noise-floor", o->speedup_noise_floor,
                "Within a group, speedups closer than their measured spread (at least this "
                "relative share) earn the same R_speedup (0: raw speedups)")
      ->capture_default_str();
  g->add_option("--text-reward-plan", o->text_reward_plan,
                "Reward from the text alone, no scoring: 1 when this regex matches the plan "
                "(<think> text); HRD routes it to plan tokens only");
  g->add_option("--grad-clip", o->grad_clip, "Gradient norm clip (0: off)")->capture_default_str();
  g->add_option("--max-new-tokens", o->max_new_tokens)->capture_default_str();
  g->add_option("--temperature", o->temperature, "Sampling temperature (> 0)")
      ->capture_default_str();
  g->add_option("--top-p", o->top_p)->capture_default_str();
  g->add_option("--levels", *levels, "Level mixture LEVEL:WEIGHT,... (e.g. 1:1,2:0)")
      ->capture_default_str();
  g->add_option("--labels", o->labels,
                "Difficulty labels JSONL from `tritonrl calibrate` (task -> level); default "
                "TASKS/labels.jsonl when present; none: the folder's levels");
  g->add_option("--off-policy", *off_policy,
                "1: score step N while sampling step N+1 (importance ratio)")
      ->capture_default_str();
  g->add_option("--truncated", o->truncated,
                "Responses that hit --max-new-tokens: penalize (reward 0) or exclude (no loss)")
      ->capture_default_str();
  g->add_flag("--dr-grpo", o->dr_grpo, "Dr. GRPO: mean-centred advantages, no std division");
  g->add_flag(
      "--no-timing", [o](int64_t) { o->timing = false; },
      "Score correctness only (no GPU timing, so no R_speedup): for rewards without speed");
  g->add_option("--timing-trials", o->timing_trials,
                "Timed calls a correct rollout gets (at least 5; docs/measurement.md)")
      ->capture_default_str();
  g->add_flag(
      "--no-filter", [o](int64_t) { o->filter_constant_groups = false; },
      "Keep constant-reward groups in the loss (DAPO filtering off)");
  g->add_option("--max-sample-rounds", o->max_sample_rounds,
                "DAPO dynamic sampling: while fewer than --tasks-per-step groups of a step have "
                "non-constant rewards, sample the missing groups from further tasks, up to this "
                "many rounds a step (1: no resampling)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  AddGrpoMemoryOptions(g, *o);
  g->add_option("--seed", o->seed, "builtin weights, task order and sampling")
      ->capture_default_str();
  g->add_flag("--test-inject-solutions", o->test_inject_solutions,
              "TEST ONLY: the first rollout of each group is the suite's solution");
  g->add_flag("--no-progress", *quiet, "No progress bar");
  runs.push_back([o, levels, off_policy, quiet, g]() -> int {
    if (!g->parsed()) return -1;
    o->progress = !*quiet;
    return RunGrpoCommand(*o, *levels, *off_policy);
  });
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"train", "Train a Qwen3 policy (sft, grpo)", [](CLI::App& sub) {
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
       sft->add_flag("--phase-timing", o->phase_timing,
                     "Synchronise the device between each step's phases and log their times "
                     "(metrics phase_ms; slower, for profiling)");
       // The speed options are on by default (the combination measured fastest on the H200,
       // docs/train.md); --no-... (--loss-chunk 0) turns each off: the reference-order path.
       sft->add_flag("--fused-adamw,!--no-fused-adamw", o->fused_adamw,
                     "Speed: multi-tensor fused AdamW and gradient clipping (no host sync); "
                     "default on, --no-fused-adamw: the per-tensor loop");
       sft->add_option("--loss-chunk", o->loss_chunk,
                       "Speed: fused head + cross-entropy over chunks of N scored rows "
                       "(default 4096; 0: whole-batch fp32 logits)")
           ->capture_default_str();
       sft->add_flag("--fused-norm,!--no-fused-norm", o->fused_norm,
                     "Speed: fused RMSNorm kernel in the training forward (one rounding); "
                     "default on, --no-fused-norm: the reference-order RMSNorm");
       sft->add_flag("--fused-proj,!--no-fused-proj", o->fused_proj,
                     "Speed: one q/k/v GEMM and one gate/up GEMM in the training forward; "
                     "default on, --no-fused-proj: separate GEMMs");
       sft->add_flag("--rope-roll,!--no-rope-roll", o->rope_roll,
                     "Speed: rotary embedding with a roll (same values, cheaper backward); "
                     "default on, --no-rope-roll: in-place adds into the halves");
       sft->add_option("--eval-every", o->eval_every,
                       "Held-out loss every N steps (and at the end)");
       sft->add_flag("--keep-best", o->keep_best,
                     "Save the step with the lowest held-out loss to OUT/best (needs --eval-data)");
       sft->add_option("--save-every", o->save_every, "Checkpoint every N steps (and at the end)");
       sft->add_option("--save-dtype", o->save_dtype,
                       "fp32: OUT/checkpoint (fp32, optimizer state) only; bf16: also OUT/model, "
                       "the model as served (bf16, no optimizer state)")
           ->capture_default_str();
       auto no_save = std::make_shared<bool>(false);
       sft->add_flag("--no-save", *no_save, "Write no checkpoint (benchmarks)");
       sft->add_option("--seed", o->seed, "builtin weights and data order")->capture_default_str();
       sft->add_option("--small-vocab", o->small_vocab, "builtin:small BPE vocabulary size")
           ->capture_default_str();
       AddLoraOptions(sft, *o,
                      "LoRA rank: train adapters on the target projections only, the base "
                      "frozen (0: full fine-tuning)",
                      "LoRA dropout on the adapters' input");
       auto quiet_ptr = std::make_shared<bool>(false);
       sft->add_flag("--no-progress", *quiet_ptr, "No progress bar");
       std::vector<std::function<int()>> runs;
       AddGrpo(sub, runs);
       return [o, quiet_ptr, no_save, sft, runs]() -> int {
         for (const auto& run : runs) {
           if (int rc = run(); rc >= 0) return rc;
         }
         if (!sft->parsed()) return 2;
         o->progress = !*quiet_ptr;
         o->save = !*no_save;
         return RunSftCommand(*o);
       };
     }});

}  // namespace

#endif  // TRITONRL_HAVE_TRAIN
