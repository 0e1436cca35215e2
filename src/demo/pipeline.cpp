#include "demo/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "data/sft.h"
#include "data/synth.h"
#include "data/verified.h"
#include "demo/calibrate.h"
#include "demo/context.h"
#include "metrics/paired.h"
#include "report/demo_report.h"
#include "task/task.h"
#include "train/grpo.h"
#include "train/sft.h"

namespace tritonrl::demo {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Status InStage(const std::string& stage, const Status& s) {
  return WithContext("stage " + stage, s);
}

Status MakeDirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(dir.string() + ": cannot create: " + ec.message());
  return Status::Ok();
}

struct DrawnTasks {
  std::vector<data::SynthTask> sft, rl, heldout;
};

// The first `sft` + `rl` training-split and `heldout` held-out tasks of the smallest draw that
// has them (generation is cheap and deterministic; a larger draw extends a smaller one). SFT
// takes the first `sft` training-split tasks and RL the next `rl`: one generator stream keeps
// the SFT tasks of a given seed the same whatever `rl` is. A task whose file equals one already
// kept is skipped: an RL task identical to an SFT task would be a memorised one.
Result<DrawnTasks> DrawTasks(int sft, int rl, int heldout, uint64_t seed) {
  const int train = sft + rl;
  for (int n = 8 * (train + heldout); n <= 65536; n *= 2) {
    DrawnTasks d;
    std::set<std::string> seen;
    for (auto& t : data::GenerateTasks(n, seed)) {
      if (!seen.insert(t.reference).second) continue;
      if (t.split != "train") {
        if (static_cast<int>(d.heldout.size()) < heldout) d.heldout.push_back(std::move(t));
      } else if (static_cast<int>(d.sft.size()) < sft) {
        d.sft.push_back(std::move(t));
      } else if (static_cast<int>(d.rl.size()) < rl) {
        d.rl.push_back(std::move(t));
      }
    }
    if (static_cast<int>(d.sft.size()) == sft && static_cast<int>(d.rl.size()) == rl &&
        static_cast<int>(d.heldout.size()) == heldout) {
      return d;
    }
  }
  return Status::InvalidArgument(
      fmt::format("cannot draw {} SFT, {} RL and {} held-out synthetic tasks", sft, rl, heldout));
}

// A `data synth`-layout folder (tasks/, solutions/, manifest.jsonl) of `tasks`; the manifest
// marks the ids in `verified` as verified.
Status WriteSynthFolder(const std::string& dir, const std::vector<data::SynthTask>& tasks,
                        const std::set<std::string>& verified) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  TRITONRL_RETURN_IF_ERROR(MakeDirs(fs::path(dir) / "tasks"));
  TRITONRL_RETURN_IF_ERROR(MakeDirs(fs::path(dir) / "solutions"));
  std::string manifest;
  for (const auto& t : tasks) {
    TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(dir + "/tasks/" + t.id + ".py", t.reference));
    TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(dir + "/solutions/" + t.id + ".py", t.solution));
    manifest += data::ManifestRecord(t, verified.count(t.id) > 0).dump() + "\n";
  }
  return WriteFileAtomic(dir + "/manifest.jsonl", manifest);
}

// `variants`: the variants run; null: the demo's (o.variants).
scoring::ScoringConfig ScorerConfig(const DemoOptions& o, const std::string& tasks,
                                    const std::string& db,
                                    const std::vector<std::string>* variants = nullptr) {
  scoring::ScoringConfig c;
  c.tasks = tasks;
  c.db = db;
  c.device = o.eval_device;
  c.jobs = o.jobs;
  c.prestart_workers = o.prestart_workers;
  c.no_timing = !o.timing;
  c.variants = variants ? *variants : o.variants;
  return c;
}

Result<std::unique_ptr<scoring::Scorer>> OpenScorer(
    const DemoOptions& o, const std::string& tasks, const std::string& db,
    const std::vector<std::string>* variants = nullptr) {
  return scoring::Scorer::Open(ScorerConfig(o, tasks, db, variants));
}

// GRPO's pool: the new RL tasks, then `from_sft` SFT tasks spread evenly over the SFT list
// (families are drawn in turn, so a stride mixes them).
std::vector<data::SynthTask> RlPool(const std::vector<data::SynthTask>& rl,
                                    const std::vector<data::SynthTask>& sft, int from_sft) {
  std::vector<data::SynthTask> pool = rl;
  const size_t n = sft.size(), m = static_cast<size_t>(std::max(0, from_sft));
  for (size_t i = 0; i < m && n > 0; ++i) pool.push_back(sft[i * n / m]);
  return pool;
}

Status WriteRecords(const std::string& folder, const std::string& out, size_t* count) {
  int skipped = 0;
  auto records = data::RecordsFromFolder(folder, &skipped);
  if (!records.ok()) return records.status();
  std::string text;
  for (const auto& r : *records) text += r.ToJson().dump() + "\n";
  *count = records->size();
  return WriteFileAtomic(out, text);
}

json StageEvalJson(const StageEval& e) {
  json j = SummaryJson(e.summary);
  j["stage"] = e.stage;
  j["suite"] = e.suite;
  j["jsonl"] = e.jsonl;
  j["run_id"] = e.run_id;
  j["policy"] = e.policy;
  j["generate_seconds"] = e.generate_seconds;
  j["score_seconds"] = e.score_seconds;
  return j;
}

report::DemoEvalRow ReportRow(const StageEval& e) {
  const EvalSummary& s = e.summary;
  report::DemoEvalRow r;
  r.stage = e.stage;
  r.suite = e.suite;
  r.tasks = s.tasks;
  r.samples = s.samples;
  r.k = s.k;
  r.pass_at_1 = s.pass_at_1;
  r.pass_at_k = s.pass_at_k;
  r.valid_rate = s.valid_rate;
  r.compiled_rate = s.compiled_rate;
  r.correct_rate = s.correct_rate;
  r.fast1_rate = s.fast1_rate;
  r.invalid_syntax = s.shares.invalid_syntax_share;
  r.invalid_functionality = s.shares.invalid_functionality_share;
  r.incorrect = s.shares.other_share;
  r.correct = s.shares.correct_share;
  r.truncated = s.truncated;
  r.run_id = e.run_id;
  return r;
}

json StepJson(const train::GrpoStepMetrics& m) {
  return {{"step", m.step},
          {"reward_correct", m.reward_correct},
          {"reward_speedup", m.reward_speedup},
          {"valid_rate", m.valid_rate},
          {"compiled_rate", m.compiled_rate},
          {"correct_rate", m.correct_rate},
          {"fast1_rate", m.fast1_rate},
          {"mean_speedup", m.mean_speedup},
          {"response_tokens", m.response_tokens},
          {"entropy", m.entropy},
          {"clip_fraction", m.clip_fraction},
          {"kl", m.kl},
          {"gen_tokens_per_second", m.gen_tokens_per_second},
          {"gen_seconds", m.gen_seconds},
          {"score_seconds", m.score_seconds},
          {"update_seconds", m.update_seconds},
          {"truncated", m.truncated},
          {"filtered_groups", m.filtered_groups},
          {"sampled_groups", m.sampled_groups},
          {"informative_groups", m.informative_groups},
          {"rounds", m.rounds}};
}

// A GRPO run's groups over its steps (the step metrics summed).
struct GroupCounts {
  int64_t filtered = 0, sampled = 0, informative = 0, rounds = 0;
};

// One mode's held-out pass@1 over its GRPO seeds.
struct Spread {
  std::vector<uint64_t> seeds;
  std::vector<double> values;
  double mean = 0, sd = 0, min = 0, max = 0;  // sd: the sample standard deviation (0 for one)
};

Spread SpreadOf(const std::string& mode, const std::vector<GrpoRun>& runs) {
  Spread s;
  for (const GrpoRun& run : runs) {
    if (run.mode != mode) continue;
    s.seeds.push_back(run.seed);
    s.values.push_back(run.heldout_pass_at_1);
  }
  if (s.values.empty()) return s;
  const double n = static_cast<double>(s.values.size());
  for (double v : s.values) s.mean += v / n;
  double ss = 0;
  for (double v : s.values) ss += (v - s.mean) * (v - s.mean);
  s.sd = s.values.size() > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  s.min = *std::min_element(s.values.begin(), s.values.end());
  s.max = *std::max_element(s.values.begin(), s.values.end());
  return s;
}

json AblationJson(const std::vector<std::string>& modes, const std::vector<GrpoRun>& runs) {
  json j = json::object();
  for (const std::string& mode : modes) {
    const Spread s = SpreadOf(mode, runs);
    if (s.values.empty()) continue;
    j[mode] = {{"seeds", s.seeds}, {"heldout_pass_at_1", s.values},
               {"mean", s.mean},   {"sd", s.sd},
               {"min", s.min},     {"max", s.max}};
  }
  return j;
}

