// GRPO's host-side bookkeeping for one group of rollouts (no libtorch): the
// verdicts turned into rewards (rl/rewards.h), group advantages
// (rl/advantages.h) and one advantage per response token, where TritonRL's
// HRD gives the plan tokens (inside the first <think>...</think>, found by the
// verifier's splitter) alpha * A(speedup) and every other token A(correct);
// truncated responses penalised (reward 0) or excluded (masked, outside the
// group statistics); the outcome buckets of TritonRL's Figure 5. Pure
// functions; callable from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/tokenizer.h"
#include "rl/advantages.h"
#include "rl/rewards.h"
#include "rl/token_spans.h"
#include "vocab/verdict_vocab.h"

namespace tritonrl::train {

enum class TruncatedPolicy {
  kPenalize,  // a response that hit max_new_tokens earns nothing (treated as invalid)
  kExclude,   // left out of the group statistics and of the loss
};
Result<TruncatedPolicy> ParseTruncatedPolicy(const std::string& name);  // penalize | exclude

// One sampled response with its verdict.
struct GroupRollout {
  int64_t num_tokens = 0;                     // response tokens, stop token included
  std::optional<rl::IndexRange> plan_tokens;  // HRD plan span in token indices; none: no plan
  rl::RolloutVerdict verdict;
  bool truncated = false;  // hit max_new_tokens without the stop token
};

struct RolloutTokenAdvantages {
  rl::Rewards rewards;  // after the truncation policy
  rl::RolloutAdvantage advantage;
  std::vector<float> per_token;  // num_tokens values (zeros when masked)
  bool masked = false;           // excluded (truncated under kExclude): carries no loss
};

struct GroupTokenAdvantages {
  std::vector<RolloutTokenAdvantages> rollouts;  // input order
  bool constant = false;
  bool filtered = false;  // constant and DAPO filtering on: every rollout masked
};

// Fails on an empty group or an invalid config.
Result<GroupTokenAdvantages> ComputeGroupTokenAdvantages(std::span<const GroupRollout> group,
                                                         const rl::RewardConfig& reward_config,
                                                         const rl::AdvantageConfig& config,
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

// The token range of the plan (<think> text) of a response, from the tokens'
// raw bytes (the stop token, if last and special, is not part of the text).
// None when the response has no plan.
std::optional<rl::IndexRange> PlanTokenRange(const model::Tokenizer& tokenizer,
                                             std::span<const int32_t> tokens);

// TritonRL Figure 5's five outcome classes of a rollout.
enum class OutcomeClass { kInvalidSyntax, kInvalidFunctionality, kIncorrect, kCorrectSlow, kFast };
inline constexpr int kOutcomeClasses = 5;
const char* OutcomeClassName(OutcomeClass c);  // invalid_syntax ... fast
// fast: correct with a trusted speedup above 1 (no speedup-void flag).
OutcomeClass ClassifyOutcome(vocab::Outcome outcome, const rl::Rewards& rewards,
                             std::optional<double> speedup);

}  // namespace tritonrl::train
