// The paired bootstrap (metrics/paired.h) against references computed independently: a
// constant difference has a zero-width interval; two tasks have an exactly known bootstrap
// distribution; for many tasks the interval agrees with the normal approximation of the mean
// (the central limit theorem), and the control's difference cancels a shared drift.
#include "metrics/paired.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace tritonrl::metrics {
namespace {

TEST(PairedBootstrap, ConstantDifferenceHasAPointInterval) {
  std::vector<TaskPair> p;
  for (int i = 0; i < 20; ++i) p.push_back({"t" + std::to_string(i), 0.05 * i, 0.05 * i + 0.25});
  const PairedComparison c = ComparePaired(p, {});
  EXPECT_EQ(c.tasks, 20);
  EXPECT_NEAR(c.difference.estimate, 0.25, 1e-12);
  EXPECT_NEAR(c.difference.low, 0.25, 1e-12);
  EXPECT_NEAR(c.difference.high, 0.25, 1e-12);
  EXPECT_NEAR(c.before.estimate, 0.475, 1e-12);
  EXPECT_GT(c.before.high, c.before.low);  // the levels themselves do vary
}

// Two tasks with differences 0 and 1: a resample's mean is 0, 0.5 or 1 with probabilities
// 1/4, 1/2, 1/4, so the 2.5th and 97.5th percentiles are 0 and 1 and about half the resamples
// are 0.5.
TEST(PairedBootstrap, TwoTasksGiveTheExactBootstrapDistribution) {
  const std::vector<TaskPair> p = {{"a", 0, 0}, {"b", 0, 1}};
  const PairedComparison c = ComparePaired(p, {.resamples = 20000, .level = 0.95, .seed = 7});
  EXPECT_DOUBLE_EQ(c.difference.estimate, 0.5);
  EXPECT_DOUBLE_EQ(c.difference.low, 0.0);
  EXPECT_DOUBLE_EQ(c.difference.high, 1.0);
  // At the 50 % level the interval is the middle: [0.5, 0.5].
  const PairedComparison mid = ComparePaired(p, {.resamples = 20000, .level = 0.5, .seed = 7});
  EXPECT_DOUBLE_EQ(mid.difference.low, 0.5);
  EXPECT_DOUBLE_EQ(mid.difference.high, 0.5);
}

// 400 tasks with differences drawn from N(0.1, 0.3^2): the 95 % interval's half-width is close
// to 1.96 * s / sqrt(n) computed from the sample (within 10 %), centred on the sample mean.
// 400 tasks whose differences are drawn from N(mu, sigma^2), with the sample's own mean and sd.
struct NormalSample {
  std::vector<TaskPair> pairs;
  double mean = 0, sd = 0;
};

NormalSample NormalDifferences(uint64_t seed, double mu, double sigma) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(mu, sigma);
  NormalSample s;
  double sum = 0, squares = 0;
  for (int i = 0; i < 400; ++i) {
    const double d = noise(rng);
    s.pairs.push_back({"t", 0.5, 0.5 + d});
    sum += d;
    squares += d * d;
  }
  const double n = 400;
  s.mean = sum / n;
  s.sd = std::sqrt((squares - n * s.mean * s.mean) / (n - 1));
  return s;
}

TEST(PairedBootstrap, ManyTasksAgreeWithTheNormalApproximation) {
  const auto [p, mean, sd] = NormalDifferences(3, 0.1, 0.3);
  const double n = 400;
  const double half = 1.96 * sd / std::sqrt(n);
  const PairedComparison c = ComparePaired(p, {.resamples = 10000, .level = 0.95, .seed = 1});
  EXPECT_NEAR(c.difference.estimate, mean, 1e-12);
  EXPECT_NEAR((c.difference.high - c.difference.low) / 2, half, 0.1 * half);
  EXPECT_NEAR((c.difference.high + c.difference.low) / 2, mean, 0.1 * half);
  EXPECT_TRUE(c.difference.Excludes(0.0));
}

// A drift shared by the run and its control (e.g. a changed evaluation) cancels; what remains is
// the run's own effect.
TEST(PairedBootstrap, TheControlCancelsASharedDrift) {
  std::vector<TaskPair> run, control;
  for (int i = 0; i < 50; ++i) {
    const double base = 0.02 * i, drift = (i % 5) * 0.01;
    control.push_back({"t", base, base + drift});
    run.push_back({"t", base, base + drift + 0.2});
  }
  const Interval d = DifferenceFromControl(run, control, {});
  EXPECT_NEAR(d.estimate, 0.2, 1e-12);
  EXPECT_NEAR(d.low, 0.2, 1e-12);
  EXPECT_NEAR(d.high, 0.2, 1e-12);
  const Interval none = DifferenceFromControl({}, {}, {});
  EXPECT_EQ(none.estimate, 0.0);
}

// The p-value of the two-task case: no resample mean is below 0 and a quarter are exactly 0, so
// the low side holds 1/8 of them and p = 2/8.
TEST(PairedBootstrap, TwoTasksGiveTheExactPValue) {
  const std::vector<TaskPair> p = {{"a", 0, 0}, {"b", 0, 1}};
  const PairedComparison c = ComparePaired(p, {.resamples = 20000, .level = 0.95, .seed = 7});
  EXPECT_NEAR(c.difference.p, 0.25, 0.01);
  // A constant nonzero difference: every resample on one side.
  const std::vector<TaskPair> q = {{"a", 0, 0.25}, {"b", 0.5, 0.75}};
  EXPECT_EQ(ComparePaired(q, {}).difference.p, 0.0);
  // No difference at all: every resample is 0, half to each side.
  const std::vector<TaskPair> same = {{"a", 0.5, 0.5}, {"b", 0.25, 0.25}};
  EXPECT_EQ(ComparePaired(same, {}).difference.p, 1.0);
}