// The held-out pass@1 of every GRPO run per mode and seed, and what the spread allows to say.
std::string RunsNote(const DemoOptions& o, const std::vector<std::string>& modes,
                     const std::vector<GrpoRun>& runs, size_t heldout_tasks) {
  std::vector<Spread> spreads;
  for (const std::string& mode : modes) spreads.push_back(SpreadOf(mode, runs));
  std::string line =
      o.ablation_modes.empty()
          ? fmt::format("GRPO ({}) from the same SFT checkpoint with {} seeds:", o.grpo.mode,
                        o.ablation_seeds)
          : fmt::format(
                "Ablation, GRPO from the same SFT checkpoint at equal steps, {} seed{} per mode "
                "(rollout sampling and task order):",
                o.ablation_seeds, o.ablation_seeds > 1 ? "s" : "");
  line += " held-out pass@1";
  for (size_t i = 0; i < modes.size(); ++i) {
    const Spread& s = spreads[i];
    if (s.values.empty()) continue;
    line += fmt::format("{} {}", i ? ";" : "", modes[i]);
    for (size_t j = 0; j < s.values.size(); ++j) {
      line += fmt::format("{} {:.3f} (seed {})", j ? "," : "", s.values[j], s.seeds[j]);
    }
    if (s.values.size() > 1) {
      line +=
          fmt::format(", mean {:.3f} sd {:.3f}, range {:.3f}-{:.3f}", s.mean, s.sd, s.min, s.max);
    }
  }
  line += fmt::format(". One sample moves pass@1 by {:.3f} ({} tasks x k={}).",
                      1.0 / static_cast<double>(std::max<size_t>(1, heldout_tasks) * o.k),
                      heldout_tasks, o.k);
  if (modes.size() > 1 && o.ablation_seeds > 1) {
    std::string above;
    for (size_t i = 0; i < modes.size(); ++i) {
      bool clear = !spreads[i].values.empty();
      for (size_t j = 0; j < modes.size() && clear; ++j) {
        if (j != i && !spreads[j].values.empty()) clear = spreads[i].min > spreads[j].max;
      }
      if (clear) above = modes[i];
    }
    line += above.empty()
                ? " The modes' ranges over the seeds overlap: this run does not rank them."
                : " " + above + "'s lowest seed is above every other mode's highest.";
  } else if (modes.size() > 1) {
    line +=
        " One seed per mode: a difference of a few samples can be the seed's doing "
        "(--ablation-seeds gives each mode a spread).";
  }
  return line;
}

// What the numbers say, in words; never more than they show.
std::vector<std::string> Notes(const DemoOptions& o, const DemoResult& r,
                               const std::vector<std::string>& modes, const train::SftSummary& sft,
                               const train::GrpoSummary& grpo, const GroupCounts& groups) {
  std::vector<std::string> notes;
  for (const char* suite : {"heldout", "level1"}) {
    std::string line = std::string(suite == std::string("heldout") ? "Held-out synthetic tasks"
                                                                   : "Built-in level 1") +
                       ": pass@1";
    int64_t correct = 0, samples = 0, truncated = 0;
    double invalid_first = -1, invalid_last = -1;
    for (const auto& e : r.evals) {
      if (e.suite != suite) continue;
      line += fmt::format(" {} {:.3f}", e.stage, e.summary.pass_at_1);
      correct += static_cast<int64_t>(e.summary.shares.correct);
      samples += e.summary.samples;
      truncated += e.summary.truncated;
      const double invalid =
          e.summary.shares.invalid_syntax_share + e.summary.shares.invalid_functionality_share;
      if (invalid_first < 0) invalid_first = invalid;
      if (e.stage.rfind("grpo-", 0) != 0) invalid_last = invalid;  // not an ablation mode
    }
    line += fmt::format("; invalid outputs (syntax + functionality) {:.3f} before, {:.3f} after.",
                        invalid_first, invalid_last);
    if (correct == 0) line += " No sample of any policy was correct.";
    if (truncated > 0) {
      line += fmt::format(" {} of {} responses hit the {}-token limit.", truncated, samples,
                          o.max_new_tokens);
    }
    notes.push_back(line);
  }
  notes.push_back(fmt::format(
      "SFT: {} steps on {} SFT tasks, training loss {:.3f} -> {:.3f}{}.", sft.steps,
      r.train_ids.size(), sft.first_loss, sft.last_loss,
      sft.eval_loss >= 0 ? fmt::format(", held-out loss {:.3f}", sft.eval_loss) : std::string()));
  const size_t unseen = r.rl_ids.size() - r.rl_sft_ids.size();
  notes.push_back(fmt::format(
      "GRPO ({}): {} steps on {} RL tasks ({} that SFT never saw, {} of them of a pattern an SFT "
      "task has; {} SFT tasks), {} tasks per step x {} rollouts at temperature {:g}; rollouts "
      "correct {:.3f} at the first step, {:.3f} at the last; mean R_correct {:.3f} -> {:.3f}; "
      "policy entropy {:.3f} -> {:.3f} nats per token.",
      o.grpo.mode, grpo.steps, r.rl_ids.size(), unseen, r.rl_seen_pattern, r.rl_sft_ids.size(),
      o.grpo.tasks_per_step, o.grpo.group, o.temperature, grpo.first.correct_rate,
      grpo.last.correct_rate, grpo.first.reward_correct, grpo.last.reward_correct,
      grpo.first.entropy, grpo.last.entropy));
  if (r.grpo_runs.size() > 1)
    notes.push_back(RunsNote(o, modes, r.grpo_runs, r.heldout_ids.size()));
  if (groups.filtered > 0) {
    notes.push_back(fmt::format(
        "GRPO skipped {} groups over its {} steps because every rollout of the group earned the "
        "same reward (DAPO filtering: such a group has no advantage to learn from).",
        groups.filtered, grpo.steps));
  }
  if (o.grpo.max_sample_rounds > 1) {
    notes.push_back(fmt::format(
        "Dynamic sampling (up to {} rounds a step): GRPO sampled {} groups in {} rounds over its "
        "{} steps, {} of them informative (non-constant rewards), against {} wanted ({} a step).",
        o.grpo.max_sample_rounds, groups.sampled, groups.rounds, grpo.steps, groups.informative,
        grpo.steps * o.grpo.tasks_per_step, o.grpo.tasks_per_step));
  }
  notes.push_back(
      "A small model trained for minutes learns little: a flat or zero line here is the honest "
      "result at this size, not a failure of the pipeline (docs/demo.md says what to expect).");
  return notes;
}

Status CheckOptions(const DemoOptions& o) {
  if (o.train_tasks < 1 || o.heldout_tasks < 1 || o.k < 1 || o.ablation_seeds < 1 ||
      o.grpo.max_sample_rounds < 1) {
    return Status::InvalidArgument(
        "train_tasks, heldout_tasks, k, ablation_seeds and grpo.max_sample_rounds must be at "
        "least 1");
  }
  if (o.rl_tasks < 0 || o.rl_sft_tasks < 0 || o.rl_sft_tasks > o.train_tasks ||
      o.rl_tasks + o.rl_sft_tasks < 1) {
    return Status::InvalidArgument(
        "rl_tasks and rl_sft_tasks must be >= 0 with at least one RL task, and rl_sft_tasks at "
        "most train_tasks");
  }
  const LearningOptions& l = o.learning;
  if (l.on && (o.rl_sft_tasks != 0 || !o.ablation_modes.empty() || o.ablation_seeds != 1)) {
    return Status::InvalidArgument(
        "the learning experiment calibrates RL candidates SFT never trained on and runs one GRPO "
        "policy: no rl_sft_tasks, ablation modes or further seeds");
  }
  if (l.on && (l.calibrate_k < 1 || l.pool_k < 1 || l.resamples < 1 || l.pool_min < 0)) {
    return Status::InvalidArgument(
        "learning: calibrate_k, pool_k and resamples must be at least 1, pool_min at least 0");
  }
  return Status::Ok();
}

// One demo run: its options, where it writes, what the stages have found so far (the result
// and OUT/eval/summary.json) and the stage clock. The stages below fill it in order.
struct DemoRun {
  DemoRun(const DemoOptions& options, const DemoProgress& p)
      : o(options),
        progress(p),
        out(options.out),
        synth_dir((out / "synth").string()),
        train_dir(synth_dir + "/train"),
        rl_dir(synth_dir + "/rl"),
        heldout_dir(synth_dir + "/heldout"),
        eval_dir((out / "eval").string()),
        calibrate_dir((out / "calibrate").string()),
        pool_dir((out / "pool").string()) {
    r.summary = eval_dir + "/summary.json";
    r.report = (out / "report.html").string();
  }

  const DemoOptions& o;
  DemoProgress progress;
  const fs::path out;
  const std::string synth_dir, train_dir, rl_dir, heldout_dir, eval_dir;
  // The learning experiment's: the calibration (labels, samples, store) and the pool's
  // `data synth`-layout folder with its labels.jsonl (GRPO's tasks).
  const std::string calibrate_dir, pool_dir;
  DemoResult r;
  json summary = {{"evals", json::array()}, {"stage_seconds", json::object()}};
  Clock::time_point t0;
  // The tasks: drawn and verified by the synth stage, loaded for evaluation by the records one.
  std::vector<data::SynthTask> train_tasks, rl_tasks, heldout_tasks;
  std::unique_ptr<scoring::Scorer> heldout_scorer, level1_scorer;
  std::vector<EvalTask> heldout_eval, level1_eval;
  std::unique_ptr<scoring::Scorer> pool_scorer;  // opened by the first pool evaluation that runs
  std::vector<EvalTask> pool_eval;
  std::string train_jsonl, heldout_jsonl;  // SFT records

