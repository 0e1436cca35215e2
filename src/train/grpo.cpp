#include "train/grpo.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <stop_token>
#include <thread>

#include "base/file.h"
#include "base/sha256.h"
#include "data/sft.h"
#include "data/synth.h"
#include "model/generate.h"
#include "model/qwen3.h"
#include "rl/advantages.h"
#include "rl/rewards.h"
#include "rl/rollout_group.h"
#include "rl/task_labels.h"
#include "rl/task_sampler.h"
#include "scoring/rollout_verdict.h"
#include "scoring/score_batch.h"
#include "task/task.h"
#include "train/grpo_loss.h"
#include "train/plan_tokens.h"
#include "train/run_util.h"
#include "train/sft_data.h"
#include "train/trainer.h"
#include "verify/output.h"

namespace tritonrl::train {

// The trajectory options' JSON (TrajectoryOptions): every field but `levels`, whose map of int
// keys nlohmann would write as pairs.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GrpoOptions, model, labels, steps, group, tasks_per_step, mode,
                                   alpha, beta, dr_grpo, filter_constant_groups, max_sample_rounds,
                                   clip_low, clip_high, kl, lr, warmup_steps, lr_schedule,
                                   min_lr_ratio, adam_beta1, adam_beta2, speedup_noise_floor,
                                   text_reward_plan, weight_decay, grad_clip, max_new_tokens,
                                   temperature, top_p, off_policy, timing, timing_trials, truncated,
                                   update_batch_tokens, seed, small_vocab, test_inject_solutions,
                                   lora_r, lora_alpha, lora_dropout, lora_targets);

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The options that shape the trajectory: stored in the checkpoint and taken
// from it on resume (a resumed run is the same run). One list of fields for both directions
// (GrpoOptions' JSON, below); the levels are an object keyed by level, as checkpoints keep them.
json TrajectoryOptions(const GrpoOptions& o) {
  json j = o;
  json levels = json::object();
  for (const auto& [level, weight] : o.levels) levels[std::to_string(level)] = weight;
  j["levels"] = levels;
  return j;
}

void ApplyTrajectoryOptions(const json& stored, GrpoOptions& o) {
  // An option absent from an older checkpoint takes its default, which is what that run did
  // (one sampling round a step, no LoRA).
  json j = TrajectoryOptions(GrpoOptions{});
  j.update(stored);
  j.get_to(o);
  o.levels.clear();
  for (const auto& [level, weight] : j.at("levels").items()) {
    o.levels[std::stoi(level)] = weight.get<double>();
  }
}

Status ValidateOptions(const GrpoOptions& o) {
  auto bad = [](const std::string& what) { return Status::InvalidArgument(what); };
  if (o.tasks.empty()) return bad("--tasks is required");
  if (o.out.empty()) return bad("--out is required");
  if (o.steps < 1) return bad("--steps must be at least 1");
  if (o.group < 2) return bad("--group must be at least 2 (a group of one has no advantage)");
  if (o.tasks_per_step < 1) return bad("--tasks-per-step must be at least 1");
  if (o.max_sample_rounds < 1) return bad("--max-sample-rounds must be at least 1");
  if (!(o.clip_low > 0 && o.clip_low < 1)) return bad("--clip-low must be in (0, 1)");
  if (!(o.clip_high > 0 && std::isfinite(o.clip_high))) return bad("--clip-high must be > 0");
  if (!(o.kl >= 0 && std::isfinite(o.kl))) return bad("--kl must be >= 0");
  if (!(o.lr >= 0 && std::isfinite(o.lr))) return bad("--lr must be >= 0");
  if (o.warmup_steps < 0) return bad("--warmup-steps must be >= 0");
  if (o.lr_schedule != "constant" && o.lr_schedule != "cosine") {
    return bad("--lr-schedule must be constant or cosine, not '" + o.lr_schedule + "'");
  }
  if (!(o.min_lr_ratio >= 0 && o.min_lr_ratio <= 1)) return bad("--min-lr-ratio must be in [0, 1]");
  if (!(o.adam_beta1 >= 0 && o.adam_beta1 < 1) || !(o.adam_beta2 >= 0 && o.adam_beta2 < 1)) {
    return bad("--adam-beta1 and --adam-beta2 must be in [0, 1)");
  }
  if (!(o.speedup_noise_floor >= 0 && o.speedup_noise_floor < 1)) {
    return bad("--speedup-noise-floor must be in [0, 1)");
  }
  if (o.max_new_tokens < 1) return bad("--max-new-tokens must be at least 1");
  if (o.loss_chunk < 0) return bad("--loss-chunk must be >= 0 (0: whole-batch logits)");
  TRITONRL_RETURN_IF_ERROR(CheckSaveDtype(o.save_dtype, o.lora_r, o.model, o.resume));
  if (!(o.temperature > 0 && std::isfinite(o.temperature))) {
    return bad("--temperature must be > 0 (the ratio needs the sampler's distribution)");
  }
  if (!(o.top_p > 0 && o.top_p <= 1)) return bad("--top-p must be in (0, 1]");
  if (o.update_batch_tokens < 2) return bad("update_batch_tokens must be at least 2");
  if (o.lora_dropout != 0) {
    return bad(
        "--lora-dropout must be 0 in GRPO: the ratio compares the update's "
        "log-probabilities with the sampler's, which samples without dropout");
  }
  if (o.levels.empty()) return bad("--levels names no level");
  double sum = 0;
  for (const auto& [level, weight] : o.levels) {
    if (!(weight >= 0 && std::isfinite(weight))) {
      return bad("--levels: the weight of level " + std::to_string(level) + " must be >= 0");
    }
    sum += weight;
  }
  if (!(sum > 0)) return bad("--levels: every weight is 0");
  return Status::Ok();
}

// One task the policy is asked to solve.
struct GrpoTask {
  std::string id;
  int level = 1;
  std::string prompt;         // chat-templated text the policy sees
  std::vector<int32_t> ids;   // its tokens
  std::string solution_path;  // the suite's solution file (TEST-ONLY injection)
};

struct TaskPool {
  std::string suite_dir;  // what the scorer loads
  std::vector<GrpoTask> tasks;
  std::string hash;  // SHA-256 of the ids and prompts: a resume must see the same pool
};

// The labels file of a run: --labels, else DIR/labels.jsonl when present; none for "none".
std::string LabelsPath(const std::string& dir, const std::string& labels) {
  if (labels == "none") return "";
  if (!labels.empty()) return labels;
  const fs::path beside = fs::path(dir) / "labels.jsonl";
  return fs::exists(beside) ? beside.string() : "";
}

