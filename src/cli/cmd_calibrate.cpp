// tritonrl calibrate: the calibration pass of a policy over RL tasks (demo/calibrate.h): k
// samples per task, scored, each task's pass rate written as a difficulty label that
// `train grpo` mixes by level (rl/task_labels.h). Built only with the trainer (libtorch).
#ifdef TRITONRL_HAVE_DEMO

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "data/synth.h"
#include "demo/calibrate.h"
#include "rl/task_labels.h"
#include "scoring/score_batch.h"
#include "task/task.h"

namespace {

namespace fs = std::filesystem;
namespace d = tritonrl::demo;

struct CalibrateCli {
  d::PolicyEvalOptions policy;
  std::string tasks, out, split = "train", db, eval_device = "cpu";
  std::vector<std::string> variants;
  int64_t limit = 0;
  int level = 0;
  int jobs = 2;
  int prestart_workers = -1;
  bool timing = false, quiet_timing = false;
};

// The tasks to calibrate: a `data synth` folder's split (suite DIR/tasks), or a suite's tasks.
tritonrl::Result<std::pair<std::string, std::vector<std::string>>> TaskIds(const CalibrateCli& c) {
  auto folder = tritonrl::data::OpenTaskFolder(c.tasks, c.split);
  if (!folder.ok()) return folder.status();
  const std::string suite = folder->suite_dir;
  std::vector<std::string> ids;
  if (folder->ids) {
    ids = std::move(*folder->ids);
  } else {
    auto s = tritonrl::task::LoadSuite(suite);
    if (!s.ok()) return s.status();
    if (!s->errors.empty()) return tritonrl::Status::ParseError(s->errors.front().ToString());
    for (const auto& t : s->tasks) {
      if (c.level == 0 || t.level.value_or(1) == c.level) ids.push_back(t.id);
    }
  }
  if (c.limit > 0 && static_cast<int64_t>(ids.size()) > c.limit) ids.resize(c.limit);
  if (ids.empty()) return tritonrl::Status::InvalidArgument("--tasks " + c.tasks + ": no task");
  return std::make_pair(suite, ids);
}

int RunCalibrate(const CalibrateCli& c) {
  auto fail = [](const tritonrl::Status& s) {
    std::fprintf(stderr, "tritonrl calibrate: %s\n", s.message().c_str());
    return 2;
  };
  auto ids = TaskIds(c);
  if (!ids.ok()) return fail(ids.status());
  if (const fs::path parent = fs::path(c.out).parent_path(); !parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) return fail(tritonrl::Status::IoError(parent.string() + ": " + ec.message()));
  }
  auto tasks = d::LoadEvalTasks(ids->first, ids->second);
  if (!tasks.ok()) return fail(tasks.status());
  tritonrl::scoring::ScoringConfig sc;
  sc.tasks = ids->first;
  sc.db = c.db.empty() ? c.out + ".sqlite" : c.db;
  sc.device = c.eval_device;
  sc.jobs = c.jobs;
  sc.prestart_workers = c.prestart_workers;
  sc.variants = c.variants;
  sc.no_timing = !c.timing;
  sc.quiet_timing = c.quiet_timing;
  auto scorer = tritonrl::scoring::Scorer::Open(sc);
  if (!scorer.ok()) return fail(scorer.status());
  auto r = d::Calibrate(c.policy, *tasks, **scorer);
  if (!r.ok()) return fail(r.status());
  if (auto s = tritonrl::rl::WriteTaskLabels(c.out, r->labels); !s.ok()) return fail(s);
  int64_t within = 0, never = 0, always = 0;
  for (const auto& l : r->labels) {
    within += l.level == tritonrl::rl::kLevelWithinReach;
    never += l.passed == 0;
    always += l.passed == l.samples;
  }
  std::fprintf(stderr,
               "calibrate: %zu tasks x %d samples of %s: %lld within reach (level 1), %lld never "
               "solved (level 2); %zu solved sometimes (0 < p < 1), %lld always; pass@1 %.3f; "
               "labels in %s\n",
               r->labels.size(), c.policy.k, r->eval.policy.c_str(), static_cast<long long>(within),
               static_cast<long long>(never), d::LearnableTasks(r->labels).size(),
               static_cast<long long>(always), r->eval.summary.pass_at_1, c.out.c_str());
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"calibrate",
     "Sample k times per RL task, score, and label each task's difficulty by its pass rate",
     [](CLI::App& sub) -> tritonrl::cli::CommandAction {
       auto c = std::make_shared<CalibrateCli>();
       c->policy.k = 8;
       sub.add_option("--model", c->policy.model, "Policy: a checkpoint directory or builtin:tiny")
           ->required();
       sub.add_option("--tasks", c->tasks, "A data synth folder (its --split) or a suite folder")
           ->required();
       sub.add_option("--out", c->out, "Labels JSONL (rl/task_labels.h)")->required();
       sub.add_option("--split", c->split, "data synth folder: the split calibrated")
           ->capture_default_str();
       sub.add_option("--limit", c->limit, "At most this many tasks (file order; 0: all)");
       sub.add_option("--level", c->level, "A suite folder: only its tasks of this level (0: all)");
       sub.add_option("--k", c->policy.k, "Samples per task")->capture_default_str();
       sub.add_option("--max-new-tokens", c->policy.max_new_tokens)->capture_default_str();
       sub.add_option("--temperature", c->policy.temperature)->capture_default_str();
       sub.add_option("--seed", c->policy.seed, "Sampling seed")->capture_default_str();
       sub.add_option("--device", c->policy.device, "Policy device (default cuda if available)");
       sub.add_option("--eval-device", c->eval_device, "Scoring device: cpu, cuda or auto")
           ->capture_default_str();
       sub.add_option("--jobs", c->jobs, "Scoring worker processes")->capture_default_str();
       sub.add_option("--prestart-workers", c->prestart_workers,
                      "scoring workers started ahead of their samples (sandboxed, CUDA context "
                      "made; each runs one sample): -1 one per job, 0 off")
           ->capture_default_str();
       sub.add_flag("--quiet-timing", c->quiet_timing,
                    "hold other candidates' trials back while a sample is timed "
                    "(docs/measurement.md, \"Quiet timing\")");
       sub.add_option("--variants", c->variants, "Scored variants (comma-separated)")
           ->delimiter(',');
       sub.add_flag("--timing", c->timing,
                    "Time correct samples on the GPU (Figure 5's fast class; default: correctness "
                    "only)");
       sub.add_option("--db", c->db, "Results store (default OUT.sqlite; a rerun resumes)");
       return [c]() { return RunCalibrate(*c); };
     }});

}  // namespace

#endif  // TRITONRL_HAVE_DEMO