  Status SaveSummary() { return WriteFileAtomic(r.summary, summary.dump(2) + "\n"); }
  void Begin(const std::string& name, const std::string& what) {
    progress(fmt::format("demo: stage {}: {}", name, what));
    t0 = Clock::now();
  }
  // The stage's time into the result and the summary (saved).
  Status End(const std::string& name, const std::string& what) {
    const double s = Since(t0);
    r.stage_seconds.push_back({name, s});
    summary["stage_seconds"][name] = s;
    progress(fmt::format("demo: stage {} done in {:.1f} s: {}", name, s, what));
    return SaveSummary();
  }
};

// The three task folders (synth/train, rl, heldout); `verified` marks the manifests.
Status WriteSplitFolders(const DemoRun& run, const std::set<std::string>& verified) {
  for (const auto& [dir, tasks] : {std::pair{&run.train_dir, &run.train_tasks},
                                   {&run.rl_dir, &run.rl_tasks},
                                   {&run.heldout_dir, &run.heldout_tasks}}) {
    if (tasks->empty()) return Status::FailedPrecondition(*dir + ": every solution failed");
    TRITONRL_RETURN_IF_ERROR(WriteSynthFolder(*dir, *tasks, verified));
  }
  return Status::Ok();
}

// Checks the drawn solutions with our evaluator (data/verified.h) and drops the tasks whose
// solution fails from every list: the RL pool and the held-out tasks on the variants GRPO and
// the evaluations score, the SFT-only tasks on sft_verify_variants (or not at all). Returns the
// ids verified.
Result<std::set<std::string>> VerifyDrawnTasks(DemoRun& run) {
  const DemoOptions& o = run.o;
  using TaskList = std::vector<data::SynthTask>;
  std::set<std::string> in_rl;
  for (const auto& t : run.rl_tasks) in_rl.insert(t.id);
  TaskList sft_only;
  for (const auto& t : run.train_tasks) {
    if (!in_rl.count(t.id)) sft_only.push_back(t);
  }
  const bool check_sft = !(o.sft_verify_variants.size() == 1 && o.sft_verify_variants[0] == "none");
  const std::vector<std::string>& sft_variants =
      o.sft_verify_variants.empty() ? o.variants : o.sft_verify_variants;
  struct Check {
    const char* what;
    std::string dir, db;
    const TaskList* tasks;
    const std::vector<std::string>* variants;
  };
  std::vector<Check> checks = {
      {"RL", run.rl_dir, run.synth_dir + "/verify_rl.db", &run.rl_tasks, nullptr},
      {"held-out", run.heldout_dir, run.eval_dir + "/heldout.db", &run.heldout_tasks, nullptr}};
  if (check_sft && !sft_only.empty()) {
    checks.push_back(
        {"SFT", run.train_dir, run.synth_dir + "/verify_train.db", &sft_only, &sft_variants});
  }
  std::set<std::string> verified, failed;
  for (const Check& c : checks) {
    // The held-out tasks' verdicts go to the evaluation's store; the others to their own.
    std::unique_ptr<scoring::Scorer> own;
    scoring::Scorer* scorer = run.heldout_scorer.get();
    if (c.dir != run.heldout_dir) {
      auto opened = OpenScorer(o, c.dir + "/tasks", c.db, c.variants);
      if (!opened.ok()) return opened.status();
      own = std::move(opened.value());
      scorer = own.get();
    }
    auto bad = data::RejectedSolutions(*scorer, *c.tasks);
    if (!bad.ok()) return bad.status();
    for (const auto& t : *c.tasks) {
      if (!bad->count(t.id)) verified.insert(t.id);
    }
    for (const auto& [id, why] : *bad) {
      run.progress(fmt::format("demo: synth: dropped {} ({} task; solution failed)", id, c.what));
      failed.insert(id);
    }
  }
  for (TaskList* list : {&run.train_tasks, &run.rl_tasks, &run.heldout_tasks}) {
    std::erase_if(*list, [&](const auto& t) { return failed.count(t.id) > 0; });
  }
  return verified;
}

// The task ids of each split into the result and the summary.
void RecordSplits(DemoRun& run) {
  DemoResult& r = run.r;
  std::set<std::string> sft_ids, sft_patterns;
  for (const auto& t : run.train_tasks) {
    r.train_ids.push_back(t.id);
    sft_ids.insert(t.id);
    sft_patterns.insert(t.pattern);
  }
  for (const auto& t : run.rl_tasks) {
    r.rl_ids.push_back(t.id);
    if (sft_ids.count(t.id)) {
      r.rl_sft_ids.push_back(t.id);
    } else if (sft_patterns.count(t.pattern)) {
      ++r.rl_seen_pattern;
    }
  }
  for (const auto& t : run.heldout_tasks) r.heldout_ids.push_back(t.id);
  run.summary["train_tasks"] = r.train_ids;
  run.summary["rl_tasks"] = r.rl_ids;
  run.summary["rl_sft_tasks"] = r.rl_sft_ids;
  run.summary["rl_seen_pattern_tasks"] = r.rl_seen_pattern;
  run.summary["heldout_tasks"] = r.heldout_ids;
}

// The built-in suite's first level1_tasks tasks of level 1 (suite order).
Status PickLevel1(DemoRun& run) {
  auto suite = task::LoadSuite(run.o.suite);
  if (!suite.ok()) return suite.status();
  for (const auto& t : suite->tasks) {
    if (t.level != 1) continue;
    if (run.o.level1_tasks > 0 && static_cast<int>(run.r.level1_ids.size()) >= run.o.level1_tasks)
      break;
    run.r.level1_ids.push_back(t.id);
  }
  if (run.r.level1_ids.empty()) return Status::NotFound(run.o.suite + ": no level 1 task");
  run.summary["level1_tasks"] = run.r.level1_ids;
  return Status::Ok();
}

// Stage synth: synthetic tasks, split three ways (with rl_sft_tasks, GRPO's pool also holds
// some SFT tasks); solutions checked by our evaluator with verify_synth; level 1 picked.
Status SynthStage(DemoRun& run) {
  const DemoOptions& o = run.o;
  run.Begin(
      "synth",
      fmt::format("{} SFT, {} RL (+{} of the SFT tasks) and {} held-out synthetic tasks (seed {})",
                  o.train_tasks, o.rl_tasks, o.rl_sft_tasks, o.heldout_tasks, o.seed));
  auto drawn = DrawTasks(o.train_tasks, o.rl_tasks, o.heldout_tasks, o.seed);
  if (!drawn.ok()) return drawn.status();
  run.train_tasks = std::move(drawn->sft);
  run.rl_tasks = RlPool(drawn->rl, run.train_tasks, o.rl_sft_tasks);
  run.heldout_tasks = std::move(drawn->heldout);
  TRITONRL_RETURN_IF_ERROR(WriteSplitFolders(run, {}));
  auto heldout_scorer = OpenScorer(o, run.heldout_dir + "/tasks", run.eval_dir + "/heldout.db");
  if (!heldout_scorer.ok()) return heldout_scorer.status();
  run.heldout_scorer = std::move(*heldout_scorer);
  if (o.verify_synth) {
    auto verified = VerifyDrawnTasks(run);
    if (!verified.ok()) return verified.status();
    TRITONRL_RETURN_IF_ERROR(WriteSplitFolders(run, *verified));
  }
  RecordSplits(run);
  TRITONRL_RETURN_IF_ERROR(PickLevel1(run));
  if (!o.learning.on) {  // the learning experiment evaluates the pool only
    auto level1_scorer = OpenScorer(o, o.suite, run.eval_dir + "/level1.db");
    if (!level1_scorer.ok()) return level1_scorer.status();
    run.level1_scorer = std::move(*level1_scorer);
  }
  const DemoResult& r = run.r;
  return run.End("synth",
                 fmt::format("{} SFT, {} RL ({} of them SFT tasks, {} others of an SFT "
                             "task's pattern), {} held-out, {} level-1 tasks",
                             r.train_ids.size(), r.rl_ids.size(), r.rl_sft_ids.size(),
                             r.rl_seen_pattern, r.heldout_ids.size(), r.level1_ids.size()));
}

// Stage records: the SFT records of the training and held-out tasks; the evaluation's tasks.
Status RecordsStage(DemoRun& run) {
  run.Begin("records", "SFT records (prompt template + <think>plan</think> + code)");
  run.train_jsonl = run.synth_dir + "/sft_train.jsonl";
  run.heldout_jsonl = run.synth_dir + "/sft_heldout.jsonl";
  size_t n_train = 0, n_heldout = 0;
  TRITONRL_RETURN_IF_ERROR(WriteRecords(run.train_dir, run.train_jsonl, &n_train));
  TRITONRL_RETURN_IF_ERROR(WriteRecords(run.heldout_dir, run.heldout_jsonl, &n_heldout));
  TRITONRL_RETURN_IF_ERROR(
      run.End("records", fmt::format("{} training, {} held-out records", n_train, n_heldout)));
  auto heldout_eval = LoadEvalTasks(run.heldout_dir + "/tasks", run.r.heldout_ids);
  if (!heldout_eval.ok()) return heldout_eval.status();
  run.heldout_eval = std::move(*heldout_eval);
  auto level1_eval = LoadEvalTasks(run.o.suite, run.r.level1_ids);
  if (!level1_eval.ok()) return level1_eval.status();
  run.level1_eval = std::move(*level1_eval);
  return Status::Ok();
}

