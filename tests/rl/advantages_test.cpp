#include "rl/advantages.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "rl/rng.h"

namespace tritonrl::rl {
namespace {

constexpr double kEps = 1e-6;  // the default, as in verl

Rewards R(double correct, double speedup, double binary = -1) {
  Rewards r;
  r.valid = true;
  r.r_correct = correct;
  r.r_speedup = speedup;
  r.r_binary = binary < 0 ? correct : binary;
  return r;
}

// Expected values below are written out from the definitions:
// A_i = (r_i - mean) / (s + eps), s = sqrt(sum (r_i - mean)^2 / (G - 1)).

TEST(NormalizeGroup, OneZeroZeroOne) {
  // mean 0.5; squared deviations 4 * 0.25 = 1; s = sqrt(1/3).
  auto a = NormalizeGroup(std::vector<double>{1, 0, 0, 1}, true, kEps);
  ASSERT_TRUE(a.ok());
  const double expected = 0.5 / (std::sqrt(1.0 / 3.0) + kEps);
  EXPECT_DOUBLE_EQ((*a)[0], expected);
  EXPECT_DOUBLE_EQ((*a)[1], -expected);
  EXPECT_DOUBLE_EQ((*a)[2], -expected);
  EXPECT_DOUBLE_EQ((*a)[3], expected);
  EXPECT_NEAR(expected, 0.8660239, 1e-7);
}

TEST(NormalizeGroup, WithoutStdIsMeanCentredOnly) {
  auto a = NormalizeGroup(std::vector<double>{1, 0, 0, 1}, false, kEps);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, (std::vector<double>{0.5, -0.5, -0.5, 0.5}));
  // {2, 0, 1}: mean 1.
  a = NormalizeGroup(std::vector<double>{2, 0, 1}, false, kEps);
  EXPECT_EQ(*a, (std::vector<double>{1, -1, 0}));
}

TEST(NormalizeGroup, OneCorrectOfFour) {
  // {1,0,0,0}: mean 0.25; squares 0.5625 + 3*0.0625 = 0.75; s = sqrt(0.25) = 0.5.
  auto a = NormalizeGroup(std::vector<double>{1, 0, 0, 0}, true, kEps);
  ASSERT_TRUE(a.ok());
  EXPECT_DOUBLE_EQ((*a)[0], 0.75 / (0.5 + kEps));
  EXPECT_DOUBLE_EQ((*a)[1], -0.25 / (0.5 + kEps));
}

TEST(NormalizeGroup, EqualValuesGiveExactZerosDespiteRounding) {
  // 0.1 * 3 / 3 != 0.1 in binary floating point; an unguarded (r - mean) / eps
  // would turn that rounding into advantages of order 1e-11.
  auto a = NormalizeGroup(std::vector<double>{0.1, 0.1, 0.1}, true, kEps);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, (std::vector<double>{0, 0, 0}));
  a = NormalizeGroup(std::vector<double>{0.7}, true, kEps);  // G = 1
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, (std::vector<double>{0}));
}

TEST(NormalizeGroup, RejectsEmptyAndNonFinite) {
  EXPECT_FALSE(NormalizeGroup(std::vector<double>{}, true, kEps).ok());
  EXPECT_FALSE(
      NormalizeGroup(std::vector<double>{1, std::numeric_limits<double>::quiet_NaN()}, true, kEps)
          .ok());
  EXPECT_FALSE(
      NormalizeGroup(std::vector<double>{1, std::numeric_limits<double>::infinity()}, true, kEps)
          .ok());
}

