// The group bookkeeping of rl/rollout_group.h checked by hand: truncated
// responses excluded from the group statistics or penalised, the rewards kept
// before and after the truncation policy, TritonRL's Figure 5 outcome classes,
// and DAPO dynamic sampling's rounds as the trainer's step loop drives them.
#include "rl/rollout_group.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace tritonrl::rl {
namespace {

RolloutVerdict Verdict(bool valid, bool correct, double speedup) {
  RolloutVerdict v;
  v.syntax_ok = valid;
  v.functionality_ok = valid;
  v.correct = correct;
  v.speedup = speedup;
  return v;
}

TEST(RolloutGroup, TruncatedExcludedLeavesTheGroupStatisticsAndPenalizedEarnsNothing) {
  std::vector<GroupRollout> group(3);
  for (auto& g : group) g.num_tokens = 2;
  group[0].verdict = Verdict(true, true, std::nan(""));
  group[1].verdict = Verdict(true, false, std::nan(""));
  group[2].verdict = Verdict(true, true, std::nan(""));
  group[2].truncated = true;
  AdvantageConfig config;
  config.mode = AdvantageMode::kBinary;
  auto ex = ComputeGroupTokenAdvantages(group, {}, config, TruncatedPolicy::kExclude);
  ASSERT_TRUE(ex.ok());
  // Statistics over [1, 0] only: +-0.5 / (sd 0.7071 + eps).
  const double a = 0.5 / (std::sqrt(0.5) + 1e-6);
  EXPECT_NEAR(ex->rollouts[0].per_token[0], a, 1e-6);
  EXPECT_NEAR(ex->rollouts[1].per_token[1], -a, 1e-6);
  EXPECT_TRUE(ex->rollouts[2].masked);
  EXPECT_EQ(ex->rollouts[2].per_token, std::vector<float>(2, 0.0f));
  auto pen = ComputeGroupTokenAdvantages(group, {}, config, TruncatedPolicy::kPenalize);
  ASSERT_TRUE(pen.ok());
  EXPECT_FALSE(pen->rollouts[2].masked);
  EXPECT_EQ(pen->rollouts[2].rewards.r_binary, 0.0);
  // ... while its verdict's own reward (what the outcome class reads) is kept.
  EXPECT_EQ(pen->rollouts[2].verdict_rewards.r_binary, 1.0);
  EXPECT_LT(pen->rollouts[2].per_token[0], 0.0f);  // [1, 0, 0]: the truncated one is below the mean
  // A group whose rewards are all equal is filtered: every rollout masked.
  group[1].verdict = Verdict(true, true, std::nan(""));
  auto flat = ComputeGroupTokenAdvantages(group, {}, config, TruncatedPolicy::kExclude);
  ASSERT_TRUE(flat.ok());
  EXPECT_TRUE(flat->filtered);
  for (const auto& r : flat->rollouts) EXPECT_TRUE(r.masked);
}

TEST(RolloutGroup, FigureFiveClasses) {
  Rewards trusted;
  EXPECT_EQ(ClassifyOutcome(vocab::Outcome::kCorrect, trusted, 1.3), OutcomeClass::kFast);
  EXPECT_EQ(ClassifyOutcome(vocab::Outcome::kCorrect, trusted, 0.9), OutcomeClass::kCorrectSlow);
  Rewards voided;
  voided.speedup_voided = true;
  EXPECT_EQ(ClassifyOutcome(vocab::Outcome::kCorrect, voided, 3.0), OutcomeClass::kCorrectSlow);
  EXPECT_EQ(ClassifyOutcome(vocab::Outcome::kTimeout, trusted, std::nullopt),
            OutcomeClass::kIncorrect);
  EXPECT_EQ(ClassifyOutcome(vocab::Outcome::kInvalidFunctionality, trusted, std::nullopt),
            OutcomeClass::kInvalidFunctionality);
}

// The mean speedup's per-sample term: a trusted speedup of a correct, rewarded sample; 0 for
// anything else, a slow correct sample keeping its (below 1) speedup.
TEST(RolloutGroup, CountedSpeedupKeepsOnlyTrustedSpeedupsOfCorrectSamples) {
  Rewards correct;
  correct.r_correct = 1;
  EXPECT_DOUBLE_EQ(CountedSpeedup(vocab::Outcome::kCorrect, correct, 1.3), 1.3);
  EXPECT_DOUBLE_EQ(CountedSpeedup(vocab::Outcome::kCorrect, correct, 0.4), 0.4);
  EXPECT_DOUBLE_EQ(CountedSpeedup(vocab::Outcome::kCorrect, correct, std::nullopt), 0.0);
  Rewards voided = correct;
  voided.speedup_voided = true;
  EXPECT_DOUBLE_EQ(CountedSpeedup(vocab::Outcome::kCorrect, voided, 3.0), 0.0);
  Rewards missing = correct;
  missing.speedup_missing = true;
  EXPECT_DOUBLE_EQ(CountedSpeedup(vocab::Outcome::kCorrect, missing, 3.0), 0.0);
  Rewards unrewarded;  // r_correct 0: a flag voided the whole reward
  EXPECT_DOUBLE_EQ(CountedSpeedup(vocab::Outcome::kCorrect, unrewarded, 3.0), 0.0);
  EXPECT_DOUBLE_EQ(CountedSpeedup(vocab::Outcome::kIncorrect, correct, 3.0), 0.0);
}

// Under HRD a correct rollout whose timing load voided (parent_clock_gap) gets the plan advantage
// of a rollout at its group's trusted mean speedup, not that of a slow one: speedups 0.5 and 1.5
// trusted, one voided, one incorrect. Imputed R_speedup (0.5 + 1.5) / 2 = 1.0; the group's
// R_speedup [0.5, 1.5, 1.0, 0], mean 0.75, so the voided one's plan advantage is
// alpha * 0.25 / sd > 0, where without the imputation (R_speedup 0) it was negative.
TEST(RolloutGroup, VoidedByLoadGetsTheTrustedMeanUnderHrd) {
  std::vector<GroupRollout> group(4);
  for (auto& g : group) {
    g.num_tokens = 4;
    g.plan_tokens = IndexRange{0, 2};
  }
  group[0].verdict = Verdict(true, true, 0.5);
  group[1].verdict = Verdict(true, true, 1.5);
  group[2].verdict = Verdict(true, true, 0.2);
  group[2].verdict.flags = {"parent_clock_gap"};
  group[3].verdict = Verdict(true, false, std::nan(""));
  AdvantageConfig config;  // HRD, alpha 0.1
  auto adv = ComputeGroupTokenAdvantages(group, {}, config, TruncatedPolicy::kPenalize);
  ASSERT_TRUE(adv.ok());
  EXPECT_DOUBLE_EQ(adv->rollouts[2].rewards.r_speedup, 1.0);
  EXPECT_TRUE(adv->rollouts[2].rewards.speedup_imputed);
  EXPECT_EQ(adv->rollouts[2].verdict_rewards.r_speedup, 0.0);  // the verdict's own, for the classes
  const double sd = std::sqrt((0.25 * 0.25 + 0.75 * 0.75 + 0.25 * 0.25 + 0.75 * 0.75) / 3);
  EXPECT_NEAR(adv->rollouts[2].advantage.plan, 0.1 * 0.25 / (sd + 1e-6), 1e-9);
  EXPECT_NEAR(adv->rollouts[2].per_token[0], 0.1 * 0.25 / (sd + 1e-6), 1e-6);
  // Its code tokens get A(correct) as every correct rollout's do.
  EXPECT_DOUBLE_EQ(adv->rollouts[2].advantage.code, adv->rollouts[0].advantage.code);

  RewardConfig zero;
  zero.impute_unknown_speedup = false;
  auto old = ComputeGroupTokenAdvantages(group, zero, config, TruncatedPolicy::kPenalize);
  ASSERT_TRUE(old.ok());
  EXPECT_LT(old->rollouts[2].advantage.plan, 0.0);
}

// DAPO dynamic sampling as the step loop drives it: each round's groups go through
// ComputeGroupTokenAdvantages, the non-constant ones count as informative, and the next round
// draws the shortfall until tasks_per_step are informative or the rounds are spent.
TEST(RolloutGroup, DynamicSamplingConstantGroupsAreReplacedByFurtherRounds) {
  const auto group_of = [](std::vector<bool> correct) {
    std::vector<GroupRollout> g(correct.size());
    for (size_t i = 0; i < g.size(); ++i) {
      g[i].num_tokens = 3;
      g[i].verdict = Verdict(true, correct[i], std::nan(""));
    }
    return g;
  };
  const auto informative_of = [](const std::vector<std::vector<GroupRollout>>& groups) {
    int64_t n = 0;
    for (const auto& g : groups) {
      auto adv = ComputeGroupTokenAdvantages(g, {}, AdvantageConfig{}, TruncatedPolicy::kPenalize);
      EXPECT_TRUE(adv.ok());
      n += adv->constant ? 0 : 1;
    }
    return n;
  };
  DynamicSampling ds{4, 3};
  EXPECT_EQ(ds.NextRoundTasks(), 4);  // round 1: a full step
  // Round 1: two all-wrong groups, one all-correct, one mixed: one informative.
  ds.Record(4, informative_of({group_of({false, false}), group_of({true, true}),
                               group_of({false, false}), group_of({true, false})}));
  EXPECT_EQ(ds.rounds, 1);
  EXPECT_EQ(ds.informative, 1);
  EXPECT_EQ(ds.NextRoundTasks(), 3);  // the shortfall
  // Round 2: two of the three informative.
  ds.Record(3, informative_of(
                   {group_of({false, true}), group_of({false, false}), group_of({true, false})}));
  EXPECT_EQ(ds.NextRoundTasks(), 1);
  // Round 3: constant again; the rounds are spent, the step goes on with 3 informative of 8.
  ds.Record(1, informative_of({group_of({true, true})}));
  EXPECT_EQ(ds.NextRoundTasks(), 0);
  EXPECT_EQ(ds.rounds, 3);
  EXPECT_EQ(ds.sampled, 8);
  EXPECT_EQ(ds.informative, 3);

  // Enough informative groups: no further round, however many are allowed.
  DynamicSampling full{2, 5};
  full.Record(2, 2);
  EXPECT_EQ(full.NextRoundTasks(), 0);
  // One round allowed (the default): never a second, whatever the groups.
  DynamicSampling once{2, 1};
  once.Record(2, 0);
  EXPECT_EQ(once.NextRoundTasks(), 0);
  EXPECT_EQ(once.rounds, 1);
}

// A text reward: under HRD it reaches the plan tokens only (R_correct constant, so every code
// token's advantage is exactly 0); in binary mode every token.
TEST(RolloutGroup, TextRewardsGoToThePlanUnderHrdAndEverywhereElse) {
  std::vector<GroupRollout> group(2);
  for (auto& g : group) {
    g.num_tokens = 4;
    g.plan_tokens = IndexRange{1, 3};
  }
  AdvantageConfig hrd;
  hrd.alpha = 0.5;
  group[0].given_rewards = TextRewards(true, hrd.mode);
  group[1].given_rewards = TextRewards(false, hrd.mode);
  auto a = ComputeGroupTokenAdvantages(group, {}, hrd, TruncatedPolicy::kPenalize);
  ASSERT_TRUE(a.ok());
  // [1, 0]: +-0.5 / (sd 0.7071 + eps), times alpha on the plan.
  const double z = 0.5 / (std::sqrt(0.5) + 1e-6);
  EXPECT_EQ(a->rollouts[0].per_token, (std::vector<float>{0.0f, static_cast<float>(0.5 * z),
                                                          static_cast<float>(0.5 * z), 0.0f}));
  EXPECT_EQ(a->rollouts[1].advantage.code, 0.0);
  AdvantageConfig binary;
  binary.mode = AdvantageMode::kBinary;
  group[0].given_rewards = TextRewards(true, binary.mode);
  group[1].given_rewards = TextRewards(false, binary.mode);
  auto b = ComputeGroupTokenAdvantages(group, {}, binary, TruncatedPolicy::kPenalize);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->rollouts[1].per_token, std::vector<float>(4, static_cast<float>(-z)));
}

}  // namespace
}  // namespace tritonrl::rl
