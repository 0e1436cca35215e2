// `tritonrl demo`: the README's main job (src/demo, docs/demo.md): synthetic
// tasks -> SFT -> GRPO with HRD, each policy evaluated before and after on
// held-out synthetic tasks and level 1, and an HTML report. Sizes: the default
// (2-core CPU, Triton interpreter, at most 15 minutes), --quick (the CI test)
// and --gpu (the H200 setting). Built only with the trainer (libtorch).
#ifdef TRITONRL_HAVE_DEMO

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.h"
#include "demo/pipeline.h"
#include "train/grpo.h"
#include "train/sft.h"

namespace {

namespace d = tritonrl::demo;

struct DemoCli {
  bool gpu = false, quick = false, verify = false, no_verify = false, timing = false;
  bool learning = false, no_learning = false, pool_all = false;
  std::optional<int> calibrate_k, pool_k, pool_min, resamples;
  std::optional<int64_t> warmup_steps;
  std::string out = "build/demo", suite = "tasks";
  std::optional<std::string> model, device, eval_device, mode;
  std::optional<uint64_t> seed;
  std::optional<int> train_tasks, rl_tasks, rl_sft_tasks, heldout_tasks, level1_tasks, k, jobs,
      ablation_seeds, prestart_workers;
  std::optional<int64_t> max_new_tokens, sft_steps, grpo_steps, group, tasks_per_step,
      max_sample_rounds;
  std::optional<std::vector<std::string>> sft_verify_variants;
  std::optional<double> sft_lr, grpo_lr;
  std::vector<std::string> variants;  // empty: the preset's
  std::vector<std::string> ablation;
};

// The learning experiment E1 (docs/demo.md, "Does GRPO learn?") at the H200 size, inside 10
// minutes by the time estimate there: E1's SFT and calibration, GRPO and the pool evaluations
// shortened to fit.
void LearningGpuPreset(d::DemoOptions& o) {
  o.model = "builtin:small";
  o.device = "cuda";
  o.eval_device = "cuda";
  o.jobs = 16;
  o.variants = {"medium"};
  o.prompts_per_batch = 32;
  o.max_new_tokens = 1024;
  // The draw of E1 (`data synth --seed 1`): its first 2,000 tasks' solutions were all found
  // correct on the H200 and every reference audited (bench/RESULTS.md, 2026-12-03). They hold
  // 869 distinct training-split tasks (E1's 1,167 less identical files, which the demo skips):
  // 805 for SFT and the last 64 as candidates keep every task inside them, so none is verified
  // again (a candidate with a broken reference would never be solved: not in the pool).
  o.seed = 1;
  o.verify_synth = false;
  o.train_tasks = 805;
  o.rl_tasks = 64;
  o.rl_sft_tasks = 0;
  o.heldout_tasks = 32;
  // E1's SFT: the trainer's defaults, 8 epochs at lr 1e-3, held-out loss every 50 steps, the
  // best step kept (the policy calibrated and trained on).
  o.sft = tritonrl::train::SftOptions{};
  o.sft.epochs = 8;
  o.sft.lr = 1e-3;
  o.sft.eval_every = 50;
  o.sft.save_every = 50;
  o.sft.keep_best = true;
  // E1's GRPO settings; 18 steps (E1: 30) and 8 pool samples a task (E1: 16) fit 10 minutes.
  o.grpo = tritonrl::train::GrpoOptions{};
  o.grpo.steps = 18;
  o.grpo.tasks_per_step = 8;
  o.grpo.group = 8;
  o.grpo.lr = 2e-5;
  o.grpo.warmup_steps = 5;
  o.grpo.max_new_tokens = 1024;
  o.grpo.save_every = 2;
  o.learning.calibrate_k = 8;
  o.learning.pool_min = 32;
  o.learning.pool_k = 8;
}

// The sizes (docs/demo.md explains each choice).
d::DemoOptions Preset(const DemoCli& c) {
  d::DemoOptions o;  // the CPU default: pipeline.h's values
  o.device = "cpu";
  o.eval_device = "cpu";
  if (c.quick) {  // the CI test: every stage runs, as small as it can be
    o.train_tasks = 3;
    o.rl_tasks = 2;
    o.heldout_tasks = 2;
    o.level1_tasks = 2;
    o.k = 2;
    o.max_new_tokens = 16;
    o.sft.max_steps = 3;
    o.sft.batch_tokens = 4096;
    o.grpo.steps = 2;
    o.grpo.group = 2;
    o.grpo.tasks_per_step = 1;
    o.grpo.max_new_tokens = 16;
  }
  if (c.gpu) {  // the H200: builtin:small, compiled kernels, larger everything (~8 minutes)
    o.model = "builtin:small";
    o.device = "cuda";
    o.eval_device = "cuda";
    o.verify_synth = true;
    o.jobs = 16;
    // E1 and E1b scored without pre-started workers (bench/RESULTS.md). The first `demo --gpu` of
    // this configuration (H100, 2026-12-06, ninth session) scored with them: its GRPO steps took
    // 8-15 s of scoring against E1b's 3.8-4.6 s once references were kept, the samples that found
    // no pre-started worker spent 6.6 s starting one beside the pool's replacements, and the demo
    // ran ~650 s.
    o.prestart_workers = 0;
    // 64 SFT tasks for 100 steps left a policy that recited spliced training files (every
    // held-out sample invalid_syntax) and GRPO with no informative group; 96 tasks for 300 steps
    // wrote valid code for 69-84% of held-out samples. 256 tasks for 400 steps (~50 epochs of
    // ~8 steps of 32k tokens) give the policy more to generalise from at the same number of
    // epochs per task as the 96-task run's first 150 steps.
    o.train_tasks = 256;
    // GRPO's pool: 40 new tasks (at seed 0, 84% of the tasks after the first 256 share a pattern
    // with an SFT task at other shapes, scalars, dtype or template, and 40% have an SFT task's
    // solution up to its docstring) and 8 of the SFT tasks, so that the SFT policy solves some
    // of its samples and not all: a group then has rewards to compare (docs/demo.md).
    o.rl_tasks = 40;
    o.rl_sft_tasks = 8;
    o.heldout_tasks = 8;
    o.level1_tasks = 10;
    // The RL and held-out tasks are verified on the scored variant; the SFT-only ones are not
    // (~0.6 s a task: 248 of them would be ~145 s; no solution failed in ~200 verified on the
    // H200 so far). --sft-verify-variants small|medium checks them too.
    o.sft_verify_variants = {"none"};
    o.k = 4;
    o.max_new_tokens = 1024;
    o.prompts_per_batch = 32;
    o.sft.max_steps = 400;
    o.sft.lr = 1e-3;
    o.sft.warmup = 10;
    o.sft.max_tokens = 2048;
    o.sft.batch_tokens = 32768;
    // 3 steps of 4 tasks x 8 rollouts, DAPO dynamic sampling up to 2 rounds a step: with
    // --ablation (three modes, two seeds each: six GRPO runs) the demo stays near 450 s by the
    // estimate of docs/demo.md; lr 1e-4: see DemoGrpoDefaults.
    o.grpo.steps = 3;
    o.grpo.group = 8;
    o.grpo.tasks_per_step = 4;
    o.grpo.max_sample_rounds = 2;
    o.grpo.lr = 1e-4;
    o.grpo.max_new_tokens = 1024;
    // One variant: the first H200 run scored all three and spent 95% of its time scoring, the
    // large variants (hundreds of MB a tensor) most of it (bench/RESULTS.md: H200, 2026-12-02,
    // 8a8599b).
    o.variants = {"medium"};
    // With --ablation, each mode at two GRPO seeds (a spread beside each mode's pass@1).
    if (!c.ablation.empty()) o.ablation_seeds = 2;
  }
  o.learning.on = c.learning || (c.gpu && !c.no_learning);
  if (o.learning.on && c.gpu) LearningGpuPreset(o);
  if (o.learning.on) {  // correctness only, as E1: R_speedup is 0, the reward A(R_correct)
    o.grpo.mode = "uniform";
    o.grpo.timing = false;
  }
  return o;
}

int RunDemoCommand(const DemoCli& c) {
  d::DemoOptions o = Preset(c);
  o.out = c.out;
  o.suite = c.suite;
  if (c.verify) o.verify_synth = true;
  if (c.no_verify) o.verify_synth = false;
  o.timing = o.timing || c.timing;
  if (c.model) o.model = *c.model;
  if (c.device) o.device = *c.device;
  if (c.eval_device) o.eval_device = *c.eval_device;
  if (c.mode) o.grpo.mode = *c.mode;
  if (c.seed) o.seed = *c.seed;
  if (c.train_tasks) o.train_tasks = *c.train_tasks;
  if (c.rl_tasks) o.rl_tasks = *c.rl_tasks;
  if (c.rl_sft_tasks) o.rl_sft_tasks = *c.rl_sft_tasks;
  if (c.sft_verify_variants) o.sft_verify_variants = *c.sft_verify_variants;
  if (c.heldout_tasks) o.heldout_tasks = *c.heldout_tasks;
  if (c.level1_tasks) o.level1_tasks = *c.level1_tasks;
  if (c.k) o.k = *c.k;
  if (c.jobs) o.jobs = *c.jobs;
  if (c.prestart_workers) o.prestart_workers = *c.prestart_workers;
  if (c.max_new_tokens) o.max_new_tokens = o.grpo.max_new_tokens = *c.max_new_tokens;
  if (c.sft_steps) o.sft.max_steps = *c.sft_steps;
  if (c.grpo_steps) o.grpo.steps = *c.grpo_steps;
  if (c.group) o.grpo.group = *c.group;
  if (c.tasks_per_step) o.grpo.tasks_per_step = *c.tasks_per_step;
  if (c.max_sample_rounds) o.grpo.max_sample_rounds = *c.max_sample_rounds;
  if (c.sft_lr) o.sft.lr = *c.sft_lr;
  if (c.grpo_lr) o.grpo.lr = *c.grpo_lr;
  if (!c.variants.empty()) o.variants = c.variants;
  o.ablation_modes = c.ablation;
  if (c.ablation_seeds) o.ablation_seeds = *c.ablation_seeds;
  if (c.warmup_steps) o.grpo.warmup_steps = *c.warmup_steps;
  if (c.calibrate_k) o.learning.calibrate_k = *c.calibrate_k;
  if (c.pool_k) o.learning.pool_k = *c.pool_k;
  if (c.pool_min) o.learning.pool_min = *c.pool_min;
  if (c.resamples) o.learning.resamples = *c.resamples;
  o.learning.pool_all_candidates = c.pool_all;

  auto r = d::RunDemo(o, [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  });
  if (!r.ok()) {
    std::fprintf(stderr, "tritonrl demo: %s\n(the outputs of the finished stages are kept in %s)\n",
                 r.status().message().c_str(), o.out.c_str());
    return 2;
  }
  fmt::print("\n{:<10} {:<20} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8}\n", "task set",
             "policy", "pass@1", fmt::format("pass@{}", o.k), "valid", "correct", "inv.syn",
             "inv.func", "incorr.", "correct");
  for (const auto& e : r->evals) {
    const auto& s = e.summary;
    fmt::print(
        "{:<10} {:<20} {:>7.3f} {:>7.3f} {:>7.3f} {:>7.3f} {:>8.3f} {:>8.3f} {:>8.3f} "
        "{:>8.3f}\n",
        e.suite, e.stage, s.pass_at_1, s.pass_at_k, s.valid_rate, s.correct_rate,
        s.shares.invalid_syntax_share, s.shares.invalid_functionality_share, s.shares.other_share,
        s.shares.correct_share);
  }
  if (r->learning && r->learning->paired) {
    const auto& p = *r->learning->paired;
    fmt::print(
        "\nRL pool, {} tasks: control (SFT weights) -> GRPO, k={}, 95% bootstrap intervals\n",
        p.tasks.size(), o.learning.pool_k);
    for (const auto& m : p.metrics) {
      fmt::print(
          "{:<22} {:.3f} [{:.3f}, {:.3f}] -> {:.3f} [{:.3f}, {:.3f}]  {:+.3f} [{:+.3f}, {:+.3f}]\n",
          m.metric, m.run.before.estimate, m.run.before.low, m.run.before.high,
          m.run.after.estimate, m.run.after.low, m.run.after.high, m.run.difference.estimate,
          m.run.difference.low, m.run.difference.high);
    }
    const auto& sel = r->learning->selection;
    if (sel.take_all || !sel.meets_minimum) {
      fmt::print("WARNING: {}\n", sel.take_all ? "the pool is every candidate (smoke test)"
                                               : fmt::format("the pool has {} tasks, fewer than "
                                                             "the design's {}",
                                                             sel.pool.size(), sel.minimum));
    }
  }
  double total = 0;
  for (const auto& [name, s] : r->stage_seconds) total += s;
  fmt::print("\ndemo: finished in {:.0f} s; report at {}\n", total, r->report);
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"demo",
     "Synthetic tasks -> SFT -> GRPO (HRD), evaluated before and after each stage; HTML report",
     [](CLI::App& sub) -> tritonrl::cli::CommandAction {
       auto c = std::make_shared<DemoCli>();
       auto* gpu =
           sub.add_flag("--gpu", c->gpu,
                        "The H200 size: builtin:small on cuda, compiled kernels (docs/demo.md)");
       sub.add_flag("--quick", c->quick, "The CI test size (every stage, minimal work)")
           ->excludes(gpu);
       sub.add_option("--out", c->out, "Output folder")->capture_default_str();
       sub.add_option("--suite", c->suite, "Built-in suite (its level1/ is evaluated)")
           ->capture_default_str();
       sub.add_option("--model", c->model, "builtin:tiny (default), builtin:small or a directory");
       sub.add_option("--device", c->device, "Policy device (default cpu; --gpu: cuda)");
       sub.add_option("--eval-device", c->eval_device,
                      "Scoring device: cpu (Triton interpreter) or cuda");
       sub.add_option("--seed", c->seed, "Tasks, weights, data order and sampling");
       sub.add_option("--train-tasks", c->train_tasks, "Synthetic SFT tasks");
       sub.add_option("--rl-tasks", c->rl_tasks,
                      "Further synthetic training-split tasks for GRPO only (none an SFT task)");
       sub.add_option("--rl-sft-tasks", c->rl_sft_tasks,
                      "SFT tasks also put into GRPO's pool (default 0; --gpu: 8)");
       sub.add_option("--heldout-tasks", c->heldout_tasks, "Synthetic held-out tasks");
       sub.add_option("--level1-tasks", c->level1_tasks, "Level-1 tasks evaluated (0: all)");
       sub.add_option("--k", c->k, "Samples per task in each evaluation");
       sub.add_option("--max-new-tokens", c->max_new_tokens,
                      "Response length cap (evaluation and GRPO)");
       sub.add_option("--sft-steps", c->sft_steps, "SFT optimizer steps");
       sub.add_option("--sft-lr", c->sft_lr, "SFT peak learning rate");
       sub.add_option("--grpo-steps", c->grpo_steps, "GRPO steps");
       sub.add_option("--group", c->group, "GRPO rollouts per task");
       sub.add_option("--tasks-per-step", c->tasks_per_step, "GRPO tasks per step");
       sub.add_option("--max-sample-rounds", c->max_sample_rounds,
                      "GRPO dynamic sampling: rounds a step may take to find --tasks-per-step "
                      "groups with non-constant rewards (default 1; --gpu: 2)")
           ->check(CLI::PositiveNumber);
       sub.add_option("--grpo-lr", c->grpo_lr, "GRPO learning rate");
       sub.add_option("--mode", c->mode, "GRPO advantages: hrd (default), uniform or binary");
       sub.add_option("--ablation", c->ablation,
                      "Comma-separated further GRPO modes, each run from the same SFT checkpoint "
                      "and evaluated on the held-out tasks (e.g. uniform,binary)")
           ->delimiter(',')
           ->check(CLI::IsMember({"hrd", "uniform", "binary"}));
       sub.add_option("--ablation-seeds", c->ablation_seeds,
                      "GRPO seeds per mode (seed, seed+1, ...: rollout sampling and task order); "
                      "runs after the first are evaluated on the held-out tasks (default 1; --gpu "
                      "with --ablation: 2)")
           ->check(CLI::PositiveNumber);
       sub.add_option("--jobs", c->jobs, "Scoring worker processes");
       sub.add_option("--prestart-workers", c->prestart_workers,
                      "Scoring workers started ahead of their samples: -1 one per job, 0 off "
                      "(default -1; --gpu: 0)");
       sub.add_option("--variants", c->variants,
                      "Comma-separated task variants scored (default: cpu small; --gpu medium)")
           ->delimiter(',');
       sub.add_flag("--timing", c->timing, "Time correct samples (GPU scoring only)");
       auto* verify = sub.add_flag("--verify-synth", c->verify,
                                   "Check each synthetic solution with our evaluator first "
                                   "(default with --gpu)");
       sub.add_flag("--no-verify-synth", c->no_verify,
                    "Keep synthetic tasks without checking their solutions")
           ->excludes(verify);
       sub.add_option("--sft-verify-variants", c->sft_verify_variants,
                      "With --verify-synth, the variants the SFT-only tasks are checked on "
                      "(comma-separated; none: not checked; default: --variants; --gpu: none)")
           ->delimiter(',');
       auto* learning = sub.add_flag(
           "--learning", c->learning,
           "The learning experiment (docs/demo.md): calibrate the SFT policy on the RL tasks, GRPO "
           "on those it solves sometimes, the control and GRPO evaluated on that pool, paired by "
           "task with bootstrap intervals; stages resume from their outputs (default with --gpu)");
       sub.add_flag("--no-learning", c->no_learning,
                    "With --gpu: the earlier pipeline (base/SFT/GRPO evaluated on held-out and "
                    "level-1 tasks; --ablation)")
           ->excludes(learning);
       sub.add_option("--calibrate-k", c->calibrate_k,
                      "Learning: calibration samples per RL candidate (default 8)")
           ->check(CLI::PositiveNumber);
       sub.add_option("--pool-k", c->pool_k,
                      "Learning: samples per pool task in each evaluation (default 16; --gpu 8)")
           ->check(CLI::PositiveNumber);
       sub.add_option("--pool-min", c->pool_min,
                      "Learning: the design's smallest pool; a smaller one is reported as missing "
                      "the design (default 32)");
       sub.add_flag("--pool-all-candidates", c->pool_all,
                    "Learning, SMOKE TEST ONLY: every candidate is the pool (at the CPU sizes the "
                    "policy solves nothing); the report says these numbers are not the experiment");
       sub.add_option("--resamples", c->resamples,
                      "Learning: bootstrap resamples of the tasks (default 10000)")
           ->check(CLI::PositiveNumber);
       sub.add_option("--warmup-steps", c->warmup_steps, "GRPO learning-rate warm-up steps");
       return [c]() { return RunDemoCommand(*c); };
     }});

}  // namespace

#endif  // TRITONRL_HAVE_DEMO
