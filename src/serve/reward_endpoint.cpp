// POST /v1/reward: the rollouts of one task scored as a job, then TritonRL's rewards (src/rl) and,
// when "advantages" is given, the group's advantages and each rollout's token spans.
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rl/advantages.h"
#include "rl/rewards.h"
#include "rl/token_spans.h"
#include "scoring/rollout_verdict.h"
#include "serve/endpoints.h"
#include "serve/eval_request.h"
#include "serve/jobs.h"
#include "verify/output.h"

namespace tritonrl::serve {

using nlohmann::json;

namespace {

constexpr int64_t kMaxTokens = int64_t{1} << 24;

// Where the advantages of one rollout go: its length in tokens and its plan's token range.
struct RolloutTokens {
  std::optional<int64_t> num_tokens;  // none: no token spans asked for
  rl::CompletionSpans spans;
};

// A [begin, end] pair of non-negative integers at `path`.
std::optional<std::pair<int64_t, int64_t>> ReadPair(const json& v, const std::string& path,
                                                    FieldReader& r) {
  if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer() ||
      v[0].get<int64_t>() < 0 || v[1].get<int64_t>() < v[0].get<int64_t>()) {
    r.Fail(BadField(path, "wrong_type", path + " must be [begin, end] with 0 <= begin <= end"));
    return std::nullopt;
  }
  return std::make_pair(v[0].get<int64_t>(), v[1].get<int64_t>());
}

// token_offsets (code points of the output per token, as a tokenizer's offset mapping gives
// them) or num_tokens with an optional plan_span in token indices, checked before anything runs.
std::optional<RolloutTokens> ReadTokens(FieldReader& r, const scoring::Sample& sample) {
  RolloutTokens t;
  const json* offsets = r.Array("token_offsets", Need::kOptional, kMaxTokens, true);
  auto num = r.Integer("num_tokens", Need::kOptional, 0, kMaxTokens);
  const json* plan = r.Array("plan_span", Need::kOptional, 2);
  if (!r.ok()) return std::nullopt;
  if (offsets && (num || plan)) {
    r.Fail(BadField(r.PathOf("token_offsets"), "conflict",
                    "give token_offsets, or num_tokens with an optional plan_span, not both"));
    return std::nullopt;
  }
  if (plan && !num) {
    r.Fail(BadField(r.PathOf("plan_span"), "missing_field", "plan_span needs num_tokens"));
    return std::nullopt;
  }
  if (offsets) {
    std::vector<rl::TokenOffset> tokens;
    for (size_t i = 0; i < offsets->size(); ++i) {
      auto p = ReadPair((*offsets)[i], ElementPath(r.PathOf("token_offsets"), i), r);
      if (!p) return std::nullopt;
      tokens.push_back({p->first, p->second});
    }
    std::vector<rl::IndexRange> chars;
    if (sample.kind == scoring::TextKind::kOutput) {
      const verify::ModelOutput split = verify::SplitModelOutput(sample.text);
      if (split.plan) {
        chars.push_back({static_cast<int64_t>(split.plan->char_begin),
                         static_cast<int64_t>(split.plan->char_end)});
      }
    }
    auto ranges = rl::CharSpansToTokenSpans(tokens, chars);
    if (!ranges.ok()) {
      r.Fail(BadField(r.PathOf("token_offsets"), "bad_value", ranges.status().message()));
      return std::nullopt;
    }
    if (!ranges->empty()) t.spans.plan = (*ranges)[0];
    t.num_tokens = static_cast<int64_t>(tokens.size());
  } else if (num) {
    t.num_tokens = *num;
    if (plan) {
      auto p = ReadPair(*plan, r.PathOf("plan_span"), r);
      if (!p) return std::nullopt;
      t.spans.plan = rl::IndexRange{p->first, p->second};
    }
    if (auto st = rl::ValidateCompletionSpans(t.spans, t.num_tokens); !st.ok()) {
      r.Fail(BadField(r.PathOf("plan_span"), "bad_value", st.message()));
      return std::nullopt;
    }
  }
  return t;
}

Reply ErrorWithJob(const ApiError& e, const std::string& job) {
  Reply r = ErrorReply(e);
  json j = json::parse(r.body);
  j["job"] = job;
  return JsonReply(e.status, j);
}

// The optional "advantages" object: the group advantage config. nullopt with r.ok(): absent.
std::optional<rl::AdvantageConfig> ReadAdvantageConfig(const json& request, FieldReader& top) {
  auto a = request.find("advantages");
  if (a == request.end() || a->is_null()) return std::nullopt;
  FieldReader ar(*a, "advantages",
                 {"mode", "alpha", "beta", "eps", "normalize_by_std", "filter_constant_groups"});
  rl::AdvantageConfig c;
  if (auto mode = ar.String("mode", Need::kOptional, 16)) {
    auto m = rl::ParseAdvantageMode(*mode);
    if (!m.ok())
      ar.Fail(BadField("advantages.mode", "bad_value",
                       "mode must be \"hrd\", \"uniform\" or \"binary\""));
    else
      c.mode = *m;
  }
  if (auto v = ar.Number("alpha", Need::kOptional, 0, 1e6)) c.alpha = *v;
  if (auto v = ar.Number("beta", Need::kOptional, 0, 1)) c.beta = *v;
  if (auto v = ar.Number("eps", Need::kOptional, 1e-12, 1)) c.eps = *v;
  if (auto v = ar.Bool("normalize_by_std", Need::kOptional)) c.normalize_by_std = *v;
  if (auto v = ar.Bool("filter_constant_groups", Need::kOptional)) c.filter_constant_groups = *v;
  if (!ar.ok()) {
    top.Fail(ar.error());
    return std::nullopt;
  }
  return c;
}

// The rollouts as samples of `task` and their token layouts, every field checked before anything
// runs; an error is the reply.
struct ReadRollouts {
  std::vector<scoring::Sample> samples;
  std::vector<RolloutTokens> tokens;
  std::optional<ApiError> error;
};

ReadRollouts ReadRolloutList(const ServeContext& ctx, const json& rollouts, const std::string& task,
                             bool with_advantages) {
  ReadRollouts out;
  std::set<std::string> ids;
  for (size_t i = 0; i < rollouts.size(); ++i) {
    FieldReader r(rollouts[i], ElementPath("rollouts", i),
                  {"id", "output", "code", "token_offsets", "num_tokens", "plan_span"});
    auto s = ReadSampleFields(r, ctx.limits, i, task);
    std::optional<RolloutTokens> t;
    if (s) t = ReadTokens(r, *s);
    if (!r.ok()) {
      out.error = r.error();
      return out;
    }
    if (t->num_tokens && !with_advantages) {
      out.error = BadField(r.PathOf(t->spans.plan ? "plan_span" : "num_tokens"), "missing_field",
                           "token spans need \"advantages\"");
      return out;
    }
    if (!ids.insert(s->id).second) {
      out.error = BadField(r.PathOf("id"), "duplicate_id",
                           fmt::format("rollout id \"{}\" is used twice", s->id.substr(0, 64)));
      return out;
    }
    out.samples.push_back(std::move(*s));
    out.tokens.push_back(std::move(*t));
  }
  return out;
}

// Submits the rollouts as a job and waits for every verdict within the request timeout; an error
// is the reply (with the job id when the job exists).
struct JobOutcome {
  std::string id;
  std::optional<JobSnapshot> snap;
  std::optional<Reply> error;
};

JobOutcome ScoreAsJob(const ServeContext& ctx, const std::vector<scoring::Sample>& samples) {
  JobOutcome out;
  auto id = ctx.jobs->Submit(samples, "reward");
  if (!id.ok()) {
    out.error = ErrorReply({id.status().code() == StatusCode::kUnavailable ? 503 : 500, "busy", "",
                            id.status().message()});
    return out;
  }
  out.id = *id;
  const auto deadline = std::chrono::steady_clock::now() + ctx.limits.request_timeout;
  auto snap = ctx.jobs->Get(*id);
  while (snap && snap->state == JobState::kRunning && std::chrono::steady_clock::now() < deadline)
    snap = ctx.jobs->WaitForProgress(*id, snap->done, deadline);
  if (!snap || snap->state == JobState::kRunning) {
    out.error = ErrorWithJob({504, "timeout", "",
                              "the rollouts were not scored within the request timeout; the job "
                              "goes on: GET /v1/jobs/" +
                                  *id},
                             *id);
    return out;
  }
  if (snap->state != JobState::kDone) {
    out.error = ErrorWithJob({503, "not_scored", "", "the job ended early: " + snap->error}, *id);
    return out;
  }
  for (const auto& r : snap->results) {
    if (!r) {
      out.error = ErrorWithJob({503, "not_scored", "", "a rollout got no verdict"}, *id);
      return out;
    }
  }
  out.snap = std::move(snap);
  return out;
}

// One rollout's verdict and rewards (rl/, through the one adapter), with the one scalar reward.
json RolloutJson(const scoring::ScoredSample& s, const rl::Rewards& rw,
                 const rl::AdvantageConfig& scalar_config) {
  return {{"id", s.id},
          {"outcome", vocab::OutcomeName(s.outcome)},
          {"syntax_ok", s.syntax_ok},
          {"functionality_ok", s.functionality_ok},
          {"valid", s.valid},
          {"compiled", s.compiled},
          {"correct", s.correct},
          {"speedup", s.speedup ? json(*s.speedup) : json(nullptr)},
          {"flags", s.flags},
          {"from_cache", s.from_cache},
          {"r_correct", rw.r_correct},
          {"r_speedup", rw.r_speedup},
          {"r_binary", rw.r_binary},
          {"speedup_voided", rw.speedup_voided},
          {"speedup_missing", rw.speedup_missing},
          {"speedup_imputed", rw.speedup_imputed},
          {"reward", rl::ScalarReward(rw, scalar_config)}};
}

// The group's advantages into each rollout's JSON (and its token spans when it gave them).
std::optional<ApiError> AddAdvantages(const std::vector<rl::Rewards>& rewards,
                                      const std::vector<RolloutTokens>& tokens,
                                      const rl::AdvantageConfig& config, json& out, json& reply) {
  auto group = rl::ComputeGroupAdvantages(rewards, config);
  if (!group.ok()) return ApiError{500, "internal", "", group.status().message()};
  for (size_t i = 0; i < out.size(); ++i) {
    const rl::RolloutAdvantage& a = group->rollouts[i];
    out[i]["adv_plan"] = a.plan;
    out[i]["adv_code"] = a.code;
    if (!tokens[i].num_tokens) continue;
    auto spans = rl::TokenAdvantageSpans(*tokens[i].num_tokens, tokens[i].spans, a);
    if (!spans.ok()) return ApiError{500, "internal", "", spans.status().message()};
    json js = json::array();
    for (const auto& sp : *spans) js.push_back({sp.begin, sp.end, sp.advantage});
    out[i]["token_spans"] = js;
    out[i]["plan_tokens"] = tokens[i].spans.plan
                                ? json({tokens[i].spans.plan->begin, tokens[i].spans.plan->end})
                                : json(nullptr);
    out[i]["num_tokens"] = *tokens[i].num_tokens;
  }
  reply["advantages"] = {{"mode", rl::AdvantageModeName(config.mode)},
                         {"constant", group->constant},
                         {"filtered", group->filtered}};
  return std::nullopt;
}

}  // namespace