// Before/after of two evaluations of the same task set, paired by task: pass@1 and the valid
// share, with 95% bootstrap intervals over tasks.
std::vector<report::DemoComparisonRow> Compare(const StageEval& a, const StageEval& b) {
  std::vector<report::DemoComparisonRow> out;
  for (const std::string metric : {"pass@1", "valid"}) {
    std::vector<metrics::TaskPair> pairs;
    for (size_t i = 0; i < a.per_task.size() && i < b.per_task.size(); ++i) {
      const rl::TaskLabel& x = a.per_task[i];
      const rl::TaskLabel& y = b.per_task[i];
      if (x.task != y.task || x.samples == 0 || y.samples == 0) continue;
      pairs.push_back({x.task, rl::LabelShare(x, metric), rl::LabelShare(y, metric)});
    }
    const metrics::PairedComparison c = metrics::ComparePaired(pairs, {});
    out.push_back({a.suite, a.stage, b.stage, metric, c.tasks, c.before.estimate, c.after.estimate,
                   c.difference.estimate, c.difference.low, c.difference.high});
  }
  return out;
}

// base -> sft and sft -> each GRPO policy, on each task set where both were evaluated.
std::vector<report::DemoComparisonRow> Comparisons(const std::vector<StageEval>& evals) {
  std::vector<report::DemoComparisonRow> out;
  auto find = [&](const std::string& stage, const std::string& suite) -> const StageEval* {
    for (const StageEval& e : evals) {
      if (e.stage == stage && e.suite == suite) return &e;
    }
    return nullptr;
  };
  for (const std::string suite : {"heldout", "level1"}) {
    const StageEval* base = find("base", suite);
    const StageEval* sft = find("sft", suite);
    if (base && sft) {
      for (auto& r : Compare(*base, *sft)) out.push_back(std::move(r));
    }
    if (!sft) continue;
    for (const StageEval& e : evals) {
      if (e.suite != suite || e.stage.rfind("grpo", 0) != 0) continue;
      for (auto& r : Compare(*sft, e)) out.push_back(std::move(r));
    }
  }
  return out;
}

json ComparisonJson(const report::DemoComparisonRow& r) {
  return {
      {"suite", r.suite}, {"from", r.from},     {"to", r.to},       {"metric", r.metric},
      {"tasks", r.tasks}, {"before", r.before}, {"after", r.after}, {"difference", r.difference},
      {"low", r.low},     {"high", r.high}};
}

// The demo's sampling settings for `model`: k samples per task at sampling seed `seed`.
PolicyEvalOptions PolicyOptions(const DemoOptions& o, const std::string& model, int k,
                                uint64_t seed) {
  PolicyEvalOptions po;
  po.model = model;
  po.builtin_seed = o.seed;
  po.device = o.device;
  po.k = k;
  po.max_new_tokens = o.max_new_tokens;
  po.temperature = o.temperature;
  po.seed = seed;
  po.prompts_per_batch = o.prompts_per_batch;
  return po;
}

// One line per sample: the verdict JSON plus the output text, finish reason and tokens.
std::string SampleLines(const PolicyEvalResult& ev, const std::string& stage,
                        const std::string& suite_name) {
  std::string lines;
  for (size_t i = 0; i < ev.verdicts.size(); ++i) {
    json j = scoring::ToJson(ev.verdicts[i]);
    j["stage"] = stage;
    j["suite"] = suite_name;
    j["output"] = ev.generated[i].text;
    j["finish_reason"] = ev.generated[i].finish_reason;
    j["tokens"] = ev.generated[i].tokens;
    lines += j.dump() + "\n";
  }
  return lines;
}

// One policy on one task set: k samples per task at sampling seed `seed`, scored;
// OUT/eval/<stage>_<suite>.jsonl.
Status EvaluateOn(DemoRun& run, const std::string& stage, const std::string& suite_name,
                  const std::vector<EvalTask>& tasks, scoring::Scorer& scorer,
                  const std::string& model, int k, uint64_t seed) {
  const DemoOptions& o = run.o;
  auto ev = EvaluatePolicy(PolicyOptions(o, model, k, seed), tasks, scorer);
  if (!ev.ok()) return ev.status();
  StageEval e;
  e.stage = stage;
  e.suite = suite_name;
  e.jsonl = run.eval_dir + "/" + stage + "_" + suite_name + ".jsonl";
  e.run_id = ev->run_id;
  e.policy = ev->policy;
  e.summary = ev->summary;
  e.generate_seconds = ev->generate_seconds;
  e.score_seconds = ev->score_seconds;
  e.per_task = LabelTasks(tasks, *ev);
  TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(e.jsonl, SampleLines(*ev, stage, suite_name)));
  run.progress(fmt::format(
      "demo: {} on {}: pass@1 {:.3f} pass@{} {:.3f} valid {:.3f} correct "
      "{:.3f} (generate {:.1f} s, score {:.1f} s)",
      stage, suite_name, e.summary.pass_at_1, k, e.summary.pass_at_k, e.summary.valid_rate,
      e.summary.correct_rate, e.generate_seconds, e.score_seconds));
  run.summary["evals"].push_back(StageEvalJson(e));
  run.r.evals.push_back(std::move(e));
  return Status::Ok();
}

// Stage <stage>-eval: the policy on the held-out synthetic tasks and (level1) on level 1.
Status EvaluateStage(DemoRun& run, const std::string& stage, const std::string& model,
                     bool level1 = true) {
  const std::string name = stage + "-eval";
  run.Begin(name, "k=" + std::to_string(run.o.k) + " samples per task from " + model);
  const DemoOptions& o = run.o;
  if (auto s = EvaluateOn(run, stage, "heldout", run.heldout_eval, *run.heldout_scorer, model, o.k,
                          o.seed);
      !s.ok()) {
    return InStage(name, s);
  }
  if (level1) {
    if (auto s = EvaluateOn(run, stage, "level1", run.level1_eval, *run.level1_scorer, model, o.k,
                            o.seed);
        !s.ok()) {
      return InStage(name, s);
    }
  }
  if (auto s = run.End(name, "written to " + run.eval_dir); !s.ok()) return InStage(name, s);
  return Status::Ok();
}

// The SFT options of the demo's SFT stage (the base stage's zero-lr step starts from them).
train::SftOptions SftStageOptions(const DemoRun& run) {
  const DemoOptions& o = run.o;
  train::SftOptions so = o.sft;
  so.model = o.model;
  so.data = run.train_jsonl;
  so.eval_data = run.heldout_jsonl;
  so.out = (run.out / "sft").string();
  so.device = o.device;
  so.seed = o.seed;
  return so;
}

// Stage base: the starting policy. builtin:small's and builtin:mini's tokenizers are learnt from
// the SFT data, so a zero-lr step writes the untrained weights with it; any other model is its
// own base.
Result<std::string> BaseStage(DemoRun& run) {
  if (run.o.model != "builtin:small" && run.o.model != "builtin:mini") return run.o.model;
  run.Begin("base", run.o.model + "'s initial weights and tokenizer (one step at lr 0)");
  train::SftOptions so = SftStageOptions(run);
  so.eval_data.clear();
  so.out = (run.out / "base").string();
  so.max_steps = 1;
  so.lr = 0;
  so.warmup = 0;
  so.progress = false;
  auto b = train::RunSft(so);
  if (!b.ok()) return b.status();
  TRITONRL_RETURN_IF_ERROR(run.End("base", b->checkpoint));
  return b->checkpoint;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

Result<json> ReadJsonFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::ParseError(path + ": not JSON");
  return j;
}

json SftJson(const train::SftSummary& s, const std::string& metrics) {
  return {{"steps", s.steps},
          {"first_loss", s.first_loss},
          {"last_loss", s.last_loss},
          {"eval_loss", s.eval_loss},
          {"checkpoint", s.checkpoint},
          {"best_step", s.best_step},
          {"best_eval_loss", s.best_eval_loss},
          {"best_checkpoint", s.best_checkpoint},
          {"metrics", metrics}};
}

Result<train::SftSummary> SftFromJson(const json& j) {
  try {
    train::SftSummary s;
    s.steps = j.at("steps").get<int64_t>();
    s.first_loss = j.at("first_loss").get<double>();
    s.last_loss = j.at("last_loss").get<double>();
    s.eval_loss = j.at("eval_loss").get<double>();
    s.checkpoint = j.at("checkpoint").get<std::string>();
    s.best_step = j.at("best_step").get<int64_t>();
    s.best_eval_loss = j.at("best_eval_loss").get<double>();
    s.best_checkpoint = j.at("best_checkpoint").get<std::string>();
    return s;
  } catch (const json::exception& e) {
    return Status::ParseError(std::string("SFT summary: ") + e.what());
  }
}