TEST(GroupAdvantages, HrdHandComputed) {
  // R_correct {1,0,0,1}; R_speedup {1.5,0,0,0} (the fourth is correct but its
  // speedup was voided by a flag).
  std::vector<Rewards> g = {R(1, 1.5), R(0, 0), R(0, 0), R(1, 0)};
  AdvantageConfig c;  // hrd, alpha 0.1
  auto a = ComputeGroupAdvantages(g, c);
  ASSERT_TRUE(a.ok());
  const double code = 0.5 / (std::sqrt(1.0 / 3.0) + kEps);
  // R_speedup: mean 0.375; squares 1.125^2 + 3 * 0.375^2 = 1.6875; s = sqrt(0.5625) = 0.75.
  const double plan_hi = 0.1 * 1.125 / (0.75 + kEps);
  const double plan_lo = 0.1 * -0.375 / (0.75 + kEps);
  EXPECT_DOUBLE_EQ(a->rollouts[0].code, code);
  EXPECT_DOUBLE_EQ(a->rollouts[0].plan, plan_hi);
  EXPECT_DOUBLE_EQ(a->rollouts[1].code, -code);
  EXPECT_DOUBLE_EQ(a->rollouts[1].plan, plan_lo);
  EXPECT_DOUBLE_EQ(a->rollouts[3].code, code);
  EXPECT_DOUBLE_EQ(a->rollouts[3].plan, plan_lo);
  EXPECT_NEAR(a->rollouts[0].plan, 0.15, 1e-6);
  EXPECT_FALSE(a->constant);
  EXPECT_FALSE(a->filtered);
}

TEST(GroupAdvantages, HrdWithoutStd) {
  std::vector<Rewards> g = {R(1, 1.5), R(0, 0), R(0, 0), R(1, 0)};
  AdvantageConfig c;
  c.normalize_by_std = false;
  auto a = ComputeGroupAdvantages(g, c);
  ASSERT_TRUE(a.ok());
  EXPECT_DOUBLE_EQ(a->rollouts[0].code, 0.5);
  EXPECT_DOUBLE_EQ(a->rollouts[1].code, -0.5);
  EXPECT_DOUBLE_EQ(a->rollouts[0].plan, 0.1 * 1.125);
  EXPECT_DOUBLE_EQ(a->rollouts[2].plan, 0.1 * -0.375);
}

TEST(GroupAdvantages, HrdOnlySpeedupVaries) {
  // All correct: the code advantage is 0, the plan still learns from speed.
  std::vector<Rewards> g = {R(1, 2.0), R(1, 1.0)};
  auto a = ComputeGroupAdvantages(g, AdvantageConfig{});
  ASSERT_TRUE(a.ok());
  // mean 1.5; s = sqrt(0.5) (G - 1 = 1).
  EXPECT_EQ(a->rollouts[0].code, 0.0);
  EXPECT_DOUBLE_EQ(a->rollouts[0].plan, 0.1 * 0.5 / (std::sqrt(0.5) + kEps));
  EXPECT_DOUBLE_EQ(a->rollouts[1].plan, 0.1 * -0.5 / (std::sqrt(0.5) + kEps));
  EXPECT_FALSE(a->constant);
}

TEST(GroupAdvantages, UniformHandComputed) {
  // beta 0.3: r = 0.3 * R_correct + 0.7 * R_speedup.
  // r = {0.3 + 1.4, 0.3 + 0.35, 0, 0} = {1.7, 0.65, 0, 0}; mean 0.5875.
  std::vector<Rewards> g = {R(1, 2.0), R(1, 0.5), R(0, 0), R(0, 0)};
  AdvantageConfig c;
  c.mode = AdvantageMode::kUniform;
  auto a = ComputeGroupAdvantages(g, c);
  ASSERT_TRUE(a.ok());
  const double d[] = {1.1125, 0.0625, -0.5875, -0.5875};
  const double s = std::sqrt((d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3]) / 3.0);
  EXPECT_NEAR(s, std::sqrt(1.931875 / 3.0), 1e-12);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(a->rollouts[i].code, d[i] / (s + kEps), 1e-12) << i;
    EXPECT_EQ(a->rollouts[i].plan, a->rollouts[i].code) << i;  // same on every token
  }
}