// A `data synth` folder (manifest.jsonl; only its train split) or a suite folder; with a labels
// file, each labelled task takes its label's level.
Result<TaskPool> LoadTaskPool(const std::string& dir, const std::string& labels_option,
                              const model::ChatTemplate& chat) {
  if (!fs::is_directory(dir)) return Status::NotFound("--tasks " + dir + ": no such folder");
  TaskPool pool;
  auto folder = data::OpenTaskFolder(dir, "train");
  if (!folder.ok()) return folder.status();
  pool.suite_dir = folder->suite_dir;
  const std::optional<std::vector<std::string>>& train_ids = folder->ids;
  auto suite = task::LoadSuite(pool.suite_dir);
  if (!suite.ok()) return suite.status();
  if (!suite->errors.empty()) return Status::ParseError(suite->errors.front().ToString());
  for (const task::TaskInfo& t : suite->tasks) {
    if (train_ids && std::find(train_ids->begin(), train_ids->end(), t.id) == train_ids->end()) {
      continue;
    }
    auto ref = ReadFile(t.path);
    if (!ref.ok()) return ref.status();
    GrpoTask g;
    g.id = t.id;
    g.level = t.level.value_or(1);
    auto prompt = PolicyPrompt(chat, *ref);
    if (!prompt.ok()) return Status::InvalidArgument(t.id + ": " + prompt.status().message());
    g.prompt = std::move(prompt.value());
    g.solution_path = (fs::path(dir) / "solutions" / (t.id + ".py")).string();
    pool.tasks.push_back(std::move(g));
  }
  if (pool.tasks.empty())
    return Status::InvalidArgument("--tasks " + dir + ": no task to train on");
  if (const std::string labels = LabelsPath(dir, labels_option); !labels.empty()) {
    auto read = rl::ReadTaskLabels(labels);
    if (!read.ok()) return read.status();
    for (GrpoTask& g : pool.tasks) {
      if (auto it = read->find(g.id); it != read->end()) g.level = it->second.level;
    }
  }
  // Length-prefixed, so no two pools hash the same text.
  std::string identity;
  for (const GrpoTask& g : pool.tasks) {
    for (const std::string* part : {&g.id, &g.prompt}) {
      identity += std::to_string(part->size()) + ":" + *part;
    }
  }
  pool.hash = Sha256Hex(identity);
  return pool;
}

// "1:1,2:0" -> {1: 1, 2: 0}.
Result<std::map<int, double>> ParseLevelsText(const std::string& text) {
  std::map<int, double> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? comma : comma - pos);
    const size_t colon = item.find(':');
    int level = 0;
    double weight = 0;
    size_t used_level = 0, used_weight = 0;
    bool ok = colon != std::string::npos && colon > 0 && colon + 1 < item.size();
    if (ok) {
      try {
        level = std::stoi(item.substr(0, colon), &used_level);
        weight = std::stod(item.substr(colon + 1), &used_weight);
      } catch (const std::exception&) {
        ok = false;
      }
    }
    ok = ok && used_level == colon && used_weight == item.size() - colon - 1 && level >= 1 &&
         weight >= 0 && std::isfinite(weight) && !out.count(level);
    if (!ok) {
      return Status::InvalidArgument("--levels '" + text + "': bad item '" + item +
                                     "' (want LEVEL:WEIGHT with LEVEL >= 1, WEIGHT >= 0, each "
                                     "level once, e.g. 1:1,2:0)");
    }
    out[level] = weight;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

// The generation seed of a step: fixed by the run's seed and the step, so a
// resumed run draws exactly what the uninterrupted one drew.
uint64_t StepSeed(uint64_t seed, int64_t step) {
  uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * static_cast<uint64_t>(step + 1));
  s ^= s >> 31;
  s *= 0xbf58476d1ce4e5b9ull;
  s ^= s >> 29;
  return s;
}

// The generation seed of a round of a step: round 1's is the step's (a run without
// resampling draws what it drew before rounds existed), each further round another.
uint64_t RoundSeed(uint64_t seed, int64_t step, int64_t round) {
  if (round <= 1) return StepSeed(seed, step);
  return StepSeed(seed ^ (0xd1b54a32d192ed03ull * static_cast<uint64_t>(round)), step);
}

// One rollout: a response to a task's prompt.
struct Rollout {
  size_t task = 0;              // index into the pool
  std::vector<int32_t> tokens;  // response, stop token included when it stopped
  std::vector<float> logprobs;  // behaviour log-probs, one per token
  std::string text;             // what the scorer sees
  bool truncated = false;
  bool injected = false;  // TEST ONLY: the suite's solution, not sampled
};

// The rollouts of one round of a step, generated before the step's update (round 1 one
// step earlier under off-policy overlap).
struct GenBatch {
  int64_t step = 0;               // the step these rollouts train (1-based)
  int64_t round = 1;              // the step's sampling round (1-based)
  std::vector<size_t> tasks;      // pool indices, one group each
  std::vector<Rollout> rollouts;  // task-major, G each
  double seconds = 0;
  int64_t new_tokens = 0;
};

json GenBatchToJson(const GenBatch& g) {
  json rollouts = json::array();
  for (const Rollout& r : g.rollouts) {
    rollouts.push_back({{"task", r.task},
                        {"tokens", r.tokens},
                        {"logprobs", r.logprobs},
                        {"text", r.text},
                        {"truncated", r.truncated},
                        {"injected", r.injected}});
  }
  return {{"step", g.step},       {"round", g.round},     {"tasks", g.tasks},
          {"rollouts", rollouts}, {"seconds", g.seconds}, {"new_tokens", g.new_tokens}};
}

GenBatch GenBatchFromJson(const json& j) {
  GenBatch g;
  g.step = j.at("step");
  g.round = j.value("round", int64_t{1});
  g.tasks = j.at("tasks").get<std::vector<size_t>>();
  for (const json& r : j.at("rollouts")) {
    Rollout x;
    x.task = r.at("task");
    x.tokens = r.at("tokens").get<std::vector<int32_t>>();
    x.logprobs = r.at("logprobs").get<std::vector<float>>();
    x.text = r.at("text");
    x.truncated = r.at("truncated");
    x.injected = r.at("injected");
    g.rollouts.push_back(std::move(x));
  }
  g.seconds = j.at("seconds");
  g.new_tokens = j.at("new_tokens");
  return g;
}