// The SFT policy GRPO starts from: the step with the lowest held-out loss when kept, else the
// last.
std::string SftPolicy(const train::SftSummary& s) {
  return s.best_checkpoint.empty() ? s.checkpoint : s.best_checkpoint;
}

// Stage sft: SFT of the demo's model on the SFT records. The learning experiment resumes it:
// finished (OUT/sft/demo_sft.json) it is read back, interrupted it continues from its last
// checkpoint.
Result<train::SftSummary> SftStage(DemoRun& run) {
  const DemoOptions& o = run.o;
  train::SftOptions so = SftStageOptions(run);
  const std::string done = so.out + "/demo_sft.json";
  const std::string metrics = so.out + "/metrics.jsonl";
  const std::string state = so.out + "/checkpoint/trainer_state.json";
  const bool resume = o.learning.on;
  run.Begin("sft", fmt::format("{} of {} at lr {:g}",
                               o.sft.max_steps > 0 ? fmt::format("{} steps", o.sft.max_steps)
                                                   : fmt::format("{} epochs", o.sft.epochs),
                               o.model, o.sft.lr));
  std::optional<train::SftSummary> sft;
  if (resume && Exists(done)) {
    auto j = ReadJsonFile(done);
    if (!j.ok()) return j.status();
    auto read = SftFromJson(*j);
    if (!read.ok()) return read.status();
    sft = std::move(*read);
    run.progress("demo: sft: finished in an earlier run; read back from " + done);
  } else {
    if (resume && Exists(state)) so.resume = so.out + "/checkpoint";
    auto ran = train::RunSft(so);
    if (!ran.ok()) return ran.status();
    sft = std::move(*ran);
    if (resume) TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(done, SftJson(*sft, metrics).dump(2)));
  }
  run.summary["sft"] = SftJson(*sft, metrics);
  TRITONRL_RETURN_IF_ERROR(run.End(
      "sft", fmt::format("loss {:.4f} -> {:.4f}, held-out loss {:.4f}{}", sft->first_loss,
                         sft->last_loss, sft->eval_loss,
                         sft->best_step > 0 ? fmt::format(", best step {} ({:.4f}) kept",
                                                          sft->best_step, sft->best_eval_loss)
                                            : std::string())));
  return *sft;
}

// One GRPO run of the demo, as run by GrpoStage.
struct GrpoStageResult {
  train::GrpoSummary summary;
  GroupCounts counts;
  std::string steps_log;  // OUT/<stage>_steps.jsonl
};

// A GRPO run's groups over its steps, summed from its steps log (one JSON line a step).
Result<GroupCounts> CountGroups(const std::string& steps_log) {
  auto text = ReadFile(steps_log);
  if (!text.ok()) return text.status();
  GroupCounts c;
  size_t begin = 0;
  while (begin < text->size()) {
    size_t end = text->find('\n', begin);
    if (end == std::string::npos) end = text->size();
    const json j = json::parse(text->substr(begin, end - begin), nullptr, false);
    begin = end + 1;
    if (j.is_discarded() || !j.is_object()) continue;  // a line cut by an interruption
    c.filtered += j.value("filtered_groups", int64_t{0});
    c.sampled += j.value("sampled_groups", int64_t{0});
    c.informative += j.value("informative_groups", int64_t{0});
    c.rounds += j.value("rounds", int64_t{0});
  }
  return c;
}

train::GrpoStepMetrics StepFromJson(const json& j) {
  train::GrpoStepMetrics m;
  m.step = j.value("step", int64_t{0});
  m.reward_correct = j.value("reward_correct", 0.0);
  m.reward_speedup = j.value("reward_speedup", 0.0);
  m.valid_rate = j.value("valid_rate", 0.0);
  m.compiled_rate = j.value("compiled_rate", 0.0);
  m.correct_rate = j.value("correct_rate", 0.0);
  m.entropy = j.value("entropy", 0.0);
  return m;
}

// One GRPO run as the step callback sees it: a line per step into the steps log and one
// progress line.
train::GrpoStepCallback StepWriter(DemoRun& run, const std::string& stage, std::ofstream& log) {
  return [&run, stage, &log](const train::GrpoStepMetrics& m) {
    log << StepJson(m).dump() << "\n" << std::flush;
    run.progress(fmt::format(
        "demo: {} step {}: R_correct {:.3f} valid {:.3f} correct {:.3f} entropy {:.3f} "
        "groups {} informative of {} sampled in {} round{}, {} filtered (generate {:.1f} s, "
        "score {:.1f} s, update {:.1f} s)",
        stage, m.step, m.reward_correct, m.valid_rate, m.correct_rate, m.entropy,
        m.informative_groups, m.sampled_groups, m.rounds, m.rounds == 1 ? "" : "s",
        m.filtered_groups, m.gen_seconds, m.score_seconds, m.update_seconds));
  };
}

// The options of one GRPO run of the demo from `sft_checkpoint` on the tasks of `tasks_dir`.
train::GrpoOptions GrpoRunOptions(const DemoRun& run, const std::string& stage,
                                  const std::string& mode, uint64_t seed,
                                  const std::string& sft_checkpoint, const std::string& tasks_dir) {
  const DemoOptions& o = run.o;
  train::GrpoOptions go = o.grpo;
  go.model = sft_checkpoint;
  go.tasks = tasks_dir;
  go.out = (run.out / stage).string();
  go.device = o.device;
  go.eval_device = o.eval_device;
  go.mode = mode;
  go.temperature = o.temperature;
  go.jobs = o.jobs;
  go.prestart_workers = o.prestart_workers;
  go.variants = o.variants;
  // The rollouts' sampling seed and the task order (the SFT checkpoint fixes the weights).
  go.seed = seed;
  return go;
}

// A finished GRPO run of an earlier demo (the learning experiment resumes), from the stage's
// record OUT/<stage>/demo_stage.json.
Result<GrpoStageResult> FinishedGrpo(DemoRun& run, const std::string& stage,
                                     const std::string& record) {
  auto j = ReadJsonFile(record);
  if (!j.ok()) return j.status();
  GrpoStageResult g;
  try {
    g.summary.steps = j->at("steps").get<int64_t>();
    g.summary.checkpoint = j->at("checkpoint").get<std::string>();
    g.summary.first = StepFromJson(j->at("first"));
    g.summary.last = StepFromJson(j->at("last"));
    g.steps_log = j->at("steps_log").get<std::string>();
  } catch (const json::exception& e) {
    return Status::ParseError(record + ": " + e.what());
  }
  auto counts = CountGroups(g.steps_log);
  if (!counts.ok()) return counts.status();
  g.counts = *counts;
  run.summary[stage] = *j;
  run.progress("demo: " + stage + ": finished in an earlier run; read back from " + record);
  TRITONRL_RETURN_IF_ERROR(run.End(
      stage, fmt::format("{} steps; checkpoint {}", g.summary.steps, g.summary.checkpoint)));
  return g;
}

// Stage <stage>: GRPO in `mode` at `seed` from the SFT checkpoint on the tasks of `tasks_dir`,
// one line per step into OUT/<stage>_steps.jsonl. The learning experiment resumes it: finished
// it is read back, interrupted it continues from its last checkpoint (appending to the log).
Result<GrpoStageResult> GrpoStage(DemoRun& run, const std::string& stage, const std::string& mode,
                                  uint64_t seed, const std::string& sft_checkpoint,
                                  const std::string& tasks_dir) {
  const DemoOptions& o = run.o;
  run.Begin(stage,
            fmt::format("{} steps, {} tasks x {} rollouts (up to {} sampling round{} a step), mode "
                        "{}, seed {}, lr {:g}",
                        o.grpo.steps, o.grpo.tasks_per_step, o.grpo.group, o.grpo.max_sample_rounds,
                        o.grpo.max_sample_rounds == 1 ? "" : "s", mode, seed, o.grpo.lr));
  train::GrpoOptions go = GrpoRunOptions(run, stage, mode, seed, sft_checkpoint, tasks_dir);
  const bool resume = o.learning.on;
  const std::string record = go.out + "/demo_stage.json";
  if (resume && Exists(record)) return FinishedGrpo(run, stage, record);
  if (resume && Exists(go.out + "/checkpoint/trainer_state.json")) {
    go.resume = go.out + "/checkpoint";
  }
  GrpoStageResult g;
  g.steps_log = (run.out / (stage + "_steps.jsonl")).string();
  std::ofstream steps_log(g.steps_log, go.resume.empty() ? std::ios::trunc : std::ios::app);
  if (!steps_log) return Status::IoError(g.steps_log + ": cannot open");
  auto grpo = train::RunGrpo(go, StepWriter(run, stage, steps_log));
  steps_log.close();
  if (!grpo.ok()) return grpo.status();
  g.summary = *grpo;
  auto counts = CountGroups(g.steps_log);
  if (!counts.ok()) return counts.status();
  g.counts = *counts;
  run.summary[stage] = {{"mode", mode},
                        {"seed", seed},
                        {"steps", grpo->steps},
                        {"checkpoint", grpo->checkpoint},
                        {"metrics", go.out + "/metrics.jsonl"},
                        {"steps_log", g.steps_log},
                        {"filtered_groups", g.counts.filtered},
                        {"sampled_groups", g.counts.sampled},
                        {"informative_groups", g.counts.informative},
                        {"rounds", g.counts.rounds},
                        {"first", StepJson(grpo->first)},
                        {"last", StepJson(grpo->last)}};
  if (resume) TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(record, run.summary[stage].dump(2)));
  TRITONRL_RETURN_IF_ERROR(
      run.End(stage, fmt::format("{} steps; checkpoint {}", grpo->steps, grpo->checkpoint)));
  return g;
}

