#include "rl/rollout_group.h"

namespace tritonrl::rl {

Result<TruncatedPolicy> ParseTruncatedPolicy(const std::string& name) {
  if (name == "penalize") return TruncatedPolicy::kPenalize;
  if (name == "exclude") return TruncatedPolicy::kExclude;
  return Status::InvalidArgument("--truncated must be penalize or exclude, not '" + name + "'");
}

namespace {

// A measured speedup the rewards trust: timed, and no flag voided or refused it.
bool SpeedupTrusted(const Rewards& rewards, std::optional<double> speedup) {
  return !rewards.speedup_voided && !rewards.speedup_missing && speedup.has_value();
}

// Each rollout's rewards once from its verdict, then the truncation policy: a truncated
// response under kPenalize earns what a rejected one earns; under kExclude it is masked.
GroupTokenAdvantages RewardsOf(std::span<const GroupRollout> group,
                               const RewardConfig& reward_config, TruncatedPolicy truncated) {
  GroupTokenAdvantages out;
  const Rewards rejected = ComputeRewards(RolloutVerdict{}, reward_config);
  for (const GroupRollout& g : group) {
    RolloutTokenAdvantages r;
    r.verdict_rewards =
        g.given_rewards ? *g.given_rewards : ComputeRewards(g.verdict, reward_config);
    const bool penalized = g.truncated && truncated == TruncatedPolicy::kPenalize;
    r.rewards = penalized ? rejected : r.verdict_rewards;
    r.masked = g.truncated && truncated == TruncatedPolicy::kExclude;
    out.rollouts.push_back(std::move(r));
  }
  return out;
}

}  // namespace

Result<GroupTokenAdvantages> ComputeGroupTokenAdvantages(std::span<const GroupRollout> group,
                                                         const RewardConfig& reward_config,
                                                         const AdvantageConfig& config,
                                                         TruncatedPolicy truncated) {
  if (group.empty()) return Status::InvalidArgument("empty group");
  TRITONRL_RETURN_IF_ERROR(ValidateRewardConfig(reward_config));
  TRITONRL_RETURN_IF_ERROR(ValidateAdvantageConfig(config));
  GroupTokenAdvantages out = RewardsOf(group, reward_config, truncated);
  std::vector<Rewards> kept;  // rewards of the rollouts in the group statistics
  std::vector<RolloutVerdict> kept_verdicts;
  std::vector<size_t> kept_index;
  for (size_t i = 0; i < out.rollouts.size(); ++i) {
    if (out.rollouts[i].masked) continue;
    kept.push_back(out.rollouts[i].rewards);
    kept_verdicts.push_back(group[i].verdict);
    kept_index.push_back(i);
  }
  ApplyGroupSpeedupRules(kept, kept_verdicts, reward_config);
  for (size_t k = 0; k < kept.size(); ++k) out.rollouts[kept_index[k]].rewards = kept[k];
  if (kept.empty()) {
    out.constant = true;
    out.filtered = config.filter_constant_groups;
  } else {
    auto adv = ComputeGroupAdvantages(kept, config);
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
    CompletionSpans spans;
    spans.plan = group[i].plan_tokens;
    auto token_spans = TokenAdvantageSpans(group[i].num_tokens, spans, r.advantage);
    if (!token_spans.ok()) return token_spans.status();
    TRITONRL_RETURN_IF_ERROR(FillAdvantageRow(*token_spans, r.per_token));
  }
  return out;
}

Rewards TextRewards(bool matched, AdvantageMode mode) {
  const double r = matched ? 1.0 : 0.0;
  Rewards out;
  out.valid = true;
  out.r_speedup = r;
  if (mode != AdvantageMode::kHrd) {
    out.r_correct = r;
    out.r_binary = r;
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

OutcomeClass ClassifyOutcome(vocab::Outcome outcome, const Rewards& rewards,
                             std::optional<double> speedup) {
  switch (outcome) {
    case vocab::Outcome::kInvalidSyntax:
      return OutcomeClass::kInvalidSyntax;
    case vocab::Outcome::kInvalidFunctionality:
      return OutcomeClass::kInvalidFunctionality;
    case vocab::Outcome::kCorrect:
      return (SpeedupTrusted(rewards, speedup) && *speedup > 1.0) ? OutcomeClass::kFast
                                                                  : OutcomeClass::kCorrectSlow;
    default:
      return OutcomeClass::kIncorrect;
  }
}

double CountedSpeedup(vocab::Outcome outcome, const Rewards& rewards,
                      std::optional<double> speedup) {
  const bool trusted = outcome == vocab::Outcome::kCorrect && rewards.r_correct > 0 &&
                       SpeedupTrusted(rewards, speedup) && *speedup > 0;
  return trusted ? *speedup : 0.0;
}

}  // namespace tritonrl::rl