// One training run's state between its phases, named after TRL's GRPOTrainer: set-up, generate,
// score, compute advantages, update, log and save.
struct Runner {
  GrpoOptions o;
  c10::Device device = c10::kCPU;
  c10::ScalarType compute = at::kFloat;
  StartModel m;
  std::optional<model::Qwen3Model> reference;  // frozen initial policy (kl > 0)
  TaskPool pool;
  std::optional<rl::TaskSampler> sampler;
  std::unique_ptr<scoring::Scorer> scorer;  // none under a text reward
  // WarmReferences in the background; declared after the scorer, so it stops and joins first.
  std::jthread warm_references;
  std::optional<std::regex> text_reward;  // --text-reward-plan
  rl::AdvantageConfig adv_config;
  rl::RewardConfig reward_config;
  rl::TruncatedPolicy truncated = rl::TruncatedPolicy::kPenalize;
  std::string run_nonce;  // scorer run ids of this training run
  AdamWState adam;
  AdamWOptions adam_options;
  int64_t step = 0;                 // steps done
  std::optional<GenBatch> pending;  // off-policy: the next step's rollouts, already sampled
  std::ofstream metrics, rollouts_log;
  std::string ckpt_dir;
  std::string description;

  // Samples `n_tasks` groups: the next tasks of the task order, G rollouts each.
  Result<GenBatch> Generate(int64_t step, int64_t round, int64_t n_tasks);
  Status ScoreLogProbsOfInjected(GenBatch& g);
};

Result<GenBatch> Runner::Generate(int64_t step, int64_t round, int64_t n_tasks) {
  const auto t0 = Clock::now();
  GenBatch g;
  g.step = step;
  g.round = round;
  for (int64_t b = 0; b < n_tasks; ++b) {
    const std::string& id = sampler->Next().id;
    const auto it = std::find_if(pool.tasks.begin(), pool.tasks.end(),
                                 [&](const GrpoTask& t) { return t.id == id; });
    g.tasks.push_back(static_cast<size_t>(it - pool.tasks.begin()));
  }
  std::vector<std::vector<int32_t>> prompts;
  int64_t longest = 0;
  for (size_t t : g.tasks) {
    prompts.push_back(pool.tasks[t].ids);
    longest = std::max<int64_t>(longest, static_cast<int64_t>(pool.tasks[t].ids.size()));
  }
  model::SamplingOptions so;
  so.temperature = o.temperature;
  so.top_p = o.top_p;
  so.num_samples = o.group;
  so.max_new_tokens = std::min(o.max_new_tokens, m.trainable.master.max_positions() - longest);
  if (so.max_new_tokens < 1) {
    return Status::InvalidArgument(
        "a prompt of " + std::to_string(longest) + " tokens leaves no room in the model's " +
        std::to_string(m.trainable.master.max_positions()) + " positions");
  }
  so.stop_token_ids = {m.end_of_turn.id};  // a rollout ends where the model's turn ends
  so.seed = RoundSeed(o.seed, step, round);
  model::GenerationStats stats;
  std::vector<model::Completion> done;
  {
    at::NoGradGuard no_grad;
    model::Qwen3Model view = ComputeView(m.trainable);
    auto r = model::Generate(view, &m.tokenizer, prompts, so, &stats);
    if (!r.ok()) return r.status();
    done = std::move(r.value());
  }
  for (model::Completion& c : done) {
    Rollout r;
    r.task = g.tasks[static_cast<size_t>(c.prompt_index)];
    r.truncated = c.finish_reason != "stop";
    r.tokens = std::move(c.tokens);
    r.logprobs = std::move(c.logprobs);
    r.text = std::move(c.text);
    g.new_tokens += static_cast<int64_t>(r.tokens.size());
    g.rollouts.push_back(std::move(r));
  }
  if (o.test_inject_solutions) TRITONRL_RETURN_IF_ERROR(ScoreLogProbsOfInjected(g));
  g.seconds = Since(t0);
  return g;
}

// TEST ONLY: the first rollout of each group becomes the suite's solution in the
// SFT completion format; its behaviour log-probs are the current policy's, so its
// ratio starts at 1 like a sampled one's.
Status Runner::ScoreLogProbsOfInjected(GenBatch& g) {
  for (size_t b = 0; b < g.tasks.size(); ++b) {
    const GrpoTask& task = pool.tasks[g.tasks[b]];
    auto solution = ReadFile(task.solution_path);
    if (!solution.ok()) {
      return Status::NotFound("test_inject_solutions: " + task.solution_path + ": " +
                              solution.status().message());
    }
    Rollout& r = g.rollouts[b * static_cast<size_t>(o.group)];
    r.text =
        data::CompletionFor("The suite's reference solution (injected for a test).", *solution);
    auto enc = model::Encode(m.tokenizer, r.text);
    if (!enc.ok()) return enc.status();
    r.tokens = enc->ids;
    r.tokens.push_back(m.end_of_turn.id);
    const int64_t room = m.trainable.master.max_positions() - static_cast<int64_t>(task.ids.size());
    if (static_cast<int64_t>(r.tokens.size()) > room) {
      return Status::InvalidArgument("test_inject_solutions: " + task.solution_path +
                                     " does not fit the model's positions");
    }
    r.truncated = false;
    r.injected = true;
    at::NoGradGuard no_grad;
    std::vector<int32_t> row = task.ids;
    row.insert(row.end(), r.tokens.begin(), r.tokens.end());
    TokenBatch batch = MakeBatch({row}, {static_cast<int64_t>(task.ids.size())}, device);
    at::Tensor lp =
        ScoredLogProbs(ComputeView(m.trainable), batch, false, o.temperature, nullptr, o.loss_chunk)
            .to(at::kCPU)
            .contiguous();
    r.logprobs.assign(lp.data_ptr<float>(), lp.data_ptr<float>() + lp.numel());
  }
  return Status::Ok();
}

// A step's rollouts over its rounds, in order (task-major within a round), with what the update
// and the step's metrics need from them.
struct StepRollouts {
  std::vector<Rollout> rollouts;
  std::vector<std::vector<float>> token_adv;
  std::vector<bool> carries_loss;
  std::array<int64_t, rl::kOutcomeClasses> classes{};
  double speedup_sum = 0;
  int64_t speedup_n = 0, constant_groups = 0, text_matched = 0, new_tokens = 0;
  int64_t correct_n = 0, speedup_unknown_n = 0;  // correct rollouts; of them, speed unknown
  std::vector<json> rollout_lines;               // rollouts.jsonl
};

// What decided a round's rewards: the scorer's verdicts (one per rollout, in order), or, under
// a text reward, whether each rollout's plan matched.
struct RoundScores {
  std::vector<scoring::ScoredSample> verdicts;  // empty under a text reward
  std::vector<bool> text_matched;               // empty unless a text reward
};

// --text-reward-plan: does the regex match the plan (the verifier's split of the response)?
std::vector<bool> MatchPlans(const std::regex& pattern, const GenBatch& gen) {
  std::vector<bool> out;
  for (const Rollout& r : gen.rollouts) {
    const std::optional<std::string_view> plan = verify::PlanText(r.text);
    out.push_back(plan && std::regex_search(plan->begin(), plan->end(), pattern));
  }
  return out;
}