// The demo's GRPO mode first, then each ablation mode (once each).
std::vector<std::string> GrpoModes(const DemoOptions& o) {
  std::vector<std::string> modes = {o.grpo.mode};
  for (const auto& m : o.ablation_modes) {
    if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
  }
  return modes;
}

// GRPO on the RL tasks from the SFT checkpoint: the demo's mode, then each ablation mode at the
// same settings and seed (evaluated on the held-out tasks only); with ablation_seeds > 1 all of
// that again for each further seed, seed-major, so a run cut short still has every mode at the
// first seed. Returns the main run (the demo's mode at the first seed).
Result<GrpoStageResult> GrpoStages(DemoRun& run, const std::vector<std::string>& modes,
                                   const std::string& sft_checkpoint) {
  const DemoOptions& o = run.o;
  std::optional<GrpoStageResult> main;
  run.summary["grpo_runs"] = json::array();
  for (int seed_index = 0; seed_index < o.ablation_seeds; ++seed_index) {
    const uint64_t grpo_seed = o.seed + static_cast<uint64_t>(seed_index);
    for (const std::string& mode : modes) {
      const bool is_main = mode == o.grpo.mode && seed_index == 0;
      const std::string stage = seed_index > 0 ? fmt::format("grpo-{}-seed{}", mode, grpo_seed)
                                : mode == o.grpo.mode ? std::string("grpo")
                                                      : "grpo-" + mode;
      auto grpo = GrpoStage(run, stage, mode, grpo_seed, sft_checkpoint, run.rl_dir);
      if (!grpo.ok()) return InStage(stage, grpo.status());
      TRITONRL_RETURN_IF_ERROR(
          EvaluateStage(run, stage, grpo->summary.checkpoint, /*level1=*/is_main));
      GrpoRun g{stage, mode, grpo_seed, 0};
      for (const auto& e : run.r.evals) {
        if (e.stage == stage && e.suite == "heldout") g.heldout_pass_at_1 = e.summary.pass_at_1;
      }
      run.r.grpo_runs.push_back(g);
      run.summary["grpo_runs"].push_back({{"stage", g.stage},
                                          {"mode", g.mode},
                                          {"seed", g.seed},
                                          {"heldout_pass_at_1", g.heldout_pass_at_1}});
      run.summary["ablation"] = AblationJson(modes, run.r.grpo_runs);
      if (auto s = run.SaveSummary(); !s.ok()) return InStage(stage, s);
      if (is_main) main = std::move(*grpo);
    }
  }
  return std::move(*main);
}

// ---- The learning experiment (LearningOptions; docs/demo.md, "Does GRPO learn?") ----

// A labels file read back in `ids` order; a task missing from it fails.
Result<std::vector<rl::TaskLabel>> LabelsInOrder(const std::string& path,
                                                 const std::vector<std::string>& ids) {
  auto read = rl::ReadTaskLabels(path);
  if (!read.ok()) return read.status();
  std::vector<rl::TaskLabel> out;
  for (const std::string& id : ids) {
    auto it = read->find(id);
    if (it == read->end()) return Status::Corruption(path + ": no label for task " + id);
    out.push_back(it->second);
  }
  return out;
}

// The calibration of the SFT policy on the RL candidates: OUT/calibrate/labels.jsonl (and the
// samples beside it), read back when an earlier run wrote it.
Result<std::vector<rl::TaskLabel>> CalibrationLabels(DemoRun& run, const std::string& policy) {
  const DemoOptions& o = run.o;
  const std::string path = run.calibrate_dir + "/labels.jsonl";
  if (Exists(path)) {
    run.progress("demo: calibrate: finished in an earlier run; read back from " + path);
    return LabelsInOrder(path, run.r.rl_ids);
  }
  TRITONRL_RETURN_IF_ERROR(MakeDirs(run.calibrate_dir));
  auto scorer = OpenScorer(o, run.rl_dir + "/tasks", run.calibrate_dir + "/scores.db");
  if (!scorer.ok()) return scorer.status();
  auto tasks = LoadEvalTasks(run.rl_dir + "/tasks", run.r.rl_ids);
  if (!tasks.ok()) return tasks.status();
  const PolicyEvalOptions po =
      PolicyOptions(o, policy, o.learning.calibrate_k, o.learning.calibrate_seed);
  auto cal = Calibrate(po, *tasks, **scorer);
  if (!cal.ok()) return cal.status();
  TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(run.calibrate_dir + "/samples.jsonl",
                                           SampleLines(cal->eval, "calibrate", "rl")));
  TRITONRL_RETURN_IF_ERROR(rl::WriteTaskLabels(path, cal->labels));
  return cal->labels;
}

// The pool as GRPO's task folder: OUT/pool (`data synth` layout) with its labels.jsonl, which
// GRPO reads beside the tasks.
Status WritePool(const DemoRun& run, const PoolSelection& pool) {
  std::set<std::string> ids;
  for (const rl::TaskLabel& l : pool.pool) ids.insert(l.task);
  std::vector<data::SynthTask> tasks;
  for (const data::SynthTask& t : run.rl_tasks) {
    if (ids.count(t.id)) tasks.push_back(t);
  }
  TRITONRL_RETURN_IF_ERROR(WriteSynthFolder(run.pool_dir, tasks, {}));
  return rl::WriteTaskLabels(run.pool_dir + "/labels.jsonl", pool.pool);
}

json CalibrationJson(const DemoRun& run, const PoolSelection& p) {
  const LearningOptions& l = run.o.learning;
  std::vector<std::string> pool;
  for (const rl::TaskLabel& t : p.pool) pool.push_back(t.task);
  return {{"k", l.calibrate_k},
          {"seed", l.calibrate_seed},
          {"labels", run.calibrate_dir + "/labels.jsonl"},
          {"candidates", run.r.rl_ids.size()},
          {"never", p.never},
          {"sometimes", p.sometimes},
          {"always", p.always},
          {"pool", pool},
          {"pool_tasks", pool.size()},
          {"pool_min", p.minimum},
          {"pool_meets_minimum", p.meets_minimum},
          {"pool_all_candidates", p.take_all}};
}

// Stage calibrate: k samples per RL candidate from the SFT policy; the pool is the candidates it
// solves sometimes (0 < p < 1). A pool under the design's minimum is said in the summary, the
// progress and the report; an empty one stops the demo (GRPO would have nothing to learn from).
Status CalibrateStage(DemoRun& run, const std::string& policy) {
  const LearningOptions& l = run.o.learning;
  run.Begin("calibrate", fmt::format("k={} samples per RL candidate ({}) from {} (seed {})",
                                     l.calibrate_k, run.r.rl_ids.size(), policy, l.calibrate_seed));
  auto labels = CalibrationLabels(run, policy);
  if (!labels.ok()) return labels.status();
  const PoolSelection pool = SelectPool(*labels, l.pool_min, l.pool_all_candidates);
  run.r.learning = LearningResult{*labels, pool, std::nullopt};
  run.summary["learning"]["calibration"] = CalibrationJson(run, pool);
  const std::string counts = fmt::format(
      "{} candidates: {} never solved, {} sometimes, {} always; pool {} task{}{}", labels->size(),
      pool.never, pool.sometimes, pool.always, pool.pool.size(), pool.pool.size() == 1 ? "" : "s",
      pool.take_all ? " (every candidate: --pool-all-candidates, a smoke test)" : "");
  if (pool.pool.empty()) {
    TRITONRL_RETURN_IF_ERROR(run.SaveSummary());
    return Status::FailedPrecondition(counts +
                                      ": no task the SFT policy solves sometimes, so "
                                      "GRPO has nothing to learn from");
  }
  if (!pool.meets_minimum) {
    run.progress(fmt::format(
        "demo: calibrate: WARNING: the pool has {} tasks, fewer than the design's {}: the "
        "comparison below is not the experiment as designed",
        pool.pool.size(), pool.minimum));
  }
  TRITONRL_RETURN_IF_ERROR(WritePool(run, pool));
  return run.End("calibrate", counts);
}

std::vector<std::string> PoolIds(const DemoRun& run) {
  std::vector<std::string> ids;
  for (const rl::TaskLabel& l : run.r.learning->selection.pool) ids.push_back(l.task);
  return ids;
}

