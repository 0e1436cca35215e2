#include "train/grpo_rollouts.h"

#include <string_view>

#include "verify/output.h"

namespace tritonrl::train {

Result<TruncatedPolicy> ParseTruncatedPolicy(const std::string& name) {
  if (name == "penalize") return TruncatedPolicy::kPenalize;
  if (name == "exclude") return TruncatedPolicy::kExclude;
  return Status::InvalidArgument("--truncated must be penalize or exclude, not '" + name + "'");
}

Result<GroupTokenAdvantages> ComputeGroupTokenAdvantages(std::span<const GroupRollout> group,
                                                         const rl::RewardConfig& reward_config,
                                                         const rl::AdvantageConfig& config,
                                                         TruncatedPolicy truncated) {
  if (group.empty()) return Status::InvalidArgument("empty group");
  TRITONRL_RETURN_IF_ERROR(rl::ValidateRewardConfig(reward_config));
  TRITONRL_RETURN_IF_ERROR(rl::ValidateAdvantageConfig(config));
  GroupTokenAdvantages out;
  std::vector<rl::Rewards> kept;  // rewards of the rollouts in the group statistics
  std::vector<size_t> kept_index;
  for (size_t i = 0; i < group.size(); ++i) {
    const GroupRollout& g = group[i];
    RolloutTokenAdvantages r;
    // A truncated response under kPenalize is scored as if the verifier had rejected it.
    r.rewards = (g.truncated && truncated == TruncatedPolicy::kPenalize)
                    ? rl::ComputeRewards(rl::RolloutVerdict{}, reward_config)
                    : rl::ComputeRewards(g.verdict, reward_config);
    r.masked = g.truncated && truncated == TruncatedPolicy::kExclude;
    if (!r.masked) {
      kept.push_back(r.rewards);
      kept_index.push_back(i);
    }
    out.rollouts.push_back(std::move(r));
  }
  if (kept.empty()) {
    out.constant = true;
    out.filtered = config.filter_constant_groups;
  } else {
    auto adv = rl::ComputeGroupAdvantages(kept, config);
    if (!adv.ok()) return adv.status();
    out.constant = adv->constant;
    out.filtered = adv->filtered;
    for (size_t k = 0; k < kept.size(); ++k) {
      out.rollouts[kept_index[k]].advantage = adv->rollouts[k];
    }
  }
  for (size_t i = 0; i < group.size(); ++i) {
    RolloutTokenAdvantages& r = out.rollouts[i];
    if (out.filtered) r.masked = true;
    r.per_token.assign(static_cast<size_t>(group[i].num_tokens), 0.0f);
    if (r.masked) {
      r.advantage = {};
      continue;
    }
    rl::CompletionSpans spans;
    spans.plan = group[i].plan_tokens;
    auto token_spans = rl::TokenAdvantageSpans(group[i].num_tokens, spans, r.advantage);
    if (!token_spans.ok()) return token_spans.status();
    TRITONRL_RETURN_IF_ERROR(rl::FillAdvantageRow(*token_spans, r.per_token));
  }
  return out;
}

int64_t DynamicSampling::NextRoundTasks() const {
  if (rounds == 0) return tasks_per_step;
  if (rounds >= max_rounds || informative >= tasks_per_step) return 0;
  return tasks_per_step - informative;
}

void DynamicSampling::Record(int64_t groups, int64_t informative_groups) {
  ++rounds;
  sampled += groups;
  informative += informative_groups;
}

std::optional<rl::IndexRange> PlanTokenRange(const model::Tokenizer& tok,
                                             std::span<const int32_t> tokens) {
  std::string text;
  std::vector<rl::TokenOffset> offsets;
  for (int32_t id : tokens) {
    const int64_t begin = static_cast<int64_t>(text.size());
    const bool special = id >= 0 && static_cast<size_t>(id) < tok.is_special.size() &&
                         tok.is_special[static_cast<size_t>(id)];
    // Special tokens (the stop token) are not text the verifier sees.
    if (!special && id >= 0 && static_cast<size_t>(id) < tok.token_bytes.size()) {
      text += tok.token_bytes[static_cast<size_t>(id)];
    }
    offsets.push_back({begin, static_cast<int64_t>(text.size())});
  }
  const verify::ModelOutput split = verify::SplitModelOutput(text);
  if (!split.plan || split.plan->begin == split.plan->end) return std::nullopt;
  const rl::IndexRange chars{static_cast<int64_t>(split.plan->begin),
                             static_cast<int64_t>(split.plan->end)};
  auto ranges = rl::CharSpansToTokenSpans(offsets, std::span(&chars, 1));
  if (!ranges.ok() || ranges->empty() || ranges->front().empty()) return std::nullopt;
  return ranges->front();
}

const char* OutcomeClassName(OutcomeClass c) {
  switch (c) {
    case OutcomeClass::kInvalidSyntax:
      return "invalid_syntax";
    case OutcomeClass::kInvalidFunctionality:
      return "invalid_functionality";
    case OutcomeClass::kIncorrect:
      return "incorrect";
    case OutcomeClass::kCorrectSlow:
      return "correct_not_fast";
    case OutcomeClass::kFast:
      return "fast";
  }
  return "incorrect";
}

OutcomeClass ClassifyOutcome(vocab::Outcome outcome, const rl::Rewards& rewards,
                             std::optional<double> speedup) {
  switch (outcome) {
    case vocab::Outcome::kInvalidSyntax:
      return OutcomeClass::kInvalidSyntax;
    case vocab::Outcome::kInvalidFunctionality:
      return OutcomeClass::kInvalidFunctionality;
    case vocab::Outcome::kCorrect:
      return (!rewards.speedup_voided && !rewards.speedup_missing && speedup && *speedup > 1.0)
                 ? OutcomeClass::kFast
                 : OutcomeClass::kCorrectSlow;
    default:
      return OutcomeClass::kIncorrect;
  }
}

}  // namespace tritonrl::train