// Scores a round's rollouts (sample ids count on over the step's rounds, so round 1's are those
// of a one-round step); under off-policy overlap, round 1 also samples the next step's first
// round while the scorer runs.
Result<RoundScores> ScoreRound(Runner& run, int64_t step, int64_t round, size_t first,
                               const GenBatch& gen, GrpoStepMetrics& s) {
  RoundScores out;
  const auto ts0 = Clock::now();
  if (run.text_reward) {
    out.text_matched = MatchPlans(*run.text_reward, gen);
    s.score_seconds += Since(ts0);
    return out;
  }
  std::vector<scoring::Sample> batch;
  for (size_t i = 0; i < gen.rollouts.size(); ++i) {
    const Rollout& r = gen.rollouts[i];
    batch.push_back({run.pool.tasks[r.task].id,
                     "s" + std::to_string(step) + "-r" + std::to_string(first + i), r.text,
                     scoring::TextKind::kOutput});
  }
  scoring::BatchOptions bo;
  bo.run_id = "grpo-" + run.run_nonce + "-step" + std::to_string(step);
  double score_seconds = 0;
  auto scored_future = std::async(std::launch::async, [&]() {
    auto r = run.scorer->Score(batch, bo);
    score_seconds = Since(ts0);
    return r;
  });
  if (round == 1 && run.o.off_policy && step < run.o.steps) {
    auto next = run.Generate(step + 1, 1, run.o.tasks_per_step);
    if (!next.ok()) {
      scored_future.wait();
      return next.status();
    }
    run.pending = std::move(next.value());
  }
  auto scored = scored_future.get();
  if (!scored.ok()) return scored.status();
  if (scored->samples.size() != batch.size()) {
    return Status::Internal("scorer returned " + std::to_string(scored->samples.size()) +
                            " verdicts for " + std::to_string(batch.size()) + " rollouts");
  }
  out.verdicts = std::move(scored->samples);
  s.score_seconds += score_seconds;
  return out;
}

// The group of task b of a round, ready for rl::ComputeGroupTokenAdvantages.
std::vector<rl::GroupRollout> GroupOf(const Runner& run, const GenBatch& gen,
                                      const RoundScores& scores, size_t b) {
  const size_t G = static_cast<size_t>(run.o.group);
  std::vector<rl::GroupRollout> group;
  for (size_t k = 0; k < G; ++k) {
    const size_t i = b * G + k;
    const Rollout& r = gen.rollouts[i];
    rl::GroupRollout gr;
    gr.num_tokens = static_cast<int64_t>(r.tokens.size());
    gr.plan_tokens = PlanTokenRange(run.m.tokenizer, r.tokens);
    if (!scores.verdicts.empty()) gr.verdict = scoring::RolloutVerdictOf(scores.verdicts[i]);
    if (!scores.text_matched.empty()) {
      gr.given_rewards = rl::TextRewards(scores.text_matched[i], run.adv_config.mode);
    }
    gr.truncated = r.truncated;
    group.push_back(std::move(gr));
  }
  return group;
}

// One rollout's share of the step's tallies and its rollouts.jsonl line.
void TallyRollout(const Runner& run, int64_t step, int64_t round, int64_t group_no, size_t k,
                  const Rollout& r, const scoring::ScoredSample* v, std::optional<bool> matched,
                  const rl::GroupRollout& g, const rl::GroupTokenAdvantages& adv,
                  GrpoStepMetrics& s, StepRollouts& acc) {
  const rl::RolloutTokenAdvantages& ra = adv.rollouts[k];
  s.reward_correct += ra.rewards.r_correct;
  s.reward_speedup += ra.rewards.r_speedup;
  s.response_tokens += static_cast<double>(r.tokens.size());
  if (r.truncated) ++s.truncated;
  if (matched && *matched) ++acc.text_matched;
  json line = {
      {"step", step},
      {"round", round},
      {"task", run.pool.tasks[r.task].id},
      {"group", group_no},
      {"sample", k},
      {"prompt", run.pool.tasks[r.task].prompt},
      {"response", r.text},
      {"tokens", r.tokens.size()},
      {"truncated", r.truncated},
      {"injected", r.injected},
      {"r_correct", ra.rewards.r_correct},
      {"r_speedup", ra.rewards.r_speedup},
      {"r_binary", ra.rewards.r_binary},
      {"speedup_imputed", ra.rewards.speedup_imputed},
      {"adv_plan", ra.advantage.plan},
      {"adv_code", ra.advantage.code},
      {"plan_tokens",
       g.plan_tokens ? json::array({g.plan_tokens->begin, g.plan_tokens->end}) : json(nullptr)},
      {"masked", ra.masked},
      {"constant", adv.constant},
      {"filtered", adv.filtered}};
  if (matched) line["text_reward_matched"] = *matched;
  if (v != nullptr) {
    s.valid_rate += v->valid;
    s.compiled_rate += v->compiled;
    s.correct_rate += v->correct;
    const rl::OutcomeClass c = rl::ClassifyOutcome(v->outcome, ra.verdict_rewards, v->speedup);
    ++acc.classes[static_cast<size_t>(c)];
    if (c == rl::OutcomeClass::kFast) s.fast1_rate += 1;
    if (ra.verdict_rewards.r_correct > 0) {
      ++acc.correct_n;
      acc.speedup_unknown_n += ra.verdict_rewards.speedup_unknown;
    }
    if (v->correct && v->speedup && !ra.verdict_rewards.speedup_voided &&
        !ra.verdict_rewards.speedup_missing) {
      acc.speedup_sum += *v->speedup;
      ++acc.speedup_n;
    }
    line.update({{"outcome", std::string(vocab::OutcomeName(v->outcome))},
                 {"class", rl::OutcomeClassName(c)},
                 {"syntax_ok", v->syntax_ok},
                 {"functionality_ok", v->functionality_ok},
                 {"compiled", v->compiled},
                 {"correct", v->correct},
                 {"speedup", v->speedup ? json(*v->speedup) : json(nullptr)},
                 {"flags", v->flags}});
  }
  acc.rollout_lines.push_back(std::move(line));
}

