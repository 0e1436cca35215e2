#include "rl/rewards.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tritonrl::rl {
namespace {

RolloutVerdict Passing(double speedup) {
  RolloutVerdict v;
  v.syntax_ok = v.functionality_ok = v.correct = true;
  v.speedup = speedup;
  return v;
}

TEST(Rewards, CorrectAndFastIsClippedSpeedup) {
  RewardConfig c;  // clip 2.0
  Rewards r = ComputeRewards(Passing(1.5), c);
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(r.r_correct, 1.0);
  EXPECT_EQ(r.r_speedup, 1.5);
  EXPECT_EQ(r.r_binary, 1.0);
  EXPECT_EQ(ComputeRewards(Passing(7.0), c).r_speedup, 2.0);
  // Slower than the reference still earns its (small) speedup.
  EXPECT_EQ(ComputeRewards(Passing(0.25), c).r_speedup, 0.25);
  c.speedup_clip = 3.0;
  EXPECT_EQ(ComputeRewards(Passing(7.0), c).r_speedup, 3.0);
}

TEST(Rewards, InvalidEarnsNothingEvenIfCorrect) {
  RewardConfig c;
  RolloutVerdict v = Passing(1.8);
  v.functionality_ok = false;  // e.g. torch does the work
  Rewards r = ComputeRewards(v, c);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.r_correct, 0.0);
  EXPECT_EQ(r.r_speedup, 0.0);
  EXPECT_EQ(r.r_binary, 0.0);  // is_triton defaults to valid
  v = Passing(1.8);
  v.syntax_ok = false;
  EXPECT_EQ(ComputeRewards(v, c).r_correct, 0.0);
}

TEST(Rewards, IncorrectEarnsNothing) {
  RolloutVerdict v = Passing(1.8);
  v.correct = false;
  Rewards r = ComputeRewards(v, RewardConfig{});
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(r.r_correct, 0.0);
  EXPECT_EQ(r.r_speedup, 0.0);
  EXPECT_EQ(r.r_binary, 0.0);
}

TEST(Rewards, BinaryUsesIsTritonWhenGiven) {
  // AutoTriton's weaker check: a linter said "Triton" and the tests passed.
  RolloutVerdict v = Passing(1.0);
  v.functionality_ok = false;
  v.is_triton = true;
  Rewards r = ComputeRewards(v, RewardConfig{});
  EXPECT_EQ(r.r_binary, 1.0);
  EXPECT_EQ(r.r_correct, 0.0);
  v = Passing(1.0);
  v.is_triton = false;
  EXPECT_EQ(ComputeRewards(v, RewardConfig{}).r_binary, 0.0);
}

// The AutoTriton check's "test passed" (outputs matched, proof of work aside) replaces `correct`
// in R_binary alone: a torch-only rollout with a stub kernel earns the binary arm's reward and
// nothing from ours.
TEST(Rewards, BinaryUsesOutputsMatchWhenGiven) {
  RolloutVerdict v;
  v.syntax_ok = true;
  v.functionality_ok = false;  // our verifier: the work is not done by the kernel
  v.correct = false;           // our engine: no proof of work
  v.is_triton = true;          // a @triton.jit stub
  v.outputs_match = true;      // torch's answer matches the reference
  Rewards r = ComputeRewards(v, RewardConfig{});
  EXPECT_EQ(r.r_binary, 1.0);
  EXPECT_EQ(r.r_correct, 0.0);
  EXPECT_EQ(r.r_speedup, 0.0);
  v.outputs_match = false;
  EXPECT_EQ(ComputeRewards(v, RewardConfig{}).r_binary, 0.0);
  v = Passing(1.0);
  v.outputs_match = false;  // when given, it decides even over a correct verdict
  EXPECT_EQ(ComputeRewards(v, RewardConfig{}).r_binary, 0.0);
  EXPECT_EQ(ComputeRewards(v, RewardConfig{}).r_correct, 1.0);
}

TEST(Rewards, EvaluatorFlagsZeroTheSpeedupTermOnly) {
  for (const char* flag :
       {"lazy_optimization", "timing_inconsistent", "implausible_speedup", "parent_clock_gap"}) {
    RolloutVerdict v = Passing(1.9);
    v.flags = {"degraded_sandbox", flag};
    Rewards r = ComputeRewards(v, RewardConfig{});
    EXPECT_EQ(r.r_correct, 1.0) << flag;
    EXPECT_EQ(r.r_speedup, 0.0) << flag;
    EXPECT_TRUE(r.speedup_voided) << flag;
  }
  RolloutVerdict v = Passing(1.9);
  v.flags = {"degraded_sandbox"};  // not a speedup flag
  EXPECT_EQ(ComputeRewards(v, RewardConfig{}).r_speedup, 1.9);
}

