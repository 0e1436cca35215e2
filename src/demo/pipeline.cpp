#include "demo/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
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
#include "demo/context.h"
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
  for (int n = 8 * (train + heldout); n <= 8192; n *= 2) {
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
    manifest +=
        json{{"task", t.id},     {"family", t.family}, {"pattern", t.pattern},
             {"dtype", t.dtype}, {"style", t.style},   {"shape_class", t.shape_class},
             {"split", t.split}, {"plan", t.plan},     {"verified", verified.count(t.id) > 0}}
            .dump() +
        "\n";
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

// Scores each task's own solution; returns the ids whose solution is not correct (or whose task
// the evaluator flags weak: a null model would pass it).
Result<std::set<std::string>> FailedSolutions(scoring::Scorer& scorer,
                                              const std::vector<data::SynthTask>& tasks) {
  std::vector<scoring::Sample> batch;
  for (const auto& t : tasks)
    batch.push_back({t.id, "solution", t.solution, scoring::TextKind::kCode});
  auto r = scorer.Score(batch);
  if (!r.ok()) return r.status();
  std::set<std::string> failed;
  for (const auto& s : r->samples) {
    bool weak = false;
    for (const auto& f : s.flags) weak = weak || f == "weak_task";
    if (!s.correct || weak) failed.insert(s.task);
  }
  if (r->samples.size() != tasks.size()) return Status::Internal("verification incomplete");
  return failed;
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
          ? fmt::format("GRPO ({}) from the same SFT checkpoint with {} seeds:", o.grpo_mode,
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
      o.grpo_mode, grpo.steps, r.rl_ids.size(), unseen, r.rl_seen_pattern, r.rl_sft_ids.size(),
      o.grpo_tasks_per_step, o.grpo_group, o.temperature, grpo.first.correct_rate,
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
  if (o.grpo_max_sample_rounds > 1) {
    notes.push_back(fmt::format(
        "Dynamic sampling (up to {} rounds a step): GRPO sampled {} groups in {} rounds over its "
        "{} steps, {} of them informative (non-constant rewards), against {} wanted ({} a step).",
        o.grpo_max_sample_rounds, groups.sampled, groups.rounds, grpo.steps, groups.informative,
        grpo.steps * o.grpo_tasks_per_step, o.grpo_tasks_per_step));
  }
  notes.push_back(
      "A small model trained for minutes learns little: a flat or zero line here is the honest "
      "result at this size, not a failure of the pipeline (docs/demo.md says what to expect).");
  return notes;
}

}  // namespace

Result<DemoResult> RunDemo(const DemoOptions& o, const DemoProgress& progress_in) {
  const DemoProgress progress = progress_in ? progress_in : [](const std::string&) {};
  if (o.train_tasks < 1 || o.heldout_tasks < 1 || o.k < 1 || o.ablation_seeds < 1 ||
      o.grpo_max_sample_rounds < 1) {
    return Status::InvalidArgument(
        "train_tasks, heldout_tasks, k, ablation_seeds and grpo_max_sample_rounds must be at "
        "least 1");
  }
  if (o.rl_tasks < 0 || o.rl_sft_tasks < 0 || o.rl_sft_tasks > o.train_tasks ||
      o.rl_tasks + o.rl_sft_tasks < 1) {
    return Status::InvalidArgument(
        "rl_tasks and rl_sft_tasks must be >= 0 with at least one RL task, and rl_sft_tasks at "
        "most train_tasks");
  }
  DemoResult r;
  const fs::path out(o.out);
  const std::string synth_dir = (out / "synth").string();
  const std::string train_dir = synth_dir + "/train", rl_dir = synth_dir + "/rl",
                    heldout_dir = synth_dir + "/heldout";
  const std::string eval_dir = (out / "eval").string();
  r.summary = eval_dir + "/summary.json";
  r.report = (out / "report.html").string();
  TRITONRL_RETURN_IF_ERROR(MakeDirs(eval_dir));

  json summary = {{"evals", json::array()}, {"stage_seconds", json::object()}};
  auto save_summary = [&]() { return WriteFileAtomic(r.summary, summary.dump(2) + "\n"); };
  Clock::time_point t0;
  auto begin = [&](const std::string& name, const std::string& what) {
    progress(fmt::format("demo: stage {}: {}", name, what));
    t0 = Clock::now();
  };
  auto end = [&](const std::string& name, const std::string& what) {
    const double s = Since(t0);
    r.stage_seconds.push_back({name, s});
    summary["stage_seconds"][name] = s;
    progress(fmt::format("demo: stage {} done in {:.1f} s: {}", name, s, what));
    return save_summary();
  };

  // ---- synthetic tasks, split three ways (with rl_sft_tasks, GRPO's pool also holds some SFT
  // tasks); solutions checked by our evaluator
  begin(
      "synth",
      fmt::format("{} SFT, {} RL (+{} of the SFT tasks) and {} held-out synthetic tasks (seed {})",
                  o.train_tasks, o.rl_tasks, o.rl_sft_tasks, o.heldout_tasks, o.seed));
  auto drawn = DrawTasks(o.train_tasks, o.rl_tasks, o.heldout_tasks, o.seed);
  if (!drawn.ok()) return InStage("synth", drawn.status());
  auto& [train_tasks, new_rl_tasks, heldout_tasks] = *drawn;
  using TaskList = std::vector<data::SynthTask>;
  TaskList rl_tasks = RlPool(new_rl_tasks, train_tasks, o.rl_sft_tasks);
  std::set<std::string> verified;
  auto write_folders = [&]() -> Status {
    for (const auto& [dir, tasks] : {std::pair{&train_dir, &train_tasks},
                                     {&rl_dir, &rl_tasks},
                                     {&heldout_dir, &heldout_tasks}}) {
      if (tasks->empty()) {
        return Status::FailedPrecondition(*dir + ": every solution failed");
      }
      TRITONRL_RETURN_IF_ERROR(WriteSynthFolder(*dir, *tasks, verified));
    }
    return Status::Ok();
  };
  if (auto s = write_folders(); !s.ok()) return InStage("synth", s);
  auto heldout_scorer = OpenScorer(o, heldout_dir + "/tasks", eval_dir + "/heldout.db");
  if (!heldout_scorer.ok()) return InStage("synth", heldout_scorer.status());
  if (o.verify_synth) {
    // The RL pool and the held-out tasks on the variants GRPO and the evaluations score; the
    // SFT-only tasks on sft_verify_variants (or not at all). A failed SFT task of the RL pool
    // leaves both sets.
    std::set<std::string> in_rl;
    for (const auto& t : rl_tasks) in_rl.insert(t.id);
    TaskList sft_only;
    for (const auto& t : train_tasks) {
      if (!in_rl.count(t.id)) sft_only.push_back(t);
    }
    const bool check_sft =
        !(o.sft_verify_variants.size() == 1 && o.sft_verify_variants[0] == "none");
    const std::vector<std::string>& sft_variants =
        o.sft_verify_variants.empty() ? o.variants : o.sft_verify_variants;
    struct Check {
      const char* what;
      std::string dir, db;
      const TaskList* tasks;
      const std::vector<std::string>* variants;
    };
    std::vector<Check> checks = {
        {"RL", rl_dir, synth_dir + "/verify_rl.db", &rl_tasks, nullptr},
        {"held-out", heldout_dir, eval_dir + "/heldout.db", &heldout_tasks, nullptr}};
    if (check_sft && !sft_only.empty()) {
      checks.push_back(
          {"SFT", train_dir, synth_dir + "/verify_train.db", &sft_only, &sft_variants});
    }
    std::set<std::string> failed;
    for (const Check& c : checks) {
      // The held-out tasks' verdicts go to the evaluation's store; the others to their own.
      std::unique_ptr<scoring::Scorer> own;
      scoring::Scorer* scorer = heldout_scorer->get();
      if (c.dir != heldout_dir) {
        auto opened = OpenScorer(o, c.dir + "/tasks", c.db, c.variants);
        if (!opened.ok()) return InStage("synth", opened.status());
        own = std::move(opened.value());
        scorer = own.get();
      }
      auto bad = FailedSolutions(*scorer, *c.tasks);
      if (!bad.ok()) return InStage("synth", bad.status());
      for (const auto& t : *c.tasks) {
        if (!bad->count(t.id)) verified.insert(t.id);
      }
      for (const auto& id : *bad) {
        progress(fmt::format("demo: synth: dropped {} ({} task; solution failed)", id, c.what));
        failed.insert(id);
      }
    }
    for (TaskList* list : {&train_tasks, &rl_tasks, &heldout_tasks}) {
      std::erase_if(*list, [&](const auto& t) { return failed.count(t.id) > 0; });
    }
    if (auto s = write_folders(); !s.ok()) return InStage("synth", s);
  }
  std::set<std::string> sft_ids, sft_patterns;
  for (const auto& t : train_tasks) {
    r.train_ids.push_back(t.id);
    sft_ids.insert(t.id);
    sft_patterns.insert(t.pattern);
  }
  for (const auto& t : rl_tasks) {
    r.rl_ids.push_back(t.id);
    if (sft_ids.count(t.id)) {
      r.rl_sft_ids.push_back(t.id);
    } else if (sft_patterns.count(t.pattern)) {
      ++r.rl_seen_pattern;
    }
  }
  for (const auto& t : heldout_tasks) r.heldout_ids.push_back(t.id);
  summary["train_tasks"] = r.train_ids;
  summary["rl_tasks"] = r.rl_ids;
  summary["rl_sft_tasks"] = r.rl_sft_ids;
  summary["rl_seen_pattern_tasks"] = r.rl_seen_pattern;
  summary["heldout_tasks"] = r.heldout_ids;
  auto suite = task::LoadSuite(o.suite);
  if (!suite.ok()) return InStage("synth", suite.status());
  for (const auto& t : suite->tasks) {
    if (t.level != 1) continue;
    if (o.level1_tasks > 0 && static_cast<int>(r.level1_ids.size()) >= o.level1_tasks) break;
    r.level1_ids.push_back(t.id);
  }
  if (r.level1_ids.empty()) {
    return InStage("synth", Status::NotFound(o.suite + ": no level 1 task"));
  }
  summary["level1_tasks"] = r.level1_ids;
  auto level1_scorer = OpenScorer(o, o.suite, eval_dir + "/level1.db");
  if (!level1_scorer.ok()) return InStage("synth", level1_scorer.status());
  if (auto s =
          end("synth", fmt::format("{} SFT, {} RL ({} of them SFT tasks, {} others of an SFT "
                                   "task's pattern), {} held-out, {} level-1 tasks",
                                   r.train_ids.size(), r.rl_ids.size(), r.rl_sft_ids.size(),
                                   r.rl_seen_pattern, r.heldout_ids.size(), r.level1_ids.size()));
      !s.ok()) {
    return InStage("synth", s);
  }

  // ---- SFT records
  begin("records", "SFT records (prompt template + <think>plan</think> + code)");
  const std::string train_jsonl = synth_dir + "/sft_train.jsonl";
  const std::string heldout_jsonl = synth_dir + "/sft_heldout.jsonl";
  size_t n_train = 0, n_heldout = 0;
  if (auto s = WriteRecords(train_dir, train_jsonl, &n_train); !s.ok())
    return InStage("records", s);
  if (auto s = WriteRecords(heldout_dir, heldout_jsonl, &n_heldout); !s.ok()) {
    return InStage("records", s);
  }
  if (auto s = end("records", fmt::format("{} training, {} held-out records", n_train, n_heldout));
      !s.ok()) {
    return InStage("records", s);
  }

  auto heldout_eval = LoadEvalTasks(heldout_dir + "/tasks", r.heldout_ids);
  if (!heldout_eval.ok()) return InStage("records", heldout_eval.status());
  auto level1_eval = LoadEvalTasks(o.suite, r.level1_ids);
  if (!level1_eval.ok()) return InStage("records", level1_eval.status());

  auto evaluate = [&](const std::string& stage, const std::string& model,
                      bool level1 = true) -> Status {
    begin(stage + "-eval", "k=" + std::to_string(o.k) + " samples per task from " + model);
    struct Set {
      std::string name;
      const std::vector<EvalTask>* tasks;
      scoring::Scorer* scorer;
    };
    for (const Set& set : {Set{"heldout", &*heldout_eval, heldout_scorer->get()},
                           Set{"level1", &*level1_eval, level1_scorer->get()}}) {
      const std::string& suite_name = set.name;
      if (suite_name == "level1" && !level1) continue;
      PolicyEvalOptions po;
      po.model = model;
      po.builtin_seed = o.seed;
      po.device = o.device;
      po.k = o.k;
      po.max_new_tokens = o.max_new_tokens;
      po.temperature = o.temperature;
      po.seed = o.seed;
      po.prompts_per_batch = o.prompts_per_batch;
      auto ev = EvaluatePolicy(po, *set.tasks, *set.scorer);
      if (!ev.ok()) return InStage(stage + "-eval", ev.status());
      StageEval e;
      e.stage = stage;
      e.suite = suite_name;
      e.jsonl = eval_dir + "/" + stage + "_" + suite_name + ".jsonl";
      e.run_id = ev->run_id;
      e.policy = ev->policy;
      e.summary = ev->summary;
      e.generate_seconds = ev->generate_seconds;
      e.score_seconds = ev->score_seconds;
      std::string lines;
      for (size_t i = 0; i < ev->verdicts.size(); ++i) {
        json j = scoring::ToJson(ev->verdicts[i]);
        j["stage"] = stage;
        j["suite"] = suite_name;
        j["output"] = ev->generated[i].text;
        j["finish_reason"] = ev->generated[i].finish_reason;
        j["tokens"] = ev->generated[i].tokens;
        lines += j.dump() + "\n";
      }
      if (auto s = WriteFileAtomic(e.jsonl, lines); !s.ok()) return InStage(stage + "-eval", s);
      progress(fmt::format(
          "demo: {} on {}: pass@1 {:.3f} pass@{} {:.3f} valid {:.3f} correct "
          "{:.3f} (generate {:.1f} s, score {:.1f} s)",
          stage, suite_name, e.summary.pass_at_1, o.k, e.summary.pass_at_k, e.summary.valid_rate,
          e.summary.correct_rate, e.generate_seconds, e.score_seconds));
      summary["evals"].push_back(StageEvalJson(e));
      r.evals.push_back(std::move(e));
    }
    if (auto s = end(stage + "-eval", "written to " + eval_dir); !s.ok()) {
      return InStage(stage + "-eval", s);
    }
    return Status::Ok();
  };

  // ---- base model (builtin:small's tokenizer is learnt from the SFT data: a zero-lr step
  // writes the untrained weights with it)
  std::string base_model = o.model;
  if (o.model == "builtin:small") {
    begin("base", "builtin:small's initial weights and tokenizer (one step at lr 0)");
    train::SftOptions so;
    so.model = o.model;
    so.data = train_jsonl;
    so.out = (out / "base").string();
    so.device = o.device;
    so.max_steps = 1;
    so.lr = 0;
    so.warmup = 0;
    so.max_tokens = o.sft_max_tokens;
    so.batch_tokens = o.sft_batch_tokens;
    so.seed = o.seed;
    so.progress = false;
    auto b = train::RunSft(so);
    if (!b.ok()) return InStage("base", b.status());
    base_model = b->checkpoint;
    if (auto s = end("base", base_model); !s.ok()) return InStage("base", s);
  }
  TRITONRL_RETURN_IF_ERROR(evaluate("base", base_model));

  // ---- SFT
  begin("sft", fmt::format("{} steps of {} at lr {:g}", o.sft_steps, o.model, o.sft_lr));
  train::SftOptions so;
  so.model = o.model;
  so.data = train_jsonl;
  so.eval_data = heldout_jsonl;
  so.out = (out / "sft").string();
  so.device = o.device;
  so.max_steps = o.sft_steps;
  so.lr = o.sft_lr;
  so.warmup = o.sft_warmup;
  so.max_tokens = o.sft_max_tokens;
  so.batch_tokens = o.sft_batch_tokens;
  so.seed = o.seed;
  auto sft = train::RunSft(so);
  if (!sft.ok()) return InStage("sft", sft.status());
  summary["sft"] = {{"steps", sft->steps},           {"first_loss", sft->first_loss},
                    {"last_loss", sft->last_loss},   {"eval_loss", sft->eval_loss},
                    {"checkpoint", sft->checkpoint}, {"metrics", so.out + "/metrics.jsonl"}};
  if (auto s = end("sft", fmt::format("loss {:.4f} -> {:.4f}, held-out loss {:.4f}",
                                      sft->first_loss, sft->last_loss, sft->eval_loss));
      !s.ok()) {
    return InStage("sft", s);
  }
  TRITONRL_RETURN_IF_ERROR(evaluate("sft", sft->checkpoint));

  // ---- GRPO on the RL tasks (none of them an SFT task) from the SFT checkpoint: the demo's
  // mode, then each ablation mode at the same settings and seed (evaluated on the held-out tasks
  // only); with ablation_seeds > 1 all of that again for each further seed, seed-major, so a run
  // cut short still has every mode at the first seed.
  std::vector<std::string> modes = {o.grpo_mode};
  for (const auto& m : o.ablation_modes) {
    if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
  }
  std::optional<train::GrpoSummary> main_grpo;
  std::string steps_path;
  GroupCounts main_counts;
  summary["grpo_runs"] = json::array();
  for (int seed_index = 0; seed_index < o.ablation_seeds; ++seed_index) {
    const uint64_t grpo_seed = o.seed + static_cast<uint64_t>(seed_index);
    for (const std::string& mode : modes) {
      const bool is_main = mode == o.grpo_mode && seed_index == 0;
      const std::string stage = seed_index > 0 ? fmt::format("grpo-{}-seed{}", mode, grpo_seed)
                                : mode == o.grpo_mode ? std::string("grpo")
                                                      : "grpo-" + mode;
      begin(stage,
            fmt::format("{} steps, {} tasks x {} rollouts (up to {} sampling round{} a step), mode "
                        "{}, seed {}",
                        o.grpo_steps, o.grpo_tasks_per_step, o.grpo_group, o.grpo_max_sample_rounds,
                        o.grpo_max_sample_rounds == 1 ? "" : "s", mode, grpo_seed));
      train::GrpoOptions go;
      go.model = sft->checkpoint;
      go.tasks = rl_dir;
      go.out = (out / stage).string();
      go.device = o.device;
      go.eval_device = o.eval_device;
      go.steps = o.grpo_steps;
      go.group = o.grpo_group;
      go.tasks_per_step = o.grpo_tasks_per_step;
      go.max_sample_rounds = o.grpo_max_sample_rounds;
      go.mode = mode;
      go.lr = o.grpo_lr;
      go.max_new_tokens = o.grpo_max_new_tokens;
      go.temperature = o.temperature;
      go.jobs = o.jobs;
      go.variants = o.variants;
      // The rollouts' sampling seed and the task order (the SFT checkpoint fixes the weights).
      go.seed = grpo_seed;
      const std::string log_path = (out / (stage + "_steps.jsonl")).string();
      std::ofstream steps_log(log_path, std::ios::trunc);
      if (!steps_log) return InStage(stage, Status::IoError(log_path + ": cannot open"));
      GroupCounts counts;
      auto grpo = train::RunGrpo(go, [&](const train::GrpoStepMetrics& m) {
        counts.filtered += m.filtered_groups;
        counts.sampled += m.sampled_groups;
        counts.informative += m.informative_groups;
        counts.rounds += m.rounds;
        steps_log << StepJson(m).dump() << "\n" << std::flush;
        progress(fmt::format(
            "demo: {} step {}: R_correct {:.3f} valid {:.3f} correct {:.3f} entropy {:.3f} "
            "groups {} informative of {} sampled in {} round{}, {} filtered (generate {:.1f} s, "
            "score {:.1f} s, update {:.1f} s)",
            stage, m.step, m.reward_correct, m.valid_rate, m.correct_rate, m.entropy,
            m.informative_groups, m.sampled_groups, m.rounds, m.rounds == 1 ? "" : "s",
            m.filtered_groups, m.gen_seconds, m.score_seconds, m.update_seconds));
      });
      steps_log.close();
      if (!grpo.ok()) return InStage(stage, grpo.status());
      summary[stage] = {{"mode", mode},
                        {"seed", grpo_seed},
                        {"steps", grpo->steps},
                        {"checkpoint", grpo->checkpoint},
                        {"metrics", go.out + "/metrics.jsonl"},
                        {"steps_log", log_path},
                        {"filtered_groups", counts.filtered},
                        {"sampled_groups", counts.sampled},
                        {"informative_groups", counts.informative},
                        {"rounds", counts.rounds},
                        {"first", StepJson(grpo->first)},
                        {"last", StepJson(grpo->last)}};
      if (auto s =
              end(stage, fmt::format("{} steps; checkpoint {}", grpo->steps, grpo->checkpoint));
          !s.ok()) {
        return InStage(stage, s);
      }
      TRITONRL_RETURN_IF_ERROR(evaluate(stage, grpo->checkpoint, /*level1=*/is_main));
      GrpoRun run{stage, mode, grpo_seed, 0};
      for (const auto& e : r.evals) {
        if (e.stage == stage && e.suite == "heldout") run.heldout_pass_at_1 = e.summary.pass_at_1;
      }
      r.grpo_runs.push_back(run);
      summary["grpo_runs"].push_back({{"stage", run.stage},
                                      {"mode", run.mode},
                                      {"seed", run.seed},
                                      {"heldout_pass_at_1", run.heldout_pass_at_1}});
      summary["ablation"] = AblationJson(modes, r.grpo_runs);
      if (auto s = save_summary(); !s.ok()) return InStage(stage, s);
      if (is_main) {
        main_grpo = *grpo;
        steps_path = log_path;
        main_counts = counts;
      }
    }
  }

  // ---- report
  begin("report", r.report);
  report::DemoReportInput in;
  in.title = "tritonrl demo: synthetic tasks -> SFT -> GRPO (HRD)";
  for (const auto& e : r.evals) in.rows.push_back(ReportRow(e));
  in.sft_metrics = so.out + "/metrics.jsonl";
  in.grpo_metrics = steps_path;
  in.notes = Notes(o, r, modes, *sft, *main_grpo, main_counts);
  in.settings = {
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
      {"SFT",
       fmt::format("{} steps, lr {:g}, max_tokens {}", o.sft_steps, o.sft_lr, o.sft_max_tokens)},
      {"GRPO",
       fmt::format("{} steps, {} tasks x {} rollouts, up to {} sampling rounds a step, mode {}, "
                   "lr {:g}, temperature {:g}, max_new_tokens {}, seeds {}..{}",
                   o.grpo_steps, o.grpo_tasks_per_step, o.grpo_group, o.grpo_max_sample_rounds,
                   fmt::join(modes, " then "), o.grpo_lr, o.temperature, o.grpo_max_new_tokens,
                   o.seed, o.seed + static_cast<uint64_t>(o.ablation_seeds) - 1)},
      {"outputs", o.out + " (synth/, sft/, grpo/, eval/*.jsonl, eval/summary.json)"},
  };
  for (const auto& [name, s] : r.stage_seconds) {
    in.settings.push_back({"stage " + name, fmt::format("{:.1f} s", s)});
  }
  auto html = report::RenderDemoReport(in);
  if (!html.ok()) return InStage("report", html.status());
  if (auto s = WriteFileAtomic(r.report, *html); !s.ok()) return InStage("report", s);
  if (auto s = end("report", r.report); !s.ok()) return InStage("report", s);
  return r;
}

}  // namespace tritonrl::demo