// One round's groups: rewards and per-token advantages (rl/rollout_group.h), the step's tallies
// in `s` and `acc`, one rollouts.jsonl line per rollout, each group's record in the sampler; the
// round's rollouts move to acc.rollouts. Returns how many groups were informative.
Result<int64_t> AddRoundGroups(Runner& run, int64_t step, int64_t round, int64_t first_group,
                               GenBatch& gen, const RoundScores& scores, GrpoStepMetrics& s,
                               StepRollouts& acc) {
  const size_t G = static_cast<size_t>(run.o.group);
  const size_t first = acc.rollouts.size();
  acc.token_adv.resize(first + gen.rollouts.size());
  acc.carries_loss.resize(first + gen.rollouts.size(), false);
  int64_t informative = 0;
  for (size_t b = 0; b < gen.tasks.size(); ++b) {
    const std::vector<rl::GroupRollout> group = GroupOf(run, gen, scores, b);
    auto adv =
        rl::ComputeGroupTokenAdvantages(group, run.reward_config, run.adv_config, run.truncated);
    if (!adv.ok()) return adv.status();
    if (adv->filtered) ++s.filtered_groups;
    if (adv->constant) {
      ++acc.constant_groups;
    } else {
      ++informative;
    }
    int64_t passed = 0;
    for (size_t k = 0; k < G; ++k) {
      const size_t i = b * G + k;
      const Rollout& r = gen.rollouts[i];
      const scoring::ScoredSample* v = scores.verdicts.empty() ? nullptr : &scores.verdicts[i];
      std::optional<bool> matched;
      if (!scores.text_matched.empty()) matched = scores.text_matched[i];
      acc.token_adv[first + i] = adv->rollouts[k].per_token;
      acc.carries_loss[first + i] = !adv->rollouts[k].masked && !r.tokens.empty();
      // The sampler's pass rate is the verdict's correctness, or the text reward's match.
      if ((v != nullptr && v->correct) || (matched && *matched)) ++passed;
      TallyRollout(run, step, round, first_group + static_cast<int64_t>(b), k, r, v, matched,
                   group[k], *adv, s, acc);
    }
    TRITONRL_RETURN_IF_ERROR(
        run.sampler->RecordGroup(run.pool.tasks[gen.tasks[b]].id, passed, run.o.group));
  }
  for (Rollout& r : gen.rollouts) acc.rollouts.push_back(std::move(r));
  return informative;
}

// The step's rollouts, verdicts and advantages, round by round (DAPO dynamic sampling): round 1
// samples tasks_per_step groups (already sampled under off-policy overlap); while fewer than
// tasks_per_step groups are informative, a further round samples the shortfall from the task
// order, up to max_sample_rounds rounds.
Result<StepRollouts> SampleStep(Runner& run, int64_t step, GrpoStepMetrics& s) {
  StepRollouts acc;
  rl::DynamicSampling sampling{run.o.tasks_per_step, run.o.max_sample_rounds};
  for (int64_t want = sampling.NextRoundTasks(); want > 0; want = sampling.NextRoundTasks()) {
    const int64_t round = sampling.rounds + 1;
    GenBatch gen;
    if (round == 1 && run.pending) {
      gen = std::move(*run.pending);
      run.pending.reset();
    } else {
      auto g = run.Generate(step, round, want);
      if (!g.ok()) return g.status();
      gen = std::move(g.value());
    }
    auto scores = ScoreRound(run, step, round, acc.rollouts.size(), gen, s);
    if (!scores.ok()) return scores.status();
    s.gen_seconds += gen.seconds;
    acc.new_tokens += gen.new_tokens;
    auto informative = AddRoundGroups(run, step, round, sampling.sampled, gen, *scores, s, acc);
    if (!informative.ok()) return informative.status();
    sampling.Record(static_cast<int64_t>(gen.tasks.size()), *informative);
  }
  s.sampled_groups = sampling.sampled;
  s.informative_groups = sampling.informative;
  s.rounds = sampling.rounds;
  const double n = static_cast<double>(acc.rollouts.size());
  for (double* x : {&s.reward_correct, &s.reward_speedup, &s.valid_rate, &s.compiled_rate,
                    &s.correct_rate, &s.fast1_rate, &s.response_tokens}) {
    *x /= n;
  }
  s.text_reward_rate = static_cast<double>(acc.text_matched) / n;
  s.mean_speedup = acc.speedup_n ? acc.speedup_sum / static_cast<double>(acc.speedup_n) : 0.0;
  s.speedup_unknown_rate = acc.correct_n ? static_cast<double>(acc.speedup_unknown_n) /
                                               static_cast<double>(acc.correct_n)
                                         : 0.0;
  s.gen_tokens_per_second = static_cast<double>(acc.new_tokens) / std::max(s.gen_seconds, 1e-9);
  return acc;
}

json MetricsJson(const GrpoStepMetrics& s) {
  return {{"step", s.step},
          {"reward_correct", s.reward_correct},
          {"reward_speedup", s.reward_speedup},
          {"valid_rate", s.valid_rate},
          {"compiled_rate", s.compiled_rate},
          {"correct_rate", s.correct_rate},
          {"fast1_rate", s.fast1_rate},
          {"mean_speedup", s.mean_speedup},
          {"speedup_unknown_rate", s.speedup_unknown_rate},
          {"response_tokens", s.response_tokens},
          {"entropy", s.entropy},
          {"clip_fraction", s.clip_fraction},
          {"kl", s.kl},
          {"gen_tokens_per_second", s.gen_tokens_per_second},
          {"gen_seconds", s.gen_seconds},
          {"score_seconds", s.score_seconds},
          {"update_seconds", s.update_seconds},
          {"truncated", s.truncated},
          {"filtered_groups", s.filtered_groups},
          {"sampled_groups", s.sampled_groups},
          {"informative_groups", s.informative_groups},
          {"rounds", s.rounds},
          {"lr", s.lr}};
}

// ---- Set-up.

// The frozen reference of the KL term: the starting policy, also on resume. With LoRA it
// shares the policy's frozen base (the same tensors) and holds only the starting adapters, so
// its log-probabilities are base + initial adapters, computed as the policy's are.
Status LoadReference(Runner& run, const std::vector<std::string>& texts) {
  const GrpoOptions& o = run.o;
  if (run.m.trainable.master.lora.enabled()) {
    auto view = StartLoraView(run.m.trainable, o.model, o.seed);
    if (!view.ok()) return view.status();
    run.reference = std::move(view.value());
    return Status::Ok();
  }
  auto ref = LoadStartModel(o.model, o.seed, o.small_vocab, texts, run.device, run.compute);
  if (!ref.ok()) return ref.status();
  at::NoGradGuard no_grad;
  run.reference = ComputeView(ref->trainable);
  return Status::Ok();
}

