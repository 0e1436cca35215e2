// One GRPO group from verdicts to per-token advantages: the one home of
// verdict -> rewards -> group advantages -> token rows, used alike by the
// trainer (train/grpo.cpp) and the reward service (serve/reward_endpoint.cpp).
// Each rollout's rewards are computed once, from its verdict (rl/rewards.h);
// truncated responses are penalised (reward 0) or excluded (masked, outside the
// group statistics); HRD gives the plan tokens alpha * A(speedup) and every
// other token A(correct) (rl/advantages.h, rl/token_spans.h). Also DAPO's
// dynamic sampling count and TritonRL's Figure 5 outcome classes. Pure
// functions, no libtorch; callable from any thread.
//
//   std::vector<rl::GroupRollout> group = ...;  // G rollouts of one task
//   auto adv = rl::ComputeGroupTokenAdvantages(group, reward_config, adv_config,
//                                              rl::TruncatedPolicy::kPenalize);
//   // adv->rollouts[i].per_token: one float per response token of rollout i
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "rl/advantages.h"
#include "rl/rewards.h"
#include "rl/token_spans.h"
#include "vocab/verdict_vocab.h"

namespace tritonrl::rl {

enum class TruncatedPolicy {
  kPenalize,  // a response that hit max_new_tokens earns nothing (treated as invalid)
  kExclude,   // left out of the group statistics and of the loss
};
Result<TruncatedPolicy> ParseTruncatedPolicy(const std::string& name);  // penalize | exclude

// One sampled response with its verdict.
struct GroupRollout {
  int64_t num_tokens = 0;                 // response tokens, stop token included
  std::optional<IndexRange> plan_tokens;  // HRD plan span in token indices; none: no plan
  RolloutVerdict verdict;
  bool truncated = false;  // hit max_new_tokens without the stop token
  // Rewards decided without a verdict (a text reward, TextRewards): used instead of the
  // verdict's.
  std::optional<Rewards> given_rewards;
};

// A reward from the text alone (the trainer's --text-reward-plan): `matched` is 1, else 0.
// Under HRD it is R_speedup with R_correct held at 0, so only the plan tokens get an advantage;
// in the uniform and binary modes every reward is `matched`, so every token does.
Rewards TextRewards(bool matched, AdvantageMode mode);

struct RolloutTokenAdvantages {
  Rewards verdict_rewards;  // the verdict's own rewards (what the outcome class reads)
  Rewards rewards;          // after the truncation policy (what the advantages read)
  RolloutAdvantage advantage;
  std::vector<float> per_token;  // num_tokens values (zeros when masked)
  bool masked = false;           // excluded (truncated under kExclude): carries no loss
};

struct GroupTokenAdvantages {
  std::vector<RolloutTokenAdvantages> rollouts;  // input order
  bool constant = false;
  bool filtered = false;  // constant and DAPO filtering on: every rollout masked
};

// Rewards once per rollout, the truncation policy, the speedup rules over the rollouts in the
// group statistics (ApplyGroupSpeedupRules: noise floor, unknown speedups imputed), group
// advantages and token rows. Fails on an
// empty group or an invalid config.
Result<GroupTokenAdvantages> ComputeGroupTokenAdvantages(std::span<const GroupRollout> group,
                                                         const RewardConfig& reward_config,
                                                         const AdvantageConfig& config,
                                                         TruncatedPolicy truncated);

// DAPO's dynamic sampling within one GRPO step: round 1 draws tasks_per_step tasks; after
// each round, while fewer than tasks_per_step of the step's groups are informative
// (non-constant rewards) and fewer than max_rounds rounds are spent, the next round draws
// the shortfall. The step's update has at most tasks_per_step informative groups.
struct DynamicSampling {
  int64_t tasks_per_step = 1;
  int64_t max_rounds = 1;
  int64_t rounds = 0;       // rounds sampled so far
  int64_t sampled = 0;      // groups sampled so far
  int64_t informative = 0;  // of them, groups with non-constant rewards

  // Tasks the next round draws; 0: the step has its groups.
  int64_t NextRoundTasks() const;
  // A round of `groups` groups, `informative_groups` of them informative.
  void Record(int64_t groups, int64_t informative_groups);
};

// TritonRL Figure 5's five outcome classes of a rollout.
enum class OutcomeClass { kInvalidSyntax, kInvalidFunctionality, kIncorrect, kCorrectSlow, kFast };
inline constexpr int kOutcomeClasses = 5;
const char* OutcomeClassName(OutcomeClass c);  // invalid_syntax ... fast
// fast: correct with a trusted speedup above 1 (no speedup-void flag).
OutcomeClass ClassifyOutcome(vocab::Outcome outcome, const Rewards& rewards,
                             std::optional<double> speedup);
// The speedup a sample counts for in a mean speedup over all samples, as TritonRL reports it:
// the trusted speedup of a correct sample that earns R_correct (no speedup-void flag, timed), 0
// for any other sample.
double CountedSpeedup(vocab::Outcome outcome, const Rewards& rewards,
                      std::optional<double> speedup);

}  // namespace tritonrl::rl