// For many tasks the p-value agrees with the normal approximation: 2 (1 - Phi(|z|)) with
// z = mean / (s / sqrt(n)) computed from the sample, here near 2 (p about 0.05).
TEST(PairedBootstrap, ManyTasksPValueAgreesWithTheNormalApproximation) {
  const auto [p, mean, sd] = NormalDifferences(5, 0.03, 0.3);
  const double n = 400;
  const double z = mean / (sd / std::sqrt(n));
  const double normal_p = std::erfc(std::fabs(z) / std::sqrt(2.0));
  const PairedComparison c = ComparePaired(p, {.resamples = 20000, .level = 0.95, .seed = 2});
  EXPECT_GT(normal_p, 0.005);  // the case is informative: neither 0 nor 1
  EXPECT_LT(normal_p, 0.5);
  EXPECT_NEAR(c.difference.p, normal_p, 0.25 * normal_p + 0.005);
  EXPECT_EQ(c.difference.p < 0.05, c.difference.Excludes(0.0));
}

// Holm's adjustment against values worked by hand.
// Two blocks (two independent runs) of 10 tasks: every task of block 1 rose by 0, every task of
// block 2 by 1. Within a block nothing varies, so a task-only bootstrap gives a narrow interval
// around 0.5; the two-stage bootstrap draws block 1 twice a quarter of the time and block 2 twice
// a quarter, so its 95% interval is [0, 1]: the run-to-run spread is in it.
TEST(PairedBootstrap, BlocksPutTheRunToRunSpreadInTheInterval) {
  std::vector<TaskPair> blocked, flat;
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 10; ++i) {
      blocked.push_back({"t" + std::to_string(i), 0.2, 0.2 + b, /*block=*/b + 5});
      flat.push_back({"t" + std::to_string(i), 0.2, 0.2 + b});
    }
  }
  const BootstrapOptions o{.resamples = 20000, .level = 0.95, .seed = 3};
  const PairedComparison two = ComparePaired(blocked, o);
  EXPECT_DOUBLE_EQ(two.difference.estimate, 0.5);
  EXPECT_DOUBLE_EQ(two.difference.low, 0.0);
  EXPECT_DOUBLE_EQ(two.difference.high, 1.0);
  const PairedComparison one = ComparePaired(flat, o);
  EXPECT_DOUBLE_EQ(one.difference.estimate, 0.5);
  EXPECT_GT(one.difference.low, 0.25);  // 20 tasks: sd of the mean about 0.11
  EXPECT_LT(one.difference.high, 0.75);
  // One block under any id is the plain task bootstrap, draw for draw.
  std::vector<TaskPair> relabelled = flat;
  for (TaskPair& p : relabelled) p.block = 9;
  const PairedComparison same = ComparePaired(relabelled, o);
  EXPECT_DOUBLE_EQ(same.difference.low, one.difference.low);
  EXPECT_DOUBLE_EQ(same.difference.high, one.difference.high);
  EXPECT_DOUBLE_EQ(same.difference.p, one.difference.p);
}

// Blocks of different sizes: the estimate weighs every pair alike, and a resample drawing the
// small block twice has only its pairs.
TEST(PairedBootstrap, BlocksOfDifferentSizesWeighEveryPairAlike) {
  std::vector<TaskPair> p = {{"a", 0, 1, 0}};
  for (int i = 0; i < 3; ++i) p.push_back({"b" + std::to_string(i), 0, 0, 1});
  const PairedComparison c = ComparePaired(p, {.resamples = 20000, .level = 0.95, .seed = 1});
  EXPECT_DOUBLE_EQ(c.difference.estimate, 0.25);
  EXPECT_DOUBLE_EQ(c.difference.low, 0.0);   // block 1 twice
  EXPECT_DOUBLE_EQ(c.difference.high, 1.0);  // block 0 twice
}

TEST(Holm, AdjustsInTheInputsOrder) {
  EXPECT_EQ(HolmAdjusted(std::vector<double>{}), std::vector<double>{});
  const std::vector<double> a = HolmAdjusted(std::vector<double>{0.01, 0.04, 0.03});
  ASSERT_EQ(a.size(), 3u);
  EXPECT_NEAR(a[0], 0.03, 1e-12);  // 3 x 0.01
  EXPECT_NEAR(a[1], 0.06, 1e-12);  // max(2 x 0.03, 1 x 0.04)
  EXPECT_NEAR(a[2], 0.06, 1e-12);  // 2 x 0.03
  const std::vector<double> b = HolmAdjusted(std::vector<double>{0.5, 0.001});
  EXPECT_NEAR(b[0], 0.5, 1e-12);
  EXPECT_NEAR(b[1], 0.002, 1e-12);
  const std::vector<double> c = HolmAdjusted(std::vector<double>{0.6, 0.7});
  EXPECT_EQ(c, (std::vector<double>{1.0, 1.0}));
}

}  // namespace
}  // namespace tritonrl::metrics