// The policy (from the checkpoint, or the start model; LoRA adapters on a frozen base when
// asked or when --model is an adapter) with its end of turn, where rollouts stop; the frozen
// reference under a KL term; and the pool's prompts in tokens.
Status LoadPolicy(Runner& run, std::optional<LoadedCheckpoint>& ckpt) {
  const GrpoOptions& o = run.o;
  std::vector<std::string> texts;
  for (const GrpoTask& t : run.pool.tasks) texts.push_back(t.prompt);
  auto lora = LoraConfigFromFlags(o.lora_r, o.lora_alpha, o.lora_dropout, o.lora_targets);
  if (!lora.ok()) return lora.status();
  if (ckpt) {
    run.m.trainable = std::move(ckpt->trainable);
    run.m.tokenizer = std::move(ckpt->tokenizer);
    run.m.end_of_turn = std::move(ckpt->end_of_turn);
    run.m.carried_files = std::move(ckpt->carried_files);
  } else {
    auto start =
        LoadStartModel(o.model, o.seed, o.small_vocab, texts, run.device, run.compute, *lora);
    if (!start.ok()) return start.status();
    run.m = std::move(start.value());
    TRITONRL_RETURN_IF_ERROR(SettleStartLora(run.m, run.o));
  }
  if (o.kl > 0) TRITONRL_RETURN_IF_ERROR(LoadReference(run, texts));
  for (GrpoTask& t : run.pool.tasks) {
    auto enc = model::Encode(run.m.tokenizer, t.prompt);
    if (!enc.ok()) return Status::InvalidArgument(t.id + ": prompt: " + enc.status().message());
    t.ids = std::move(enc->ids);
  }
  return Status::Ok();
}

// The task sampler, the reward and advantage configs, the text reward and the optimizer.
Status ConfigureLearning(Runner& run, std::optional<LoadedCheckpoint>& ckpt) {
  const GrpoOptions& o = run.o;
  std::vector<rl::SamplerTask> sampler_tasks;
  for (const GrpoTask& t : run.pool.tasks) sampler_tasks.push_back({t.id, t.level});
  rl::SamplerConfig sc;
  sc.level_weights = o.levels;
  sc.seed = o.seed;
  auto sampler = rl::TaskSampler::Create(sampler_tasks, sc);
  if (!sampler.ok()) {
    return Status::InvalidArgument("--levels / --tasks " + o.tasks + ": " +
                                   sampler.status().message());
  }
  run.sampler.emplace(std::move(sampler.value()));
  auto mode = rl::ParseAdvantageMode(o.mode);
  if (!mode.ok()) return Status::InvalidArgument("--mode: " + mode.status().message());
  run.adv_config.mode = *mode;
  run.adv_config.alpha = o.alpha;
  run.adv_config.beta = o.beta;
  run.adv_config.normalize_by_std = !o.dr_grpo;
  run.adv_config.filter_constant_groups = o.filter_constant_groups;
  TRITONRL_RETURN_IF_ERROR(rl::ValidateAdvantageConfig(run.adv_config));
  run.reward_config.speedup_noise_floor = o.speedup_noise_floor;
  TRITONRL_RETURN_IF_ERROR(rl::ValidateRewardConfig(run.reward_config));
  auto truncated = rl::ParseTruncatedPolicy(o.truncated);
  if (!truncated.ok()) return truncated.status();
  run.truncated = *truncated;
  if (!o.text_reward_plan.empty()) {
    try {
      run.text_reward.emplace(o.text_reward_plan, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument("--text-reward-plan '" + o.text_reward_plan +
                                     "': not a regular expression (" + e.what() + ")");
    }
  }
  run.adam = ckpt ? std::move(ckpt->adam) : InitAdamW(run.m.trainable);
  run.adam_options = AdamWOptions{o.adam_beta1, o.adam_beta2, 1e-8, o.weight_decay};
  return Status::Ok();
}

// The loop's position: from the checkpoint's state on resume, else a fresh run nonce.
Status RestoreLoopState(Runner& run, const ResumePoint& rp) {
  if (!rp.ckpt) {
    const uint64_t t =
        static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    run.run_nonce = Hex64(StepSeed(t ^ static_cast<uint64_t>(::getpid()), 0)).substr(0, 12);
    return Status::Ok();
  }
  if (rp.state.value("tasks_sha256", "") != run.pool.hash) {
    return Status::FailedPrecondition(run.o.resume +
                                      ": checkpoint was trained on other tasks than " +
                                      run.o.tasks + "; cannot resume exactly");
  }
  try {
    run.step = rp.state.at("step");
    TRITONRL_RETURN_IF_ERROR(run.sampler->RestoreState(rp.state.at("sampler").get<std::string>()));
    run.run_nonce = rp.state.at("run_nonce");
    if (rp.state.contains("pending") && !rp.state["pending"].is_null()) {
      run.pending = GenBatchFromJson(rp.state["pending"]);
    }
  } catch (const json::exception& e) {
    return Status::Corruption(run.o.resume + "/trainer_state.json: bad state (" + e.what() + ")");
  }
  return Status::Ok();
}

// OUT/metrics.jsonl and OUT/rollouts.jsonl (a resumed run keeps the lines up to its checkpoint)
// and the scorer (none under a text reward: no code runs).
Status OpenOutputs(Runner& run, bool resumed) {
  const GrpoOptions& o = run.o;
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec) return Status::IoError(o.out + ": " + ec.message());
  auto metrics =
      OpenMetricsLog((fs::path(o.out) / "metrics.jsonl").string(), resumed ? run.step : -1);
  if (!metrics.ok()) return metrics.status();
  run.metrics = std::move(*metrics);
  auto rollouts =
      OpenMetricsLog((fs::path(o.out) / "rollouts.jsonl").string(), resumed ? run.step : -1);
  if (!rollouts.ok()) return rollouts.status();
  run.rollouts_log = std::move(*rollouts);
  run.ckpt_dir = (fs::path(o.out) / "checkpoint").string();
  run.description = DescribeModel(run.m.trainable, run.device);
  if (run.text_reward) {
    run.description += "; text reward on the plan (no scoring)";
    return Status::Ok();
  }
  scoring::ScoringConfig scfg;
  scfg.tasks = run.pool.suite_dir;
  scfg.db = (fs::path(o.out) / "scores.sqlite").string();
  scfg.device = !o.eval_device.empty() ? o.eval_device : (run.device.is_cuda() ? "cuda" : "cpu");
  if (o.jobs > 0) scfg.jobs = o.jobs;
  scfg.prestart_workers = o.prestart_workers;
  scfg.keep_idle_workers = o.keep_idle_workers;
  scfg.quiet_timing = o.quiet_timing;
  scfg.variants = o.variants;
  scfg.no_timing = !o.timing;
  scfg.timing_trials = o.timing_trials;
  // The binary arm is AutoTriton's reward: its is_Triton rule and its tests' outputs, not our
  // verifier (docs/rl.md); the scorer adds them beside our verdict.
  scfg.autotriton_check = o.mode == "binary";
  auto scorer = scoring::Scorer::Open(scfg);
  if (!scorer.ok()) return scorer.status();
  run.scorer = std::move(scorer.value());
  run.description +=
      "; scoring on " + run.scorer->device() + " (" + run.scorer->device_model() + ")";
  return Status::Ok();
}