TEST(GroupAdvantages, BinaryHandComputed) {
  // r_binary {1, 1, 0, 0}, whatever R_correct and R_speedup say.
  std::vector<Rewards> g = {R(1, 2.0, 1), R(0, 0, 1), R(1, 0.5, 0), R(0, 0, 0)};
  AdvantageConfig c;
  c.mode = AdvantageMode::kBinary;
  auto a = ComputeGroupAdvantages(g, c);
  ASSERT_TRUE(a.ok());
  const double e = 0.5 / (std::sqrt(1.0 / 3.0) + kEps);
  EXPECT_DOUBLE_EQ(a->rollouts[0].code, e);
  EXPECT_DOUBLE_EQ(a->rollouts[1].code, e);
  EXPECT_DOUBLE_EQ(a->rollouts[2].code, -e);
  EXPECT_DOUBLE_EQ(a->rollouts[3].plan, -e);
}

TEST(GroupAdvantages, AllEqualGroupsAreZeroAndFiltered) {
  for (AdvantageMode m : {AdvantageMode::kHrd, AdvantageMode::kUniform, AdvantageMode::kBinary}) {
    AdvantageConfig c;
    c.mode = m;
    std::vector<Rewards> g = {R(1, 1.2), R(1, 1.2), R(1, 1.2)};
    auto a = ComputeGroupAdvantages(g, c);
    ASSERT_TRUE(a.ok());
    EXPECT_TRUE(a->constant);
    EXPECT_TRUE(a->filtered);
    for (const auto& r : a->rollouts) {
      EXPECT_EQ(r.plan, 0.0);
      EXPECT_EQ(r.code, 0.0);
    }
    c.filter_constant_groups = false;
    a = ComputeGroupAdvantages(g, c);
    EXPECT_TRUE(a->constant);
    EXPECT_FALSE(a->filtered);
  }
  // G = 1 has no baseline.
  auto one = ComputeGroupAdvantages(std::vector<Rewards>{R(1, 1.9)}, AdvantageConfig{});
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->filtered);
  EXPECT_EQ(one->rollouts[0].code, 0.0);
}

TEST(GroupAdvantages, ModeDecidesWhatCountsAsConstant) {
  // Same R_correct and R_speedup, different r_binary.
  std::vector<Rewards> g = {R(0, 0, 1), R(0, 0, 0)};
  AdvantageConfig c;
  EXPECT_TRUE(ComputeGroupAdvantages(g, c)->constant);
  c.mode = AdvantageMode::kBinary;
  EXPECT_FALSE(ComputeGroupAdvantages(g, c)->constant);
}

TEST(GroupAdvantages, RejectsEmptyGroupAndBadConfig) {
  EXPECT_FALSE(ComputeGroupAdvantages(std::vector<Rewards>{}, AdvantageConfig{}).ok());
  AdvantageConfig c;
  c.beta = 1.5;
  EXPECT_FALSE(ComputeGroupAdvantages(std::vector<Rewards>{R(1, 1)}, c).ok());
  c = AdvantageConfig{};
  c.eps = 0;
  EXPECT_FALSE(ComputeGroupAdvantages(std::vector<Rewards>{R(1, 1)}, c).ok());
  c = AdvantageConfig{};
  c.alpha = -0.1;
  EXPECT_FALSE(ComputeGroupAdvantages(std::vector<Rewards>{R(1, 1)}, c).ok());
}

TEST(AdvantageMode, ParseAndName) {
  for (AdvantageMode m : {AdvantageMode::kHrd, AdvantageMode::kUniform, AdvantageMode::kBinary})
    EXPECT_EQ(*ParseAdvantageMode(AdvantageModeName(m)), m);
  EXPECT_FALSE(ParseAdvantageMode("ppo").ok());
}

// Random groups of random size, rewards as the verifier produces them.
std::vector<std::vector<Rewards>> RandomGroups(int n) {
  Xoshiro256 rng = Xoshiro256::FromSeed(2024);
  std::vector<std::vector<Rewards>> out;
  for (int k = 0; k < n; ++k) {
    std::vector<Rewards> g(2 + UniformBelow(rng, 15));
    for (auto& r : g) {
      bool ok = UniformBelow(rng, 2) == 1;
      r = R(ok ? 1 : 0, ok ? 2.0 * UniformUnit(rng) : 0.0, UniformBelow(rng, 2));
    }
    out.push_back(g);
  }
  return out;
}