// Which correct rollouts have an unknown speedup: not measured, or voided by the flags that load
// explains (parent_clock_gap, timing_contended) and by nothing else. A flag that is evidence
// against the timing (lazy_optimization, timing_inconsistent, implausible_speedup) keeps it
// known-bad, alone or beside a load flag.
TEST(Rewards, UnknownSpeedupIsMissingOrVoidedByLoadAlone) {
  const auto unknown = [](std::vector<std::string> flags, double speedup) {
    RolloutVerdict v = Passing(speedup);
    v.flags = std::move(flags);
    return ComputeRewards(v, RewardConfig{}).speedup_unknown;
  };
  EXPECT_TRUE(unknown({"parent_clock_gap"}, 0.8));
  EXPECT_TRUE(unknown({"timing_contended", "near_tolerance"}, 0.8));
  EXPECT_TRUE(unknown({}, std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(unknown({}, 0.8));
  EXPECT_FALSE(unknown({"lazy_optimization"}, 0.8));
  EXPECT_FALSE(unknown({"parent_clock_gap", "timing_inconsistent"}, 0.8));
  EXPECT_FALSE(unknown({"implausible_speedup", "parent_clock_gap"}, 0.8));
  RolloutVerdict wrong = Passing(std::numeric_limits<double>::quiet_NaN());
  wrong.correct = false;
  EXPECT_FALSE(ComputeRewards(wrong, RewardConfig{}).speedup_unknown);
}

// A correct verdict on a task that a null model passes (weak_task) certifies nothing: no reward at
// all, binary included.
TEST(Rewards, WeakTaskEarnsNothing) {
  RolloutVerdict v = Passing(1.9);
  v.is_triton = true;
  v.flags = {"weak_task"};
  const Rewards r = ComputeRewards(v, RewardConfig{});
  EXPECT_EQ(r.r_correct, 0.0);
  EXPECT_EQ(r.r_speedup, 0.0);
  EXPECT_EQ(r.r_binary, 0.0);
  v.flags = {"near_tolerance"};
  EXPECT_EQ(ComputeRewards(v, RewardConfig{}).r_correct, 1.0);
}

// A verdict of a task whose reference failed says nothing about the rollout (scoring flags it
// reference_failed): no reward, whatever else the verdict claims.
TEST(Rewards, ReferenceFailureEarnsNothing) {
  RolloutVerdict v = Passing(1.9);
  v.is_triton = true;
  v.flags = {"reference_failed"};
  const Rewards r = ComputeRewards(v, RewardConfig{});
  EXPECT_EQ(r.r_correct, 0.0);
  EXPECT_EQ(r.r_speedup, 0.0);
  EXPECT_EQ(r.r_binary, 0.0);
}

TEST(Rewards, UnusableSpeedupEarnsNoSpeedupReward) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double s : {nan, inf, -inf, 0.0, -1.0}) {
    Rewards r = ComputeRewards(Passing(s), RewardConfig{});
    EXPECT_EQ(r.r_correct, 1.0) << s;
    EXPECT_EQ(r.r_speedup, 0.0) << s;
    EXPECT_TRUE(r.speedup_missing) << s;
  }
  // An incorrect rollout's missing speedup is not worth reporting.
  RolloutVerdict v = Passing(nan);
  v.correct = false;
  EXPECT_FALSE(ComputeRewards(v, RewardConfig{}).speedup_missing);
}

TEST(Rewards, ConfigValidation) {
  RewardConfig c;
  EXPECT_TRUE(ValidateRewardConfig(c).ok());
  c.speedup_clip = 0;
  EXPECT_FALSE(ValidateRewardConfig(c).ok());
  c.speedup_clip = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(ValidateRewardConfig(c).ok());
}

// The noise floor, by hand: speedups 1.00, 1.04, 1.30 and 1.33 with the 5 % floor and no
// measured spread: bands [0.95, 1.05], [0.988, 1.092], [1.235, 1.365], [1.2635, 1.3965]: two
// runs, {1.00, 1.04} -> 1.02 and {1.30, 1.33} -> 1.315. An incorrect rollout is untouched.
TEST(SpeedupNoiseFloor, IndistinguishableSpeedupsShareTheirMean) {
  RewardConfig c;
  c.speedup_noise_floor = 0.05;
  std::vector<RolloutVerdict> v = {Passing(1.30), Passing(1.00), RolloutVerdict{}, Passing(1.04),
                                   Passing(1.33)};
  std::vector<Rewards> r;
  for (const auto& x : v) r.push_back(ComputeRewards(x, c));
  ApplySpeedupNoiseFloor(r, v, c);
  EXPECT_DOUBLE_EQ(r[1].r_speedup, 1.02);
  EXPECT_DOUBLE_EQ(r[3].r_speedup, 1.02);
  EXPECT_DOUBLE_EQ(r[0].r_speedup, 1.315);
  EXPECT_DOUBLE_EQ(r[4].r_speedup, 1.315);
  EXPECT_EQ(r[2].r_speedup, 0.0);
  EXPECT_EQ(r[0].r_correct, 1.0);  // correctness untouched
}

