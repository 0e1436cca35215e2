// GRPO with TritonRL's Hierarchical Reward Decomposition (docs/train.md):
// each step draws tasks from the difficulty-aware sampler, samples G rollouts
// per task with the KV-cache sampler (behaviour log-probabilities kept), scores
// them through the scoring library (static verifier, then the sandboxed
// engine), turns verdicts into per-token advantages (rl/advantages.h) and
// applies the clipped surrogate. A libtorch-free interface for the CLI and the
// demo. RunGrpo owns the process's training loop (one at a time, from one
// thread; scoring runs on its own threads). What survives a crash:
// OUT/metrics.jsonl and OUT/rollouts.jsonl up to the last finished step, and
// OUT/checkpoint as of the last save (complete or absent); --resume continues
// with identical results on the CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace tritonrl::train {

struct GrpoOptions {
  std::string model = "builtin:tiny";  // a Hugging Face directory (an SFT checkpoint), builtin:*
  std::string tasks;                   // a task folder (built-in suite or `data synth` output)
  std::string out;                     // output directory
  std::string resume;                  // a checkpoint directory written by an earlier run
  std::string device;                  // policy device; empty: cuda if available, else cpu
  std::string dtype;                   // compute dtype; empty: bf16 on GPU, fp32 on CPU
  std::string eval_device;  // scoring device ("cpu" runs Triton's interpreter); empty: = device
  std::vector<std::string> variants;  // scoring: variants run, of those a task has; empty: all
  std::map<int, double> levels = {{1, 1.0}};  // --levels 1:1,2:0
  // Difficulty labels from a calibration pass (rl/task_labels.h; `tritonrl calibrate`): each
  // listed task takes the label's level, which `levels` mixes (TritonRL's difficulty-aware
  // mixing; by default only level 1, the tasks within the policy's reach). Empty:
  // TASKS/labels.jsonl when that file exists; "none": the folder's levels (levelN/, else 1).
  std::string labels;
  int64_t steps = 10;
  int64_t stop_after = 0;  // > 0: save and return after this step (an interruption)
  int64_t group = 8;       // G rollouts per task
  int64_t tasks_per_step = 4;
  std::string mode = "hrd";            // hrd | uniform | binary
  double alpha = 0.1;                  // HRD: plan tokens' weight of the speedup advantage
  double beta = 0.3;                   // uniform: weight of R_correct
  bool dr_grpo = false;                // mean-centred advantages, no std division
  bool filter_constant_groups = true;  // DAPO: constant-reward groups carry no loss
  // DAPO dynamic sampling: when fewer than tasks_per_step groups of a step are informative
  // (non-constant rewards), the step draws the missing number of further tasks from its task
  // order and samples and scores their groups, round after round, until it has tasks_per_step
  // informative groups or this many rounds are spent; the update uses every round's groups
  // (the constant ones filtered as above). 1: one round (no resampling).
  int64_t max_sample_rounds = 1;
  double clip_low = 0.2, clip_high = 0.28;
  double kl = 0;  // > 0: k3 KL penalty to the frozen initial policy
  // The optimizer: AdamW at `lr` after a linear warm-up of `warmup_steps` steps, then constant
  // or cosine down to min_lr_ratio * lr at the last step (docs/train.md: why these defaults).
  double lr = 1e-6;
  int64_t warmup_steps = 0;
  std::string lr_schedule = "constant";  // constant | cosine
  double min_lr_ratio = 0.1;             // cosine: the last step's share of lr
  double adam_beta1 = 0.9, adam_beta2 = 0.999;
  double weight_decay = 0.0;
  double grad_clip = 1.0;
  // R_speedup's noise floor: within a group, correct rollouts whose speedups differ by no more
  // than their timing's measured relative spread (at least this share) earn the same R_speedup
  // (rl/rewards.h), so no advantage comes from jitter. 0: off (raw speedups).
  double speedup_noise_floor = 0.05;
  // A reward from the text alone instead of the scorer (no code runs): a rollout earns 1 when
  // this ECMAScript regex matches its plan (the <think> text), else 0. Under HRD the reward
  // goes to the plan tokens only (as R_speedup, R_correct held at 0); in the other modes to
  // every token. Proves the update pushes the policy towards a reward (docs/train.md).
  std::string text_reward_plan;
  int64_t max_new_tokens = 1024;
  double temperature = 1.0;
  double top_p = 1.0;
  // The update's head and log-softmax over chunks of this many scored tokens, forward and
  // backward (train/chunked_head.h): no fp32 [tokens, vocab] tensor. 0: whole-batch logits.
  // Changes rounding only, so it is not a trajectory option (like SFT's --loss-chunk).
  int64_t loss_chunk = 4096;
  bool off_policy = false;             // score step N while generating step N+1 (importance ratio)
  std::string truncated = "penalize";  // penalize | exclude: responses that hit max_new_tokens
  int jobs = 0;                        // scoring jobs; 0: the scoring library's default
  int prestart_workers = -1;           // scoring's pre-started workers: -1 one per job, 0 off
  bool keep_idle_workers = false;      // ScoringConfig::keep_idle_workers (between steps)
  bool quiet_timing = false;           // ScoringConfig::quiet_timing
  // Scoring computes the references of the tasks the first steps will draw (up to the 4 x jobs it
  // keeps) in the background from the start, beside the first generation, instead of as each
  // task is first drawn (Scorer::WarmReferences; bench/RESULTS.md, E1b: 55 of 194 s of scoring).
  // "auto": where scoring runs on a GPU (on the CPU a small policy's rollouts rarely reach a
  // reference at all); "on"; "off".
  std::string warm_references = "auto";
  // Scoring times correct rollouts on the GPU (R_speedup). false: correctness only, for runs whose
  // reward does not use the speedup (binary mode, or an experiment on correctness): about 100
  // timed calls a correct rollout saved.
  bool timing = true;
  // Timed calls a correct rollout gets (ScoringConfig::timing_trials; at least 5). The reward needs
  // its speedup only to the noise floor's resolution, and the timing lease lets one timed phase
  // hold the GPU at a time, so fewer calls make a step's scoring shorter (issue 35). A trajectory
  // option: it changes the speedups the reward sees.
  int timing_trials = 100;
  int64_t save_every = 0;  // steps; 0: at the end only
  // "bf16": each save also writes OUT/model, the policy as served (bf16 weights, tokenizer and
  // side files, no optimizer or trainer state) beside the fp32 resume checkpoint. Not a
  // trajectory option.
  std::string save_dtype = "fp32";
  uint64_t seed = 0;
  bool progress = true;
  int64_t update_batch_tokens = 16384;  // padded tokens per update micro-batch
  // Recompute each layer's activations in the update's backward pass instead of keeping them
  // (less memory, the same gradients). Not a trajectory option: a resume takes its own flag.
  bool checkpoint_layers = false;
  // LoRA (docs/train.md "LoRA"): lora_r > 0 trains adapters on the target projections only, the
  // base frozen in the compute dtype; rollouts are sampled from base + current adapters and the
  // checkpoint is a PEFT adapter. A LoRA adapter directory as `model` continues that adapter
  // (its r, alpha and targets; lora_r 0 or the same values). Dropout must be 0: the ratio
  // compares the update's log-probabilities with the sampler's, which has none.
  int64_t lora_r = 0;
  double lora_alpha = 16;
  double lora_dropout = 0;
  std::string lora_targets = "all";
  int32_t small_vocab = 4096;  // builtin:small's BPE vocabulary (learned from the prompts)
  // TEST ONLY: the first rollout of every group is replaced by the task's solution
  // (TASKS/solutions/<id>.py in the SFT completion format), so a random policy's
  // groups get non-constant rewards and the update path runs with real advantages.
  bool test_inject_solutions = false;
};