// A pool evaluation an earlier run finished, from its record and labels.
Result<StageEval> FinishedPoolEval(const std::string& record, const std::string& labels,
                                   const std::vector<std::string>& ids) {
  auto j = ReadJsonFile(record);
  if (!j.ok()) return j.status();
  auto summary = SummaryFromJson(*j);
  if (!summary.ok()) return summary.status();
  auto per_task = LabelsInOrder(labels, ids);
  if (!per_task.ok()) return per_task.status();
  StageEval e;
  e.stage = j->value("stage", "");
  e.suite = j->value("suite", "");
  e.jsonl = j->value("jsonl", "");
  e.run_id = j->value("run_id", "");
  e.policy = j->value("policy", "");
  e.generate_seconds = j->value("generate_seconds", 0.0);
  e.score_seconds = j->value("score_seconds", 0.0);
  e.summary = *summary;
  e.per_task = std::move(*per_task);
  return e;
}

// Runs the pool evaluation of `stage` (k = pool_k at the evaluation seed) and keeps its record
// and per-task labels beside the samples.
Status RunPoolEval(DemoRun& run, const std::string& stage, const std::string& model,
                   const std::string& record, const std::string& labels) {
  const DemoOptions& o = run.o;
  if (!run.pool_scorer) {
    auto scorer = OpenScorer(o, run.pool_dir + "/tasks", run.eval_dir + "/pool.db");
    if (!scorer.ok()) return scorer.status();
    run.pool_scorer = std::move(*scorer);
    auto tasks = LoadEvalTasks(run.pool_dir + "/tasks", PoolIds(run));
    if (!tasks.ok()) return tasks.status();
    run.pool_eval = std::move(*tasks);
  }
  TRITONRL_RETURN_IF_ERROR(EvaluateOn(run, stage, "pool", run.pool_eval, *run.pool_scorer, model,
                                      o.learning.pool_k, o.learning.eval_seed));
  const StageEval& e = run.r.evals.back();
  TRITONRL_RETURN_IF_ERROR(rl::WriteTaskLabels(labels, e.per_task));
  return WriteFileAtomic(record, StageEvalJson(e).dump(2));
}

// Stage <stage>-eval of the learning experiment: the policy on the pool, k = pool_k samples a
// task at the evaluation seed (the control's and the GRPO policy's alike); read back when an
// earlier run finished it.
Status PoolEvalStage(DemoRun& run, const std::string& stage, const std::string& model) {
  const LearningOptions& l = run.o.learning;
  const std::string name = stage + "-eval";
  run.Begin(name, fmt::format("k={} samples per pool task from {} (seed {})", l.pool_k, model,
                              l.eval_seed));
  const std::string base = run.eval_dir + "/" + stage + "_pool";
  const std::string record = base + ".summary.json", labels = base + ".labels.jsonl";
  if (Exists(record) && Exists(labels)) {
    auto e = FinishedPoolEval(record, labels, PoolIds(run));
    if (!e.ok()) return InStage(name, e.status());
    run.progress("demo: " + name + ": finished in an earlier run; read back from " + record);
    run.summary["evals"].push_back(StageEvalJson(*e));
    run.r.evals.push_back(std::move(*e));
  } else if (auto s = RunPoolEval(run, stage, model, record, labels); !s.ok()) {
    return InStage(name, s);
  }
  if (auto s = run.End(name, "written to " + base + ".jsonl"); !s.ok()) return InStage(name, s);
  return Status::Ok();
}

const StageEval* FindEval(const DemoRun& run, const std::string& stage, const std::string& suite) {
  for (const StageEval& e : run.r.evals) {
    if (e.stage == stage && e.suite == suite) return &e;
  }
  return nullptr;
}

metrics::TaskLabels LabelMap(const std::vector<rl::TaskLabel>& labels) {
  metrics::TaskLabels m;
  for (const rl::TaskLabel& l : labels) m[l.task] = l;
  return m;
}

// Stage paired: the control (before) against the GRPO policy (after) on the pool, paired by task
// (metrics/paired_labels.h, the comparison `tritonrl paired` prints), 95% percentile-bootstrap
// intervals over tasks.
Status PairedStage(DemoRun& run) {
  const LearningOptions& l = run.o.learning;
  run.Begin("paired",
            fmt::format("control against GRPO on the pool, {} bootstrap resamples", l.resamples));
  const StageEval* control = FindEval(run, "control", "pool");
  const StageEval* grpo = FindEval(run, "grpo", "pool");
  if (!control || !grpo) return Status::Internal("the pool evaluations are missing");
  const metrics::TaskLabels before = LabelMap(control->per_task), after = LabelMap(grpo->per_task);
  auto c = metrics::CompareLabels({{"control", &before}, {"grpo", &after}},
                                  {.resamples = l.resamples, .level = 0.95, .seed = run.o.seed});
  if (!c.ok()) return c.status();
  run.r.learning->paired = *c;
  json j = metrics::LabelComparisonJson(*c);
  j["before"] = {{"stage", "control"}, {"policy", control->policy}, {"jsonl", control->jsonl}};
  j["after"] = {{"stage", "grpo"}, {"policy", grpo->policy}, {"jsonl", grpo->jsonl}};
  j["k"] = l.pool_k;
  j["seed"] = l.eval_seed;
  run.summary["learning"]["paired"] = j;
  const metrics::MetricComparison& pass = c->metrics.front();
  return run.End("paired", fmt::format("pool pass@1 {:.3f} -> {:.3f}, difference {:+.3f} "
                                       "[{:+.3f}, {:+.3f}] over {} tasks",
                                       pass.run.before.estimate, pass.run.after.estimate,
                                       pass.run.difference.estimate, pass.run.difference.low,
                                       pass.run.difference.high, c->tasks.size()));
}

// What the learning table's caption and warning say.
report::DemoLearningTable LearningTable(const DemoRun& run) {
  const DemoOptions& o = run.o;
  const LearningOptions& l = o.learning;
  const LearningResult& lr = *run.r.learning;
  const PoolSelection& p = lr.selection;
  report::DemoLearningTable t;
  t.caption = fmt::format(
      "{} pool tasks, of {} RL candidates SFT never trained on, {}; {} samples a task from each "
      "policy at sampling seed {}. Before: the control, the SFT weights (a GRPO run at lr 0 "
      "leaves them byte-identical). After: GRPO ({}, {} steps of {} tasks x {} rollouts, lr {:g} "
      "after {} warm-up steps). Per task the share of its samples; the mean over tasks and its "
      "95% percentile-bootstrap interval over tasks ({} resamples, the same draws for before, "
      "after and the difference). * marks a difference whose interval excludes 0.",
      p.pool.size(), run.r.rl_ids.size(),
      p.take_all ? "all of them (--pool-all-candidates)"
                 : fmt::format("those the SFT policy solved sometimes (0 < p < 1) in {} "
                               "calibration samples each",
                               l.calibrate_k),
      l.pool_k, l.eval_seed, o.grpo.mode, o.grpo.steps, o.grpo.tasks_per_step, o.grpo.group,
      o.grpo.lr, o.grpo.warmup_steps, l.resamples);
  if (p.take_all) {
    t.warning =
        "Smoke test: the pool is every candidate (--pool-all-candidates), not the tasks the SFT "
        "policy solves sometimes. These numbers are not the experiment.";
  } else if (!p.meets_minimum) {
    t.warning = fmt::format(
        "The pool has {} tasks, fewer than the design's minimum of {}: this is not the "
        "experiment as designed (docs/demo.md); more candidates (--rl-tasks) or another SFT "
        "policy would be.",
        p.pool.size(), p.minimum);
  }
  if (!lr.paired) return t;
  for (const metrics::MetricComparison& m : lr.paired->metrics) {
    t.rows.push_back({m.metric, m.run.before.estimate, m.run.before.low, m.run.before.high,
                      m.run.after.estimate, m.run.after.low, m.run.after.high,
                      m.run.difference.estimate, m.run.difference.low, m.run.difference.high});
  }
  return t;
}

// The design's primary criterion (docs/demo.md): pool pass@1 up by at least 0.10, its interval
// excluding 0, and the invalid share down. Each part said as measured.
std::string CriterionNote(const metrics::LabelComparison& c) {
  const metrics::Interval* pass = nullptr;
  const metrics::Interval* invalid = nullptr;
  for (const auto& m : c.metrics) {
    if (m.metric == "pass@1") pass = &m.run.difference;
    if (m.metric == "invalid") invalid = &m.run.difference;
  }
  if (!pass || !invalid) return "";
  const bool rise = pass->estimate >= 0.10, clear = pass->low > 0, fewer = invalid->estimate < 0;
  return fmt::format(
      "The design's criterion: pass@1 up by at least 0.10 ({}: {:+.3f}), its interval excluding "
      "0 ({}: [{:+.3f}, {:+.3f}]), the invalid share falling ({}: {:+.3f}); {}.",
      rise ? "yes" : "no", pass->estimate, clear ? "yes" : "no", pass->low, pass->high,
      fewer ? "yes" : "no", invalid->estimate,
      rise && clear && fewer ? "met" : "not met by this run");
}

