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

  std::optional<rl::AdvantageConfig> adv_config;
  const json& request = *parsed.value;
  if (auto a = request.find("advantages"); a != request.end() && !a->is_null()) {
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
    if (!ar.ok()) return ErrorReply(ar.error());
    adv_config = c;
  }

  std::vector<scoring::Sample> samples;
  std::vector<RolloutTokens> tokens;
  std::set<std::string> ids;
  for (size_t i = 0; i < rollouts->size(); ++i) {
    FieldReader r((*rollouts)[i], ElementPath("rollouts", i),
                  {"id", "output", "code", "token_offsets", "num_tokens", "plan_span"});
    auto s = ReadSampleFields(r, ctx.limits, i, *task);
    std::optional<RolloutTokens> t;
    if (s) t = ReadTokens(r, *s);
    if (!r.ok()) return ErrorReply(r.error());
    if (t->num_tokens && !adv_config)
      return ErrorReply(BadField(r.PathOf(t->spans.plan ? "plan_span" : "num_tokens"),
                                 "missing_field", "token spans need \"advantages\""));
    if (!ids.insert(s->id).second)
      return ErrorReply(
          BadField(r.PathOf("id"), "duplicate_id",
                   fmt::format("rollout id \"{}\" is used twice", s->id.substr(0, 64))));
    samples.push_back(std::move(*s));
    tokens.push_back(std::move(*t));
  }

  auto id = ctx.jobs->Submit(samples, "reward");
  if (!id.ok()) {
    return ErrorReply({id.status().code() == StatusCode::kUnavailable ? 503 : 500, "busy", "",
                       id.status().message()});
  }
  const auto deadline = std::chrono::steady_clock::now() + ctx.limits.request_timeout;
  auto snap = ctx.jobs->Get(*id);
  while (snap && snap->state == JobState::kRunning && std::chrono::steady_clock::now() < deadline)
    snap = ctx.jobs->WaitForProgress(*id, snap->done, deadline);
  if (!snap || snap->state == JobState::kRunning)
    return ErrorWithJob({504, "timeout", "",
                         "the rollouts were not scored within the request timeout; the job "
                         "goes on: GET /v1/jobs/" +
                             *id},
                        *id);
  if (snap->state != JobState::kDone)
    return ErrorWithJob({503, "not_scored", "", "the job ended early: " + snap->error}, *id);
  for (const auto& r : snap->results) {
    if (!r) return ErrorWithJob({503, "not_scored", "", "a rollout got no verdict"}, *id);
  }

  std::vector<rl::Rewards> rewards;
  json out = json::array();
  // Without "advantages", the scalar is the default mode's (TritonRL's uniform mix).
  const rl::AdvantageConfig scalar_config = adv_config.value_or(rl::AdvantageConfig{});
  for (size_t i = 0; i < snap->results.size(); ++i) {
    const scoring::ScoredSample& s = *snap->results[i];
    const rl::Rewards rw = rl::ComputeRewards(scoring::RolloutVerdictOf(s), reward_config);
    rewards.push_back(rw);
    json j = {{"id", s.id},
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
              {"reward", rl::ScalarReward(rw, scalar_config)}};
    out.push_back(std::move(j));
  }
  json reply = {{"task", *task}, {"job", *id}, {"rollouts", nullptr}};
  if (adv_config) {
    auto group = rl::ComputeGroupAdvantages(rewards, *adv_config);
    if (!group.ok()) return ErrorReply({500, "internal", "", group.status().message()});
    for (size_t i = 0; i < out.size(); ++i) {
      const rl::RolloutAdvantage& a = group->rollouts[i];
      out[i]["adv_plan"] = a.plan;
      out[i]["adv_code"] = a.code;
      if (!tokens[i].num_tokens) continue;
      auto spans = rl::TokenAdvantageSpans(*tokens[i].num_tokens, tokens[i].spans, a);
      if (!spans.ok()) return ErrorReply({500, "internal", "", spans.status().message()});
      json js = json::array();
      for (const auto& sp : *spans) js.push_back({sp.begin, sp.end, sp.advantage});
      out[i]["token_spans"] = js;
      out[i]["plan_tokens"] = tokens[i].spans.plan
                                  ? json({tokens[i].spans.plan->begin, tokens[i].spans.plan->end})
                                  : json(nullptr);
      out[i]["num_tokens"] = *tokens[i].num_tokens;
    }
    reply["advantages"] = {{"mode", rl::AdvantageModeName(adv_config->mode)},
                           {"constant", group->constant},
                           {"filtered", group->filtered}};
  }
  reply["rollouts"] = std::move(out);
  return JsonReply(200, reply);
}

}  // namespace tritonrl::serve
