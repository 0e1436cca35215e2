#include "demo/policy_eval.h"

#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

#include "base/file.h"
#include "data/sft.h"
#include "demo/context.h"
#include "model/policy.h"
#include "train/sft_data.h"

namespace tritonrl::demo {

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::optional<double> PassAt(const metrics::GroupMetrics& g, int k) {
  for (const auto& p : g.pass_at_k) {
    if (p.criterion == "correct" && p.k == k) return p.value;
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<EvalTask>> LoadEvalTasks(const std::string& suite,
                                            const std::vector<std::string>& ids) {
  std::vector<EvalTask> tasks;
  for (const auto& id : ids) {
    const std::string path = suite + "/" + id + ".py";
    auto text = ReadFile(path);
    if (!text.ok()) return text.status();
    tasks.push_back({id, train::TaskInstruction(*text)});
  }
  return tasks;
}

Result<EvalSummary> Summarize(const std::vector<scoring::ScoredSample>& verdicts, int k) {
  if (k < 1) return Status::InvalidArgument("k must be at least 1");
  std::vector<metrics::SampleResult> samples;
  bool timed = false;
  for (const auto& v : verdicts) {
    timed = timed || v.speedup.has_value();
    samples.push_back(scoring::MetricsInput(v));
  }
  metrics::MetricsOptions mo;
  mo.fast_p = {1.0};
  mo.pass_k = {1};
  if (k > 1) mo.pass_k.push_back(k);
  const metrics::Metrics m = metrics::ComputeMetrics(samples, mo);
  const metrics::GroupMetrics& g = m.overall;
  EvalSummary s;
  s.tasks = g.tasks;
  s.samples = g.samples;
  s.k = k;
  if (g.samples > 0) {
    const auto p1 = PassAt(g, 1), pk = PassAt(g, k);
    if (!p1 || !pk) {
      return Status::InvalidArgument("some task has fewer than k=" + std::to_string(k) +
                                     " samples (" + std::to_string(g.min_samples_per_task) +
                                     " at least)");
    }
    s.pass_at_1 = *p1;
    s.pass_at_k = *pk;
  }
  s.valid_rate = g.valid_rate;
  s.compiled_rate = g.compiled_rate;
  s.correct_rate = g.correct_rate;
  if (timed && !g.fast_p.empty()) s.fast1_rate = g.fast_p.front().rate;
  s.shares = g.shares;
  return s;
}

nlohmann::json SummaryJson(const EvalSummary& s) {
  nlohmann::json j = {{"tasks", s.tasks},
                      {"samples", s.samples},
                      {"k", s.k},
                      {"pass_at_1", s.pass_at_1},
                      {"pass_at_k", s.pass_at_k},
                      {"valid_rate", s.valid_rate},
                      {"compiled_rate", s.compiled_rate},
                      {"correct_rate", s.correct_rate},
                      {"fast1_rate", nullptr},
                      {"truncated", s.truncated},
                      {"invalid_syntax_share", s.shares.invalid_syntax_share},
                      {"invalid_functionality_share", s.shares.invalid_functionality_share},
                      {"incorrect_share", s.shares.other_share},
                      {"correct_share", s.shares.correct_share}};
  if (s.fast1_rate) j["fast1_rate"] = *s.fast1_rate;
  return j;
}

Result<EvalSummary> SummaryFromJson(const nlohmann::json& j) {
  try {
    EvalSummary s;
    s.tasks = j.at("tasks").get<int64_t>();
    s.samples = j.at("samples").get<int64_t>();
    s.k = j.at("k").get<int>();
    s.pass_at_1 = j.at("pass_at_1").get<double>();
    s.pass_at_k = j.at("pass_at_k").get<double>();
    s.valid_rate = j.at("valid_rate").get<double>();
    s.compiled_rate = j.at("compiled_rate").get<double>();
    s.correct_rate = j.at("correct_rate").get<double>();
    if (!j.at("fast1_rate").is_null()) s.fast1_rate = j.at("fast1_rate").get<double>();
    s.truncated = j.at("truncated").get<int64_t>();
    metrics::OutcomeShares& o = s.shares;
    o.invalid_syntax_share = j.at("invalid_syntax_share").get<double>();
    o.invalid_functionality_share = j.at("invalid_functionality_share").get<double>();
    o.other_share = j.at("incorrect_share").get<double>();
    o.correct_share = j.at("correct_share").get<double>();
    const double n = static_cast<double>(s.samples);
    o.invalid_syntax = std::llround(o.invalid_syntax_share * n);
    o.invalid_functionality = std::llround(o.invalid_functionality_share * n);
    o.other = std::llround(o.other_share * n);
    o.correct = std::llround(o.correct_share * n);
    return s;
  } catch (const nlohmann::json::exception& e) {
    return Status::ParseError(std::string("evaluation summary: ") + e.what());
  }
}

Result<std::string> GenerateSamples(const PolicyEvalOptions& o, const std::vector<EvalTask>& tasks,
                                    const GenerateCallbacks& callbacks) {
  if (o.k < 1) return Status::InvalidArgument("k must be at least 1");
  const size_t per_batch = static_cast<size_t>(std::max<int64_t>(1, o.prompts_per_batch));
  std::shared_ptr<model::Policy> policy;
  std::optional<model::ChatTemplate> chat;
  model::SamplingOptions so;
  for (size_t first = 0; first < tasks.size(); first += per_batch) {
    const size_t last = std::min(tasks.size(), first + per_batch);
    if (callbacks.wanted && !callbacks.wanted(first, last)) continue;
    if (!policy) {
      model::PolicyOptions po;
      po.model = o.model;
      po.device = o.device;
      po.dtype = o.dtype;
      po.builtin_seed = o.builtin_seed;
      auto loaded = model::LoadPolicy(po);
      if (!loaded.ok()) return WithContext("load " + o.model, loaded.status());
      policy = *loaded;
      auto loaded_chat = model::LoadChatTemplate(o.model);
      if (!loaded_chat.ok()) return loaded_chat.status();
      chat = std::move(loaded_chat.value());
      so.temperature = o.temperature;
      so.top_p = o.top_p;
      so.max_new_tokens = o.max_new_tokens;
      so.num_samples = o.k;
      so.stop_token_ids = model::DefaultStopTokens(*policy);
    }
    std::vector<std::string> prompts;
    for (size_t i = first; i < last; ++i) {
      auto prompt = train::SftPromptText(*chat, tasks[i].instruction);
      if (!prompt.ok()) return WithContext(tasks[i].id, prompt.status());
      prompts.push_back(std::move(prompt.value()));
    }
    // A seed per batch, so a batch's samples do not depend on how the tasks were cut.
    so.seed = o.seed * 1000003ull + first;
    auto out = model::GenerateText(*policy, prompts, so);
    if (!out.ok()) return WithContext("generate", out.status());
    std::vector<GeneratedSample> batch(prompts.size() * static_cast<size_t>(o.k));
    for (const auto& c : *out) {
      const size_t i = static_cast<size_t>(c.prompt_index) * o.k + c.sample_index;
      if (i >= batch.size()) return Status::Internal("generate: completion index out of range");
      batch[i] = {tasks[first + c.prompt_index].id,
                  "s" + std::to_string(c.sample_index),
                  c.text,
                  c.finish_reason,
                  static_cast<int>(c.sample_index),
                  static_cast<int64_t>(c.tokens.size())};
    }
    if (auto s = callbacks.on_batch(std::move(batch)); !s.ok()) return s;
  }
  return policy ? model::PolicyDescription(*policy) : std::string();
}

Result<PolicyEvalResult> EvaluatePolicy(const PolicyEvalOptions& o,
                                        const std::vector<EvalTask>& tasks,
                                        scoring::Scorer& scorer) {
  if (o.k < 1) return Status::InvalidArgument("k must be at least 1");
  if (tasks.empty()) return Status::InvalidArgument("no task to evaluate");
  PolicyEvalResult r;
  const auto t_gen = Clock::now();
  GenerateCallbacks callbacks;
  callbacks.on_batch = [&](std::vector<GeneratedSample> batch) {
    for (auto& g : batch) r.generated.push_back(std::move(g));
    return Status::Ok();
  };
  auto policy = GenerateSamples(o, tasks, callbacks);
  if (!policy.ok()) return policy.status();
  r.policy = *policy;
  r.generate_seconds = Since(t_gen);

  std::vector<scoring::Sample> samples;
  for (const auto& g : r.generated) samples.push_back({g.task, g.id, g.text});
  const auto t_score = Clock::now();
  auto scored = scorer.Score(samples);
  if (!scored.ok()) return WithContext("score", scored.status());
  if (scored->samples.size() != samples.size()) {
    return Status::Internal("score: " + std::to_string(scored->samples.size()) + " verdicts for " +
                            std::to_string(samples.size()) + " samples");
  }
  r.score_seconds = Since(t_score);
  r.run_id = scored->run_id;
  r.verdicts = std::move(scored->samples);
  auto summary = Summarize(r.verdicts, o.k);
  if (!summary.ok()) return summary.status();
  r.summary = *summary;
  for (const auto& g : r.generated) r.summary.truncated += g.finish_reason == "length";
  return r;
}

}  // namespace tritonrl::demo
