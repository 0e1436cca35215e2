// `tritonrl demo`, the README's main job, as a library: synthetic tasks (split
// into SFT, RL and held-out tasks) -> SFT records -> SFT of a small built-in
// model -> GRPO with HRD on the RL tasks -> evaluation of the base, SFT and GRPO policies on
// the held-out synthetic tasks and on the built-in suite's level 1 -> an HTML
// report (docs/demo.md). libtorch-free interface; RunDemo owns the process's
// training loops (one at a time, from one thread). What survives a crash or a
// failed stage: every earlier stage's outputs under OUT (synth/, sft/, grpo/,
// eval/*.jsonl, eval/summary.json as of the last finished evaluation).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "demo/calibrate.h"
#include "demo/policy_eval.h"
#include "metrics/paired_labels.h"
#include "rl/task_labels.h"
#include "train/grpo.h"
#include "train/sft.h"

namespace tritonrl::demo {

// The demo's SFT and GRPO settings where they differ from the trainers' defaults (the CPU
// default size; cmd_demo.cpp's presets change them further).
inline train::SftOptions DemoSftDefaults() {
  train::SftOptions s;
  s.max_steps = 40;
  s.lr = 3e-3;
  s.warmup = 2;
  s.max_tokens = 2048;
  s.batch_tokens = 8192;
  return s;
}

inline train::GrpoOptions DemoGrpoDefaults() {
  train::GrpoOptions g;
  g.steps = 3;
  g.group = 4;
  g.tasks_per_step = 2;
  // DAPO dynamic sampling: rounds a GRPO step may take to find tasks_per_step groups with
  // non-constant rewards. 1: no resampling.
  g.max_sample_rounds = 1;
  // Adam moves each weight by about lr a step: 1e-5 for a few steps stayed below the bf16
  // spacing of the policy's weights on the GPU, so the policy did not change (docs/demo.md).
  g.lr = 1e-4;
  g.mode = "hrd";
  g.max_new_tokens = 128;
  return g;
}

// The learning experiment E1 (docs/demo.md, "Does GRPO learn?") as the demo's RL part: the SFT
// policy is calibrated on the RL tasks (candidates SFT never trained on), the fixed pool is those
// it solves sometimes (0 < p < 1), GRPO trains on the pool, and the control (the SFT weights: an
// lr-0 run leaves them byte-identical) and the GRPO policy are evaluated on the pool at the same
// sampling seed, paired by task with percentile-bootstrap intervals. Stages whose outputs exist
// are not run again (SFT and GRPO continue from their last checkpoint).
struct LearningOptions {
  bool on = false;
  int calibrate_k = 8;          // samples per candidate
  uint64_t calibrate_seed = 7;  // sampling seed of the calibration
  int pool_min = 32;            // the design's smallest pool; a smaller one is reported as such
  bool pool_all_candidates = false;  // smoke test only: every candidate is the pool
  int pool_k = 16;                   // samples per pool task in each of the two evaluations
  uint64_t eval_seed = 202;          // the control's and the GRPO policy's sampling seed
  int resamples = 10000;             // bootstrap resamples of the tasks (95% intervals)
};

struct DemoOptions {
  std::string out = "build/demo";
  std::string suite = "tasks";         // the built-in suite (its level1/ tasks are evaluated)
  std::string model = "builtin:tiny";  // builtin:tiny, builtin:small or a Hugging Face directory
  std::string device;                  // policy device; empty: cuda if available, else cpu
  std::string eval_device = "cpu";     // scoring device (cpu: Triton's interpreter)
  uint64_t seed = 0;                   // synthetic tasks, weights, data order, sampling
  // Synthetic tasks of the generator's training split, in two disjoint parts: SFT trains on the
  // first `train_tasks`, GRPO samples from the next `rl_tasks`, so RL faces tasks the policy
  // has not memorised (as TritonRL's RL data is not its SFT data). Most of those share a
  // pattern with an SFT task at other shapes, scalars, dtype or template (docs/demo.md).
  int train_tasks = 12;
  int rl_tasks = 4;
  // SFT tasks also put into GRPO's pool (evenly spread over the SFT list): tasks the policy
  // has seen, beside the unseen ones. 0: the RL pool and the SFT tasks are disjoint.
  int rl_sft_tasks = 0;
  int heldout_tasks = 4;  // synthetic held-out tasks (patterns or shapes never trained)
  int level1_tasks = 8;   // tasks of level 1 evaluated (suite order); 0: all
  // Check each synthetic solution with our evaluator and drop the tasks whose solution fails
  // (as `data synth` does). Off by default: on the CPU interpreter it costs ~10-30 s a task,
  // and the generator's templates are verified in CI (tests/data); --gpu turns it on.
  bool verify_synth = false;
  // With verify_synth, the variants the SFT-only tasks (those not in the RL pool) are checked on:
  // empty: `variants` (as RL and held-out tasks); {"none"}: not checked (their solutions are
  // only SFT targets; --gpu, where ~0.6 s a task would be most of the synth stage).
  std::vector<std::string> sft_verify_variants;
  // Evaluation.
  int k = 4;
  int64_t max_new_tokens = 128;
  double temperature = 1.0;
  int64_t prompts_per_batch = 8;
  // SFT: the trainer's own options. Each stage sets what the demo decides (model, data,
  // eval_data, out, device, seed); the rest is used as given (steps, lr, warm-up, token
  // budgets, speed switches...).
  train::SftOptions sft = DemoSftDefaults();
  // GRPO: the trainer's own options. Each run sets model (the SFT checkpoint), tasks, out,
  // device, eval_device, seed (seed + i for the i-th seed) and, for an ablation run, mode; and
  // temperature, jobs and variants from the demo's evaluation and scoring settings above and
  // below. The rest is used as given (steps, group, tasks_per_step, max_sample_rounds, lr,
  // max_new_tokens, mode of the main run...).
  train::GrpoOptions grpo = DemoGrpoDefaults();
  // GRPO again from the same SFT checkpoint in each of these modes (e.g. uniform, binary), at the
  // same settings and seed, each evaluated on the held-out tasks (stages grpo-<mode>).
  std::vector<std::string> ablation_modes;
  // GRPO seeds per mode (the main one and each ablation mode): run i uses seed + i for its
  // rollout sampling and task order, so each mode's held-out pass@1 comes with a spread.
  // Runs after the first are stages grpo-<mode>-seed<seed>, evaluated on the held-out tasks.
  int ablation_seeds = 1;
  // Scoring.
  int jobs = 2;
  // Scoring's pre-started workers (ScoringConfig::prestart_workers): -1 one per job, 0 off.
  int prestart_workers = -1;
  bool timing = false;  // time correct samples (fast1, speedup rewards); GPU scoring only
  // Variants scored, of those a task has (synthetic and suite tasks have small, medium, large);
  // empty: the scoring device's default (cpu: small, cuda: all).
  std::vector<std::string> variants;
  LearningOptions learning;
};

// One evaluation of one policy on one task set.
struct StageEval {
  std::string stage;  // base, sft, grpo
  std::string suite;  // heldout (synthetic held-out tasks) or level1
  std::string jsonl;  // OUT/eval/<stage>_<suite>.jsonl: one line per sample (output and verdict)
  std::string run_id;
  std::string policy;
  EvalSummary summary;
  double generate_seconds = 0, score_seconds = 0;
  // Per task (task order): samples, those that earned R_correct, the valid ones, the Figure 5
  // classes (demo/calibrate.h LabelTasks). What the paired comparisons of the report resample.
  std::vector<rl::TaskLabel> per_task;
};

// One GRPO run of the demo (the main one, an ablation mode or a further seed).
struct GrpoRun {
  std::string stage;  // grpo, grpo-<mode>, grpo-<mode>-seed<seed>
  std::string mode;
  uint64_t seed = 0;
  double heldout_pass_at_1 = 0;
};

// The learning experiment's outcome (LearningOptions).
struct LearningResult {
  std::vector<rl::TaskLabel> calibration;  // every candidate, in candidate order
  PoolSelection selection;                 // the pool and the counts behind it
  // control (before) against the GRPO policy (after) on the pool; absent until both ran.
  std::optional<metrics::LabelComparison> paired;
};

struct DemoResult {
  std::vector<StageEval> evals;
  // train_ids: the SFT tasks; rl_ids: GRPO's pool, which shares only rl_sft_ids with train_ids;
  // heldout_ids is disjoint from both.
  std::vector<std::string> heldout_ids, train_ids, rl_ids, rl_sft_ids, level1_ids;
  int rl_seen_pattern = 0;                 // RL tasks not SFT tasks whose pattern an SFT task has
  std::vector<GrpoRun> grpo_runs;          // in the order they ran (seed-major)
  std::optional<LearningResult> learning;  // with DemoOptions::learning.on
  std::string report;                      // OUT/report.html
  std::string summary;                     // OUT/eval/summary.json
  std::vector<std::pair<std::string, double>> stage_seconds;
};

// Progress lines (one per stage start and end, and the trainers' steps).
using DemoProgress = std::function<void(const std::string& line)>;

// Runs every stage in order. A failing stage stops the demo: the error names the stage
// ("stage sft: ..."), and the outputs of the stages before it stay on disk.
Result<DemoResult> RunDemo(const DemoOptions& options, const DemoProgress& progress = {});

}  // namespace tritonrl::demo