TEST(GroupAdvantagesProperties, SumToZeroAndShiftInvariant) {
  for (bool by_std : {true, false}) {
    for (AdvantageMode m : {AdvantageMode::kHrd, AdvantageMode::kUniform, AdvantageMode::kBinary}) {
      AdvantageConfig c;
      c.mode = m;
      c.normalize_by_std = by_std;
      for (const auto& g : RandomGroups(200)) {
        auto a = ComputeGroupAdvantages(g, c);
        ASSERT_TRUE(a.ok());
        double plan_sum = 0, code_sum = 0;
        for (const auto& r : a->rollouts) {
          plan_sum += r.plan;
          code_sum += r.code;
        }
        EXPECT_NEAR(plan_sum, 0, 1e-9);
        EXPECT_NEAR(code_sum, 0, 1e-9);

        std::vector<Rewards> shifted = g;
        for (auto& r : shifted) {
          r.r_correct += 3.25;
          r.r_speedup += 3.25;
          r.r_binary += 3.25;
        }
        auto b = ComputeGroupAdvantages(shifted, c);
        ASSERT_TRUE(b.ok());
        EXPECT_EQ(a->constant, b->constant);
        for (size_t i = 0; i < g.size(); ++i) {
          EXPECT_NEAR(a->rollouts[i].plan, b->rollouts[i].plan, 1e-9);
          EXPECT_NEAR(a->rollouts[i].code, b->rollouts[i].code, 1e-9);
        }
      }
    }
  }
}

TEST(GroupAdvantagesProperties, NormalisedAdvantagesHaveUnitSampleStd) {
  // Up to eps: sum A^2 / (G - 1) = s^2 / (s + eps)^2 ~ 1.
  for (const auto& g : RandomGroups(100)) {
    auto a = ComputeGroupAdvantages(g, AdvantageConfig{});
    if (a->constant) continue;
    std::vector<double> rc;
    for (const auto& r : g) rc.push_back(r.r_correct);
    bool code_varies = !std::all_of(rc.begin(), rc.end(), [&](double x) { return x == rc[0]; });
    if (!code_varies) continue;
    double sq = 0;
    for (const auto& r : a->rollouts) sq += r.code * r.code;
    EXPECT_NEAR(sq / static_cast<double>(g.size() - 1), 1.0, 1e-4);
  }
}

TEST(GroupAdvantagesProperties, AlphaScalesPlanOnly) {
  for (const auto& g : RandomGroups(100)) {
    AdvantageConfig c1, c2;
    c1.alpha = 0.1;
    c2.alpha = 0.7;
    auto a = ComputeGroupAdvantages(g, c1);
    auto b = ComputeGroupAdvantages(g, c2);
    for (size_t i = 0; i < g.size(); ++i) {
      EXPECT_EQ(a->rollouts[i].code, b->rollouts[i].code);
      EXPECT_NEAR(b->rollouts[i].plan, 7.0 * a->rollouts[i].plan, 1e-12);
    }
    // Alpha means nothing outside HRD.
    c1.mode = c2.mode = AdvantageMode::kUniform;
    a = ComputeGroupAdvantages(g, c1);
    b = ComputeGroupAdvantages(g, c2);
    for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(a->rollouts[i].plan, b->rollouts[i].plan);
  }
}

// The one scalar of a rollout: binary mode's r_binary, else beta * R_correct + (1 - beta) *
// R_speedup (what the reward service returns and the uniform mode normalises).
TEST(ScalarReward, BinaryOrTheUniformMix) {
  Rewards r;
  r.r_correct = 1;
  r.r_speedup = 1.5;
  r.r_binary = 0;  // e.g. AutoTriton's linter said no
  AdvantageConfig c;
  c.beta = 0.3;
  EXPECT_DOUBLE_EQ(ScalarReward(r, c), 0.3 + 0.7 * 1.5);
  c.mode = AdvantageMode::kUniform;
  EXPECT_DOUBLE_EQ(ScalarReward(r, c), 0.3 + 0.7 * 1.5);
  c.mode = AdvantageMode::kBinary;
  EXPECT_EQ(ScalarReward(r, c), 0.0);
}

}  // namespace
}  // namespace tritonrl::rl