// The distinct tasks the sampler will draw first, in draw order, at most `limit` (read from a
// copy: the run's sampler does not move).
std::vector<std::string> UpcomingTasks(const rl::TaskSampler& sampler, size_t limit) {
  rl::TaskSampler peek = sampler;
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (size_t draws = 0; out.size() < limit && draws < 8 * limit; ++draws) {
    const std::string& id = peek.Next().id;
    if (seen.insert(id).second) out.push_back(id);
  }
  return out;
}

// Scorer::WarmReferences on the tasks of the first steps, on a thread of its own: the first
// steps' Score calls take each reference when it is ready (or compute one the warm-up has not
// reached). The scorer keeps 4 x jobs references, so no more are warmed.
void StartWarmReferences(Runner& run) {
  if (!run.scorer || run.scorer->config().reference_keep_s <= 0) return;
  const std::string& when = run.o.warm_references;
  if (when == "off" || (when == "auto" && run.scorer->device() != "cuda")) return;
  const size_t keep = 4 * static_cast<size_t>(std::max(1, run.scorer->config().jobs));
  std::vector<std::string> tasks = UpcomingTasks(*run.sampler, keep);
  scoring::Scorer* scorer = run.scorer.get();
  run.warm_references = std::jthread([scorer, tasks = std::move(tasks)](std::stop_token stop) {
    scoring::Callbacks cb;
    cb.cancelled = [&stop] { return stop.stop_requested(); };
    auto r = scorer->WarmReferences(tasks, cb);
    if (!r.ok()) {
      std::fprintf(stderr, "train grpo: warming references: %s (each is computed when drawn)\n",
                   r.status().message().c_str());
      return;
    }
    // Stopped early (the run ended first), the tasks not reached are in none of the counts.
    std::fprintf(stderr,
                 "train grpo: references of %lld of %lld tasks computed ahead in %.1f s (%lld kept "
                 "already, %lld failed)\n",
                 static_cast<long long>(r->computed), static_cast<long long>(r->tasks), r->seconds,
                 static_cast<long long>(r->kept_already), static_cast<long long>(r->failed));
  });
}

Result<std::unique_ptr<Runner>> SetUp(GrpoOptions o) {
  auto placed = ResolveDeviceAndDType(o.device, o.dtype);
  if (!placed.ok()) return placed.status();
  auto rp = LoadResumePoint(o.resume, placed->first, placed->second, "grpo",
                            [&](const json& j) { ApplyTrajectoryOptions(j, o); });
  if (!rp.ok()) return rp.status();
  TRITONRL_RETURN_IF_ERROR(ValidateOptions(o));
  auto run = std::make_unique<Runner>();
  run->o = o;
  run->device = placed->first;
  run->compute = placed->second;
  // The prompts are in the policy's own chat template; a checkpoint carries its start model's.
  auto chat = model::LoadChatTemplate(rp->ckpt ? o.resume : o.model);
  if (!chat.ok()) return chat.status();
  auto pool = LoadTaskPool(o.tasks, o.labels, *chat);
  if (!pool.ok()) return pool.status();
  run->pool = std::move(pool.value());
  TRITONRL_RETURN_IF_ERROR(LoadPolicy(*run, rp->ckpt));
  TRITONRL_RETURN_IF_ERROR(ConfigureLearning(*run, rp->ckpt));
  TRITONRL_RETURN_IF_ERROR(RestoreLoopState(*run, *rp));
  TRITONRL_RETURN_IF_ERROR(OpenOutputs(*run, rp->ckpt.has_value()));
  StartWarmReferences(*run);
  return run;
}

// ---- Update.

// The learning rate of step `step` (0-based): a linear warm-up, then constant or cosine.
double StepLr(const GrpoOptions& o, int64_t step) {
  if (o.lr_schedule == "cosine")
    return CosineLr(step, o.warmup_steps, o.steps, o.lr, o.min_lr_ratio);
  if (o.warmup_steps > 0 && step < o.warmup_steps) {
    return o.lr * static_cast<double>(step + 1) / static_cast<double>(o.warmup_steps);
  }
  return o.lr;
}

struct UpdateStats {
  double loss = 0, grad_norm = 0, clipped = 0, kl_sum = 0, entropy_sum = 0;
  int64_t loss_tokens = 0, entropy_n = 0;
};

// One micro-batch of rows: recomputed log-probs and the entropy; with_loss also the clipped
// surrogate, backpropagated (rows carrying no loss only run forward, for the entropy).
void UpdateMicroBatch(Runner& run, const StepRollouts& acc, const std::vector<size_t>& rows,
                      bool with_loss, UpdateStats& u) {
  std::vector<std::vector<int32_t>> ids;
  std::vector<int64_t> from;
  std::vector<float> adv_v, old_v;
  for (size_t i : rows) {
    const Rollout& r = acc.rollouts[i];
    std::vector<int32_t> row = run.pool.tasks[r.task].ids;
    row.insert(row.end(), r.tokens.begin(), r.tokens.end());
    from.push_back(static_cast<int64_t>(run.pool.tasks[r.task].ids.size()));
    ids.push_back(std::move(row));
    adv_v.insert(adv_v.end(), acc.token_adv[i].begin(), acc.token_adv[i].end());
    old_v.insert(old_v.end(), r.logprobs.begin(), r.logprobs.end());
  }
  TokenBatch tb = MakeBatch(ids, from, run.device);
  at::Tensor entropy;
  std::optional<at::NoGradGuard> no_grad;
  if (!with_loss) no_grad.emplace();
  at::Tensor new_logp = ScoredLogProbs(ComputeView(run.m.trainable), tb, run.o.checkpoint_layers,
                                       run.o.temperature, &entropy, run.o.loss_chunk);
  u.entropy_sum += entropy.sum().item<double>();
  u.entropy_n += entropy.numel();
  if (!with_loss) return;
  const auto f = at::TensorOptions().dtype(at::kFloat);
  at::Tensor adv = at::tensor(adv_v, f).to(run.device);
  at::Tensor old = at::tensor(old_v, f).to(run.device);
  at::Tensor mask = at::ones_like(adv);
  at::Tensor ref;
  if (run.reference) {
    at::NoGradGuard ng;
    ref = ScoredLogProbs(*run.reference, tb, false, run.o.temperature, nullptr, run.o.loss_chunk);
  }
  const SurrogateOptions so{run.o.clip_low, run.o.clip_high, run.o.kl};
  SurrogateResult sr =
      ClippedSurrogate(new_logp, old, adv, mask, ref, so, static_cast<double>(u.loss_tokens));
  sr.loss.backward();
  u.loss += sr.loss.item<double>();
  u.clipped += sr.clipped;
  u.kl_sum += sr.kl_sum;
}