// What the learning experiment's numbers say, in words; never more than they show.
std::vector<std::string> LearningNotes(const DemoRun& run, const train::SftSummary& sft,
                                       const train::GrpoSummary& grpo, const GroupCounts& groups) {
  const DemoOptions& o = run.o;
  const LearningResult& lr = *run.r.learning;
  const PoolSelection& p = lr.selection;
  std::vector<std::string> notes;
  notes.push_back(fmt::format(
      "SFT: {} steps on {} SFT tasks, training loss {:.3f} -> {:.3f}{}{}.", sft.steps,
      run.r.train_ids.size(), sft.first_loss, sft.last_loss,
      sft.eval_loss >= 0 ? fmt::format(", held-out loss {:.3f}", sft.eval_loss) : std::string(),
      sft.best_step > 0 ? fmt::format("; the best held-out step ({}, {:.3f}) is the SFT policy",
                                      sft.best_step, sft.best_eval_loss)
                        : std::string()));
  notes.push_back(fmt::format(
      "Calibration: {} RL candidates x {} samples of the SFT policy: {} never solved, {} solved "
      "sometimes, {} always; the pool is {} tasks (the design asks for at least {}).",
      lr.calibration.size(), o.learning.calibrate_k, p.never, p.sometimes, p.always, p.pool.size(),
      p.minimum));
  notes.push_back(fmt::format(
      "GRPO ({}): {} steps of {} tasks x {} rollouts on the pool; mean R_correct {:.3f} at the "
      "first step, {:.3f} at the last; {} of {} sampled groups informative, {} filtered as "
      "constant; policy entropy {:.3f} -> {:.3f} nats per token.",
      o.grpo.mode, grpo.steps, o.grpo.tasks_per_step, o.grpo.group, grpo.first.reward_correct,
      grpo.last.reward_correct, groups.informative, groups.sampled, groups.filtered,
      grpo.first.entropy, grpo.last.entropy));
  if (lr.paired) {
    const std::string criterion = CriterionNote(*lr.paired);
    if (!criterion.empty()) notes.push_back(criterion);
  }
  notes.push_back(fmt::format(
      "One sample moves a task's share by 1/{} and pool pass@1 by {:.4f}; the intervals are over "
      "tasks, so they hold the sampling noise of both evaluations.",
      o.learning.pool_k,
      1.0 / static_cast<double>(std::max<size_t>(1, p.pool.size()) * o.learning.pool_k)));
  return notes;
}

// The report's settings table: what ran, with which options, and each stage's time.
std::vector<std::pair<std::string, std::string>> ReportSettings(
    const DemoRun& run, const std::vector<std::string>& modes) {
  const DemoOptions& o = run.o;
  const DemoResult& r = run.r;
  std::vector<std::pair<std::string, std::string>> settings = {
      {"model", o.model},
      {"policy device", o.device.empty() ? "auto" : o.device},
      {"scoring device", o.eval_device},
      {"seed", std::to_string(o.seed)},
      {"tasks",
       fmt::format(
           "{} SFT, {} RL (GRPO; {} of them SFT tasks), {} held-out synthetic, {} of level 1",
           r.train_ids.size(), r.rl_ids.size(), r.rl_sft_ids.size(), r.heldout_ids.size(),
           r.level1_ids.size())},
      {"SFT tasks", fmt::format("{}", fmt::join(r.train_ids, " "))},
      {"RL tasks", fmt::format("{}", fmt::join(r.rl_ids, " "))},
      {"held-out tasks", fmt::format("{}", fmt::join(r.heldout_ids, " "))},
      {"evaluation", fmt::format("k={}, max_new_tokens={}, temperature {:g}", o.k, o.max_new_tokens,
                                 o.temperature)},
      {"SFT", fmt::format("{} steps, lr {:g}, max_tokens {}", o.sft.max_steps, o.sft.lr,
                          o.sft.max_tokens)},
      {"GRPO",
       fmt::format("{} steps, {} tasks x {} rollouts, up to {} sampling rounds a step, mode {}, "
                   "lr {:g}, temperature {:g}, max_new_tokens {}, seeds {}..{}",
                   o.grpo.steps, o.grpo.tasks_per_step, o.grpo.group, o.grpo.max_sample_rounds,
                   fmt::join(modes, " then "), o.grpo.lr, o.temperature, o.grpo.max_new_tokens,
                   o.seed, o.seed + static_cast<uint64_t>(o.ablation_seeds) - 1)},
      {"outputs", o.out + " (synth/, sft/, grpo/, eval/*.jsonl, eval/summary.json)"},
  };
  if (o.learning.on) {
    const LearningOptions& l = o.learning;
    settings.push_back(
        {"learning experiment",
         fmt::format("calibration k={} (seed {}), pool min {}{}, pool evaluations k={} (seed {}), "
                     "{} bootstrap resamples; GRPO warm-up {} steps, timing {}",
                     l.calibrate_k, l.calibrate_seed, l.pool_min,
                     l.pool_all_candidates ? " (every candidate taken: smoke test)" : "", l.pool_k,
                     l.eval_seed, l.resamples, o.grpo.warmup_steps, o.grpo.timing ? "on" : "off")});
  }
  for (const auto& [name, s] : r.stage_seconds) {
    settings.push_back({"stage " + name, fmt::format("{:.1f} s", s)});
  }
  return settings;
}

// Stage report: OUT/report.html.
Status ReportStage(DemoRun& run, const std::vector<std::string>& modes,
                   const train::SftSummary& sft, const GrpoStageResult& main_grpo) {
  run.Begin("report", run.r.report);
  const bool learning = run.r.learning.has_value();
  report::DemoReportInput in;
  in.title = learning ? "tritonrl demo: synthetic tasks -> SFT -> calibration -> GRPO on the pool, "
                        "against its control"
                      : "tritonrl demo: synthetic tasks -> SFT -> GRPO (HRD)";
  if (learning) in.learning = LearningTable(run);
  for (const auto& e : run.r.evals) in.rows.push_back(ReportRow(e));
  in.comparisons = Comparisons(run.r.evals);
  run.summary["comparisons"] = json::array();
  for (const auto& c : in.comparisons) run.summary["comparisons"].push_back(ComparisonJson(c));
  in.sft_metrics = SftStageOptions(run).out + "/metrics.jsonl";
  in.grpo_metrics = main_grpo.steps_log;
  in.notes = learning ? LearningNotes(run, sft, main_grpo.summary, main_grpo.counts)
                      : Notes(run.o, run.r, modes, sft, main_grpo.summary, main_grpo.counts);
  in.settings = ReportSettings(run, modes);
  auto html = report::RenderDemoReport(in);
  if (!html.ok()) return html.status();
  TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(run.r.report, *html));
  return run.End("report", run.r.report);
}

// The learning experiment after the synth and records stages: SFT, calibration and the pool,
// GRPO on the pool, the control's and the GRPO policy's pool evaluations, the paired comparison,
// the report. Each stage resumes from its outputs.
Result<DemoResult> RunLearning(DemoRun& run) {
  const DemoOptions& o = run.o;
  auto sft = SftStage(run);
  if (!sft.ok()) return InStage("sft", sft.status());
  const std::string policy = SftPolicy(*sft);
  if (auto s = CalibrateStage(run, policy); !s.ok()) return InStage("calibrate", s);
  auto grpo = GrpoStage(run, "grpo", o.grpo.mode, o.seed, policy, run.pool_dir);
  if (!grpo.ok()) return InStage("grpo", grpo.status());
  // The control is the SFT policy itself: at lr 0 GRPO leaves the weights byte-identical
  // (bench/train/learning.sh checks it), so its evaluation at the GRPO policy's seed is the
  // lr-0 run's.
  TRITONRL_RETURN_IF_ERROR(PoolEvalStage(run, "control", policy));
  TRITONRL_RETURN_IF_ERROR(PoolEvalStage(run, "grpo", grpo->summary.checkpoint));
  if (auto s = PairedStage(run); !s.ok()) return InStage("paired", s);
  if (auto s = ReportStage(run, {o.grpo.mode}, *sft, *grpo); !s.ok()) return InStage("report", s);
  return std::move(run.r);
}

}  // namespace

Result<DemoResult> RunDemo(const DemoOptions& o, const DemoProgress& progress) {
  TRITONRL_RETURN_IF_ERROR(CheckOptions(o));
  DemoRun run(
      o, progress ? progress : [](const std::string&) {});
  TRITONRL_RETURN_IF_ERROR(MakeDirs(run.eval_dir));
  if (auto s = SynthStage(run); !s.ok()) return InStage("synth", s);
  if (auto s = RecordsStage(run); !s.ok()) return InStage("records", s);
  if (o.learning.on) return RunLearning(run);
  auto base = BaseStage(run);
  if (!base.ok()) return InStage("base", base.status());
  TRITONRL_RETURN_IF_ERROR(EvaluateStage(run, "base", *base));
  auto sft = SftStage(run);
  if (!sft.ok()) return InStage("sft", sft.status());
  TRITONRL_RETURN_IF_ERROR(EvaluateStage(run, "sft", sft->checkpoint));
  const std::vector<std::string> modes = GrpoModes(o);
  auto main_grpo = GrpoStages(run, modes, sft->checkpoint);
  if (!main_grpo.ok()) return main_grpo.status();
  if (auto s = ReportStage(run, modes, *sft, *main_grpo); !s.ok()) return InStage("report", s);
  return std::move(run.r);
}

}  // namespace tritonrl::demo