struct GrpoStepMetrics {
  int64_t step = 0;
  double reward_correct = 0, reward_speedup = 0;  // means over the step's rollouts
  double valid_rate = 0, compiled_rate = 0, correct_rate = 0, fast1_rate = 0;
  double mean_speedup = 0;  // over correct rollouts with a trusted speedup; 0 when none
  // Of the correct rollouts, the share whose speedup was unknown (not timed, or voided by load:
  // rl::Rewards::speedup_unknown); 0 when none is correct.
  double speedup_unknown_rate = 0;
  double response_tokens = 0, entropy = 0, clip_fraction = 0, kl = 0;
  double lr = 0;                // the step's learning rate (after warm-up and schedule)
  double text_reward_rate = 0;  // --text-reward-plan: share of rollouts whose plan matched
  double gen_tokens_per_second = 0;
  double gen_seconds = 0, score_seconds = 0, update_seconds = 0;
  int64_t truncated = 0, filtered_groups = 0;
  // Dynamic sampling: groups sampled over the step's rounds, those with non-constant rewards,
  // and the rounds it took (1 without resampling).
  int64_t sampled_groups = 0, informative_groups = 0, rounds = 1;
};

struct GrpoSummary {
  int64_t steps = 0;  // steps done in total (including before a resume)
  GrpoStepMetrics first, last;
  std::string checkpoint;   // directory of the last checkpoint (Hugging Face layout)
  std::string description;  // model, device and scoring device
};

// Called after each finished step (from RunGrpo's thread).
using GrpoStepCallback = std::function<void(const GrpoStepMetrics&)>;

// "1:1,2:0" -> {1: 1, 2: 0}; a bad item fails naming it (the CLI's --levels).
Result<std::map<int, double>> ParseLevels(const std::string& text);

Result<GrpoSummary> RunGrpo(const GrpoOptions& options, const GrpoStepCallback& on_step = {});

}  // namespace tritonrl::train