// Recomputed log-probs, the clipped surrogate over micro-batches of rows within the token
// budget, and one AdamW step at `lr` (none when no rollout carries loss).
UpdateStats UpdatePolicy(Runner& run, const StepRollouts& acc, double lr) {
  UpdateStats u;
  Trainable& t = run.m.trainable;
  for (const Param& p : t.params) p.value.mutable_grad().reset();
  for (size_t i = 0; i < acc.rollouts.size(); ++i) {
    if (acc.carries_loss[i]) u.loss_tokens += static_cast<int64_t>(acc.rollouts[i].tokens.size());
  }
  for (const bool with_loss : {true, false}) {
    std::vector<size_t> rows;
    int64_t longest = 0;
    for (size_t i = 0; i < acc.rollouts.size(); ++i) {
      if (acc.carries_loss[i] != with_loss || acc.rollouts[i].tokens.empty()) continue;
      const int64_t len = static_cast<int64_t>(run.pool.tasks[acc.rollouts[i].task].ids.size() +
                                               acc.rollouts[i].tokens.size());
      if (!rows.empty() && std::max(longest, len) * static_cast<int64_t>(rows.size() + 1) >
                               run.o.update_batch_tokens) {
        UpdateMicroBatch(run, acc, rows, with_loss, u);
        rows.clear();
        longest = 0;
      }
      rows.push_back(i);
      longest = std::max(longest, len);
    }
    if (!rows.empty()) UpdateMicroBatch(run, acc, rows, with_loss, u);
  }
  if (u.loss_tokens > 0) {
    u.grad_norm = ClipGradNorm(t, run.o.grad_clip);
    AdamWStep(t, run.adam, lr, run.adam_options);
  }
  return u;
}

// ---- Log and save.

Status SaveCheckpoint(const Runner& run) {
  json st = {{"trainer", "grpo"},
             {"step", run.step},
             {"options", TrajectoryOptions(run.o)},
             {"sampler", run.sampler->SaveState()},
             {"run_nonce", run.run_nonce},
             {"tasks_sha256", run.pool.hash},
             {"pending", run.pending ? GenBatchToJson(*run.pending) : json(nullptr)}};
  TRITONRL_RETURN_IF_ERROR(SaveTrainCheckpoint(run.ckpt_dir, run.m.trainable, run.adam,
                                               run.m.tokenizer, run.m.end_of_turn, st.dump(),
                                               run.m.carried_files));
  return SaveServedCopy(run.o.save_dtype, run.o.out, run.m);
}

void LogStep(Runner& run, const GrpoStepMetrics& s, const StepRollouts& acc, const UpdateStats& u,
             double elapsed_s) {
  const double n = static_cast<double>(acc.rollouts.size());
  json line = MetricsJson(s);
  for (int c = 0; c < rl::kOutcomeClasses; ++c) {
    line[std::string("share_") + rl::OutcomeClassName(static_cast<rl::OutcomeClass>(c))] =
        static_cast<double>(acc.classes[static_cast<size_t>(c)]) / n;
  }
  line["loss"] = u.loss;
  line["grad_norm"] = u.grad_norm;
  line["loss_tokens"] = u.loss_tokens;
  line["constant_groups"] = acc.constant_groups;
  line["updated"] = u.loss_tokens > 0;
  line["elapsed_s"] = elapsed_s;
  if (run.text_reward) line["text_reward_rate"] = s.text_reward_rate;
  run.metrics << line.dump() << "\n" << std::flush;
  for (const json& r : acc.rollout_lines) run.rollouts_log << r.dump() << "\n";
  run.rollouts_log.flush();
}

std::string ProgressStats(const GrpoStepMetrics& s, bool text_reward) {
  char stats[200];
  std::snprintf(stats, sizeof stats,
                "%s %.3f correct %.2f groups %lld/%lld in %lld round%s len %.0f %.0f tok/s",
                text_reward ? "text reward" : "R_correct",
                text_reward ? s.text_reward_rate : s.reward_correct, s.correct_rate,
                static_cast<long long>(s.informative_groups),
                static_cast<long long>(s.sampled_groups), static_cast<long long>(s.rounds),
                s.rounds == 1 ? "" : "s", s.response_tokens, s.gen_tokens_per_second);
  return stats;
}

// ---- The loop.

Result<GrpoSummary> RunGrpoImpl(GrpoOptions options, const GrpoStepCallback& on_step) {
  auto set_up = SetUp(std::move(options));
  if (!set_up.ok()) return set_up.status();
  Runner& run = **set_up;
  const GrpoOptions& o = run.o;
  GrpoSummary summary;
  summary.description = run.description;
  Progress bar(o.progress);
  const auto t0 = Clock::now();
  const int64_t first_step = run.step;
  while (run.step < o.steps) {
    const int64_t this_step = run.step + 1;
    GrpoStepMetrics s;
    s.step = this_step;
    auto acc = SampleStep(run, this_step, s);
    if (!acc.ok()) return acc.status();
    const auto tu0 = Clock::now();
    s.lr = StepLr(o, run.step);
    const UpdateStats u = UpdatePolicy(run, *acc, s.lr);
    s.entropy = u.entropy_n ? u.entropy_sum / static_cast<double>(u.entropy_n) : 0.0;
    s.clip_fraction = u.loss_tokens ? u.clipped / static_cast<double>(u.loss_tokens) : 0.0;
    s.kl = u.loss_tokens ? u.kl_sum / static_cast<double>(u.loss_tokens) : 0.0;
    s.update_seconds = Since(tu0);
    run.step = this_step;
    LogStep(run, s, *acc, u, Since(t0));
    if (summary.steps == 0 && run.step == first_step + 1) summary.first = s;
    summary.last = s;
    summary.steps = run.step;
    const double eta =
        (o.steps - run.step) * Since(t0) / static_cast<double>(run.step - first_step);
    bar.Update(run.step, o.steps, ProgressStats(s, run.text_reward.has_value()), eta);
    if (on_step) on_step(s);
    const bool last = run.step == o.steps || run.step == o.stop_after;
    if (last || (o.save_every > 0 && run.step % o.save_every == 0)) {
      TRITONRL_RETURN_IF_ERROR(SaveCheckpoint(run));
      summary.checkpoint = run.ckpt_dir;
    }
    if (run.step == o.stop_after) break;
  }
  summary.steps = run.step;
  return summary;
}

}  // namespace

Result<std::map<int, double>> ParseLevels(const std::string& text) {
  return ParseLevelsText(text);
}

Result<GrpoSummary> RunGrpo(const GrpoOptions& options, const GrpoStepCallback& on_step) {
  try {
    return RunGrpoImpl(options, on_step);
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("training failed: ") + e.what_without_backtrace());
  } catch (const json::exception& e) {
    return Status::Corruption(std::string("training state: ") + e.what());
  }
}

}  // namespace tritonrl::train