// A measured spread wider than the floor joins speedups the floor alone keeps apart; with the
// floor at 0 nothing changes.
TEST(SpeedupNoiseFloor, MeasuredSpreadWidensTheBandAndZeroFloorIsOff) {
  RewardConfig c;
  c.speedup_noise_floor = 0.01;
  std::vector<RolloutVerdict> v = {Passing(1.0), Passing(1.2)};
  v[0].speedup_low = 0.7;
  v[0].speedup_high = 1.25;  // the timed calls of the first overlap the second's 1.188
  std::vector<Rewards> r = {ComputeRewards(v[0], c), ComputeRewards(v[1], c)};
  ApplySpeedupNoiseFloor(r, v, c);
  EXPECT_DOUBLE_EQ(r[0].r_speedup, 1.1);
  EXPECT_DOUBLE_EQ(r[1].r_speedup, 1.1);
  v[0].speedup_high = 1.1;  // now apart: [0.7, 1.1] and [1.188, 1.212]
  r = {ComputeRewards(v[0], c), ComputeRewards(v[1], c)};
  ApplySpeedupNoiseFloor(r, v, c);
  EXPECT_DOUBLE_EQ(r[0].r_speedup, 1.0);
  EXPECT_DOUBLE_EQ(r[1].r_speedup, 1.2);
  c.speedup_noise_floor = 0;
  v[0].speedup_high = 1.25;
  r = {ComputeRewards(v[0], c), ComputeRewards(v[1], c)};
  ApplySpeedupNoiseFloor(r, v, c);
  EXPECT_DOUBLE_EQ(r[0].r_speedup, 1.0);
  RewardConfig bad;
  bad.speedup_noise_floor = 1.0;
  EXPECT_FALSE(ValidateRewardConfig(bad).ok());
}

// The imputation, by hand: a group of five: speedups 0.5 and 1.1 trusted, one voided by
// parent_clock_gap, one lazy_optimization (evidence: stays 0), one incorrect. The voided one gets
// (0.5 + 1.1) / 2 = 0.8; nothing else moves. Off, or with no trusted speedup in the group, the
// unknown one keeps 0.
TEST(ImputeUnknownSpeedups, UnknownGetsTheGroupsTrustedMean) {
  std::vector<RolloutVerdict> v = {Passing(0.5), Passing(0.6), Passing(1.1), Passing(1.9),
                                   RolloutVerdict{}};
  v[1].flags = {"parent_clock_gap"};
  v[3].flags = {"lazy_optimization"};
  RewardConfig c;
  std::vector<Rewards> r;
  for (const auto& x : v) r.push_back(ComputeRewards(x, c));
  ImputeUnknownSpeedups(r, c);
  EXPECT_DOUBLE_EQ(r[1].r_speedup, 0.8);
  EXPECT_TRUE(r[1].speedup_imputed);
  EXPECT_EQ(r[0].r_speedup, 0.5);
  EXPECT_EQ(r[2].r_speedup, 1.1);
  EXPECT_EQ(r[3].r_speedup, 0.0);
  EXPECT_FALSE(r[3].speedup_imputed);
  EXPECT_EQ(r[4].r_speedup, 0.0);
  EXPECT_EQ(r[1].r_correct, 1.0);

  c.impute_unknown_speedup = false;
  r.clear();
  for (const auto& x : v) r.push_back(ComputeRewards(x, c));
  ImputeUnknownSpeedups(r, c);
  EXPECT_EQ(r[1].r_speedup, 0.0);

  RewardConfig on;
  std::vector<RolloutVerdict> none = {Passing(0.5), Passing(0.7)};
  none[0].flags = {"parent_clock_gap"};
  none[1].flags = {"timing_contended"};
  r = {ComputeRewards(none[0], on), ComputeRewards(none[1], on)};
  ImputeUnknownSpeedups(r, on);
  EXPECT_EQ(r[0].r_speedup, 0.0);
  EXPECT_EQ(r[1].r_speedup, 0.0);
  EXPECT_FALSE(r[0].speedup_imputed);
}

// The group rules run the noise floor first, on trusted speedups, then impute from the result:
// 1.00 and 1.04 share 1.02 under the 5 % floor, 1.60 stands alone; the unknown one gets the mean
// of 1.02, 1.02 and 1.60.
TEST(ImputeUnknownSpeedups, AfterTheNoiseFloor) {
  RewardConfig c;
  c.speedup_noise_floor = 0.05;
  std::vector<RolloutVerdict> v = {Passing(1.00), Passing(1.04), Passing(1.60),
                                   Passing(std::numeric_limits<double>::quiet_NaN())};
  std::vector<Rewards> r;
  for (const auto& x : v) r.push_back(ComputeRewards(x, c));
  ApplyGroupSpeedupRules(r, v, c);
  EXPECT_DOUBLE_EQ(r[0].r_speedup, 1.02);
  EXPECT_DOUBLE_EQ(r[2].r_speedup, 1.60);
  EXPECT_DOUBLE_EQ(r[3].r_speedup, (1.02 + 1.02 + 1.60) / 3);
  EXPECT_TRUE(r[3].speedup_imputed);
}

}  // namespace
}  // namespace tritonrl::rl