Reply HandleReward(const ServeContext& ctx, std::string_view body) {
  auto parsed = ParseJsonObject(body);
  if (!parsed.ok()) return ErrorReply(parsed.error);
  FieldReader top(*parsed.value, "", {"task", "rollouts", "speedup_clip", "advantages"});
  auto task = top.String("task", Need::kRequired, 512);
  const json* rollouts = top.Array("rollouts", Need::kRequired, ctx.limits.max_group);
  rl::RewardConfig reward_config;
  if (auto clip = top.Number("speedup_clip", Need::kOptional, 1e-6, 1e6))
    reward_config.speedup_clip = *clip;
  if (!top.ok()) return ErrorReply(top.error());
  if (auto t = ResolveTask(*ctx.suite, *task, "task"); !t.ok()) return ErrorReply(t.error);
  const std::optional<rl::AdvantageConfig> adv_config = ReadAdvantageConfig(*parsed.value, top);
  if (!top.ok()) return ErrorReply(top.error());

  ReadRollouts read = ReadRolloutList(ctx, *rollouts, *task, adv_config.has_value());
  if (read.error) return ErrorReply(*read.error);
  JobOutcome job = ScoreAsJob(ctx, read.samples);
  if (job.error) return *job.error;

  // Without "advantages", the scalar is the default mode's (TritonRL's uniform mix).
  const rl::AdvantageConfig scalar_config = adv_config.value_or(rl::AdvantageConfig{});
  // The rollouts are one group: the group's speedup rules (rl::ApplyGroupSpeedupRules) hold
  // for the scalar reward as for the advantages.
  std::vector<rl::Rewards> rewards;
  std::vector<rl::RolloutVerdict> verdicts;
  for (const auto& r : job.snap->results) {
    verdicts.push_back(scoring::RolloutVerdictOf(*r));
    rewards.push_back(rl::ComputeRewards(verdicts.back(), reward_config));
  }
  rl::ApplyGroupSpeedupRules(rewards, verdicts, reward_config);
  json out = json::array();
  for (size_t i = 0; i < rewards.size(); ++i) {
    out.push_back(RolloutJson(*job.snap->results[i], rewards[i], scalar_config));
  }
  json reply = {{"task", *task}, {"job", job.id}, {"rollouts", nullptr}};
  if (adv_config) {
    if (auto e = AddAdvantages(rewards, read.tokens, *adv_config, out, reply))
      return ErrorReply(*e);
  }
  reply["rollouts"] = std::move(out);
  return JsonReply(200, reply);
}

}  // namespace tritonrl::serve
