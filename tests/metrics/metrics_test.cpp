#include "metrics/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace tritonrl::metrics {
namespace {

// Brute force: the share of all k-subsets of n samples (c of which pass) that hold a pass.
double BruteForcePassAtK(int n, int c, int k) {
  int64_t subsets = 0, hits = 0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) != k) continue;
    ++subsets;
    // Samples 0..c-1 pass.
    hits += (mask & ((1u << c) - 1)) != 0;
  }
  return static_cast<double>(hits) / static_cast<double>(subsets);
}

TEST(PassAtK, MatchesBruteForceOverAllSubsets) {
  int checked = 0;
  for (int n = 1; n <= 12; ++n) {
    for (int c = 0; c <= n; ++c) {
      for (int k = 1; k <= n; ++k) {
        EXPECT_NEAR(PassAtK(n, c, k), BruteForcePassAtK(n, c, k), 1e-12)
            << "n=" << n << " c=" << c << " k=" << k;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 728);  // sum over n of (n + 1) * n
}

TEST(PassAtK, HandComputedValues) {
  EXPECT_DOUBLE_EQ(PassAtK(10, 0, 5), 0.0);
  EXPECT_DOUBLE_EQ(PassAtK(10, 10, 1), 1.0);
  EXPECT_NEAR(PassAtK(10, 3, 1), 0.3, 1e-15);
  // 1 - C(7,5)/C(10,5) = 1 - 21/252.
  EXPECT_NEAR(PassAtK(10, 3, 5), 1.0 - 21.0 / 252.0, 1e-15);
  EXPECT_DOUBLE_EQ(PassAtK(10, 6, 5), 1.0);  // fewer than k failures: every subset passes
}

TEST(PassAtK, StableForLargeN) {
  // Against the log-gamma form, computed independently.
  auto lg = [](double n, double c, double k) {
    double log_ratio = std::lgamma(n - c + 1) - std::lgamma(k + 1) - std::lgamma(n - c - k + 1) -
                       (std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1));
    return 1.0 - std::exp(log_ratio);
  };
  EXPECT_NEAR(PassAtK(1000, 500, 100), lg(1000, 500, 100), 1e-9);
  EXPECT_NEAR(PassAtK(5000, 3, 10), lg(5000, 3, 10), 1e-9);
  EXPECT_NEAR(PassAtK(200, 1, 10), 0.05, 1e-15);
  // A tiny pass@k keeps its relative precision (1 - product would lose ~5 digits here).
  EXPECT_NEAR(PassAtK(100000, 1, 1), 1e-5, 1e-5 * 1e-13);
  EXPECT_NEAR(PassAtK(1000000, 2, 1), 2e-6, 2e-6 * 1e-12);
}

SampleResult S(std::string task, int level, std::string outcome, bool valid, bool compiled,
               bool correct, std::optional<double> speedup = std::nullopt,
               std::vector<std::string> flags = {}) {
  return {std::move(task), level,   std::move(outcome), valid, compiled,
          correct,         speedup, std::move(flags)};
}

// Level 1: tasks A and B, three samples each; level 2: task C, three samples.
std::vector<SampleResult> Fixture() {
  return {
      S("level1/A", 1, "correct", true, true, true, 2.0),
      S("level1/A", 1, "correct", true, true, true, 0.5),
      S("level1/A", 1, "invalid_syntax", false, false, false),
      S("level1/B", 1, "incorrect", true, true, false),
      S("level1/B", 1, "correct", true, true, true, 4.0, {"lazy_optimization"}),
      S("level1/B", 1, "invalid_functionality", false, false, false),
      S("level2/C", 2, "compile_error", true, false, false),
      S("level2/C", 2, "correct", true, true, true, 1.0),
      S("level2/C", 2, "timeout", true, true, false),
  };
}

const PassAtKValue& Pass(const GroupMetrics& g, const std::string& criterion, int k) {
  for (const auto& p : g.pass_at_k)
    if (p.criterion == criterion && p.k == k) return p;
  ADD_FAILURE() << "no pass@" << k << " for " << criterion;
  static PassAtKValue none;
  return none;
}

TEST(Metrics, HandComputedStandardPolicy) {
  Metrics m = ComputeMetrics(Fixture());
  ASSERT_EQ(m.levels.size(), 2u);
  const GroupMetrics& l1 = m.levels[0];
  EXPECT_EQ(l1.name, "level1");
  EXPECT_EQ(l1.samples, 6);
  EXPECT_EQ(l1.tasks, 2);
  EXPECT_EQ(l1.min_samples_per_task, 3);
  EXPECT_EQ(l1.valid, 4);
  EXPECT_EQ(l1.compiled, 4);
  EXPECT_EQ(l1.correct, 3);
  EXPECT_DOUBLE_EQ(l1.correct_rate, 0.5);
  EXPECT_DOUBLE_EQ(l1.valid_rate, 4.0 / 6);
  ASSERT_EQ(l1.fast_p.size(), 2u);
  EXPECT_EQ(l1.fast_p[0].count, 2);  // 2.0 and 4.0 exceed 1
  EXPECT_EQ(l1.fast_p[1].count, 1);  // 2.0 does not exceed 2 (strict >)
  EXPECT_DOUBLE_EQ(*l1.fast_p[1].rate, 1.0 / 6);
  EXPECT_EQ(l1.speedup_count, 3);
  EXPECT_NEAR(*l1.mean_speedup, 6.5 / 3, 1e-12);
  EXPECT_NEAR(*l1.geomean_speedup, std::cbrt(4.0), 1e-12);
  EXPECT_NEAR(*l1.mean_speedup_all, 6.5 / 6, 1e-12);
  EXPECT_EQ(l1.shares.invalid_syntax, 1);
  EXPECT_EQ(l1.shares.invalid_functionality, 1);
  EXPECT_EQ(l1.shares.correct, 3);
  EXPECT_EQ(l1.shares.other, 1);
  EXPECT_DOUBLE_EQ(l1.shares.correct_share, 0.5);
  // The correct ones split by speed: 2.0 and 4.0 are fast, 0.5 is correct but not fast.
  EXPECT_EQ(l1.shares.fast, 2);
  EXPECT_DOUBLE_EQ(*l1.shares.fast_share, 2.0 / 6);
  EXPECT_DOUBLE_EQ(*l1.shares.correct_not_fast_share, 1.0 / 6);
  // pass@1 = mean over tasks of c/n: (2/3 + 1/3) / 2.
  EXPECT_NEAR(*Pass(l1, "correct", 1).value, 0.5, 1e-12);
  EXPECT_NEAR(*Pass(l1, "fast_1", 1).value, 1.0 / 3, 1e-12);
  EXPECT_NEAR(*Pass(l1, "fast_2", 1).value, 1.0 / 6, 1e-12);
  // Three samples per task: pass@5 and pass@10 are not available.
  EXPECT_FALSE(Pass(l1, "correct", 5).value.has_value());
  EXPECT_FALSE(Pass(l1, "correct", 10).value.has_value());

  const GroupMetrics& all = m.overall;
  EXPECT_EQ(all.name, "all");
  EXPECT_EQ(all.samples, 9);
  EXPECT_EQ(all.tasks, 3);
  EXPECT_EQ(all.valid, 7);
  EXPECT_EQ(all.compiled, 6);
  EXPECT_EQ(all.correct, 4);
  EXPECT_EQ(all.fast_p[0].count, 2);  // speedup exactly 1.0 is not fast_1
  EXPECT_NEAR(*all.mean_speedup, 7.5 / 4, 1e-12);
  EXPECT_NEAR(*all.geomean_speedup, std::sqrt(2.0), 1e-12);
  EXPECT_EQ(all.shares.other, 3);
  EXPECT_EQ(all.shares.fast, 2);  // speedup exactly 1.0 is correct but not fast
  EXPECT_DOUBLE_EQ(*all.shares.correct_not_fast_share, 2.0 / 9);
  EXPECT_NEAR(all.shares.invalid_syntax_share + all.shares.invalid_functionality_share +
                  all.shares.correct_share + all.shares.other_share,
              1.0, 1e-12);
  EXPECT_NEAR(*Pass(all, "correct", 1).value, (2.0 / 3 + 1.0 / 3 + 1.0 / 3) / 3, 1e-12);
}

TEST(Metrics, StrictPolicyDropsFlaggedSamples) {
  MetricsOptions o;
  o.policy = CorrectnessPolicy::kStrict;
  Metrics m = ComputeMetrics(Fixture(), o);
  const GroupMetrics& l1 = m.levels[0];
  EXPECT_EQ(l1.correct, 2);  // the lazy_optimization sample no longer counts
  EXPECT_EQ(l1.fast_p[0].count, 1);
  EXPECT_EQ(l1.fast_p[1].count, 0);
  EXPECT_NEAR(*l1.mean_speedup, 1.25, 1e-12);
  EXPECT_NEAR(*l1.geomean_speedup, 1.0, 1e-12);
  EXPECT_EQ(l1.shares.correct, 2);
  EXPECT_EQ(l1.shares.other, 2);
  EXPECT_EQ(l1.shares.fast, 1);  // the flagged 4.0 sample is no longer correct, nor fast
  EXPECT_DOUBLE_EQ(*l1.shares.fast_share, 1.0 / 6);
  EXPECT_NEAR(*Pass(l1, "correct", 1).value, (2.0 / 3 + 0.0) / 2, 1e-12);
  EXPECT_FALSE(IsCorrect(Fixture()[4], o));
  EXPECT_TRUE(IsCorrect(Fixture()[4], MetricsOptions{}));
}

TEST(Metrics, StrictPolicyDropsWeakTaskSamples) {
  SampleResult s = Fixture()[4];
  s.flags = {"weak_task"};
  MetricsOptions strict;
  strict.policy = CorrectnessPolicy::kStrict;
  EXPECT_TRUE(IsCorrect(s, MetricsOptions{}));
  EXPECT_FALSE(IsCorrect(s, strict));
}

// A task whose reference failed is left out of every figure: the fixture plus such a task (one
// of its samples also "correct", as a flaky reference might leave it) gives the fixture's
// numbers exactly, and the failed task is counted apart. Also where it has fewer samples than
// k: its n does not make pass@k unavailable.
TEST(Metrics, ReferenceFailureIsTheTasksFailureNotTheSamples) {
  std::vector<SampleResult> with = Fixture();
  with.push_back(
      S("level1/D", 1, "runtime_error", true, false, false, std::nullopt, {"reference_failed"}));
  with.push_back(S("level1/D", 1, "correct", true, true, true, 3.0));
  MetricsOptions o;
  o.pass_k = {1, 3};
  const Metrics base = ComputeMetrics(Fixture(), o);
  const Metrics m = ComputeMetrics(with, o);
  const GroupMetrics& l1 = m.levels[0];
  EXPECT_EQ(l1.failed_tasks, 1);
  EXPECT_EQ(l1.failed_task_samples, 2);
  EXPECT_EQ(m.overall.failed_tasks, 1);
  EXPECT_EQ(m.levels[1].failed_tasks, 0);
  EXPECT_EQ(l1.samples, 6);
  EXPECT_EQ(l1.tasks, 2);
  EXPECT_EQ(l1.min_samples_per_task, 3);
  EXPECT_EQ(l1.correct, base.levels[0].correct);
  EXPECT_DOUBLE_EQ(l1.correct_rate, 0.5);
  EXPECT_DOUBLE_EQ(l1.compiled_rate, base.levels[0].compiled_rate);
  EXPECT_EQ(*l1.mean_speedup, *base.levels[0].mean_speedup);
  EXPECT_EQ(l1.shares.other, base.levels[0].shares.other);
  EXPECT_NEAR(*Pass(l1, "correct", 1).value, 0.5, 1e-12);
  EXPECT_NEAR(*Pass(m.overall, "correct", 1).value, *Pass(base.overall, "correct", 1).value, 1e-12);
  EXPECT_TRUE(Pass(l1, "correct", 3).value.has_value());  // D's 2 samples do not count
  EXPECT_TRUE(IsTaskFailure(with[9]));
  EXPECT_FALSE(IsTaskFailure(with[10]));
}

TEST(Metrics, PassAtKNeedsKSamplesInEveryTask) {
  std::vector<SampleResult> ss;
  // Task X: 10 samples, 3 correct. Task Y: 10 samples, none correct. Task Z (level 2): 4.
  for (int i = 0; i < 10; ++i)
    ss.push_back(S("level1/X", 1, i < 3 ? "correct" : "incorrect", true, true, i < 3, 1.5));
  for (int i = 0; i < 10; ++i) ss.push_back(S("level1/Y", 1, "incorrect", true, true, false));
  for (int i = 0; i < 4; ++i) ss.push_back(S("level2/Z", 2, "correct", true, true, true, 3.0));
  Metrics m = ComputeMetrics(ss);
  const GroupMetrics& l1 = m.levels[0];
  EXPECT_NEAR(*Pass(l1, "correct", 5).value, (1.0 - 21.0 / 252.0) / 2, 1e-12);
  EXPECT_NEAR(*Pass(l1, "correct", 10).value, 0.5, 1e-12);
  EXPECT_NEAR(*Pass(l1, "fast_1", 10).value, 0.5, 1e-12);
  EXPECT_NEAR(*Pass(l1, "fast_2", 10).value, 0.0, 1e-12);
  const GroupMetrics& l2 = m.levels[1];
  EXPECT_NEAR(*Pass(l2, "correct", 1).value, 1.0, 1e-12);
  EXPECT_FALSE(Pass(l2, "correct", 5).value.has_value());
  EXPECT_FALSE(Pass(m.overall, "correct", 5).value.has_value());  // Z has only 4
  EXPECT_TRUE(Pass(m.overall, "correct", 1).value.has_value());
}

TEST(Metrics, CustomThresholdsAndEmptyInput) {
  MetricsOptions o;
  o.fast_p = {0.0, 1.5};
  o.pass_k = {2};
  Metrics m = ComputeMetrics(Fixture(), o);
  const GroupMetrics& l1 = m.levels[0];
  EXPECT_EQ(l1.fast_p[0].count, 3);  // fast_0 is the correct rate when every correct one is timed
  EXPECT_EQ(l1.fast_p[1].count, 2);
  EXPECT_EQ(FastName(1.5), "fast_1.5");
  EXPECT_EQ(FastName(2.0), "fast_2");
  // pass@2 with n=3: task A (c=2) -> 1, task B (c=1) -> 1 - C(2,2)/C(3,2) = 2/3.
  EXPECT_NEAR(*Pass(l1, "correct", 2).value, (1.0 + 2.0 / 3) / 2, 1e-12);

  Metrics empty = ComputeMetrics({});
  EXPECT_TRUE(empty.levels.empty());
  EXPECT_EQ(empty.overall.samples, 0);
  EXPECT_DOUBLE_EQ(empty.overall.correct_rate, 0.0);
  EXPECT_FALSE(empty.overall.mean_speedup.has_value());
  EXPECT_FALSE(Pass(empty.overall, "correct", 1).value.has_value());
}

TEST(Metrics, UnknownLevelCountsOnlyOverall) {
  std::vector<SampleResult> ss = {S("custom/T", 0, "correct", true, true, true, 2.0),
                                  S("level3/U", 3, "runtime_error", true, true, false)};
  Metrics m = ComputeMetrics(ss);
  ASSERT_EQ(m.levels.size(), 1u);
  EXPECT_EQ(m.levels[0].level, 3);
  EXPECT_EQ(m.overall.samples, 2);
  EXPECT_EQ(m.overall.correct, 1);
  // A correct sample without a timing is correct but never fast and not in the means.
  ss.push_back(S("custom/T", 0, "correct", true, true, true, std::nullopt));
  Metrics m2 = ComputeMetrics(ss);
  EXPECT_EQ(m2.overall.correct, 2);
  EXPECT_EQ(m2.overall.speedup_count, 1);
  EXPECT_EQ(m2.overall.fast_p[0].count, 1);
  // One correct sample timed: the speed figures are known, the untimed one counts as not fast.
  EXPECT_DOUBLE_EQ(*m2.overall.fast_p[0].rate, 1.0 / 3);
}

// Nothing timed (a CPU run): fast_p, its pass@k and the mean over all samples are unknown where
// samples are correct, and 0 where none is (nothing can be fast that is not correct).
TEST(Metrics, SpeedUnknownWhereCorrectSamplesWereNotTimed) {
  std::vector<SampleResult> ss = {S("level1/A", 1, "correct", true, true, true, std::nullopt),
                                  S("level1/A", 1, "incorrect", true, true, false),
                                  S("level2/B", 2, "invalid_syntax", false, false, false),
                                  S("level2/B", 2, "incorrect", true, true, false)};
  Metrics m = ComputeMetrics(ss);
  ASSERT_EQ(m.levels.size(), 2u);
  const GroupMetrics& l1 = m.levels[0];
  EXPECT_FALSE(SpeedKnown(l1));
  ASSERT_EQ(l1.fast_p.size(), 2u);
  EXPECT_FALSE(l1.fast_p[0].rate.has_value());
  EXPECT_FALSE(l1.mean_speedup_all.has_value());
  EXPECT_FALSE(Pass(l1, "fast_1", 1).value.has_value());
  EXPECT_FALSE(l1.shares.fast_share.has_value());
  EXPECT_FALSE(l1.shares.correct_not_fast_share.has_value());
  EXPECT_DOUBLE_EQ(*Pass(l1, "correct", 1).value, 0.5);  // correctness is known all the same
  const GroupMetrics& l2 = m.levels[1];
  EXPECT_TRUE(SpeedKnown(l2));
  EXPECT_DOUBLE_EQ(*l2.fast_p[0].rate, 0.0);
  EXPECT_DOUBLE_EQ(*l2.mean_speedup_all, 0.0);
  EXPECT_DOUBLE_EQ(*l2.shares.fast_share, 0.0);  // no correct sample: nothing is fast
  EXPECT_DOUBLE_EQ(*l2.shares.correct_not_fast_share, 0.0);
  EXPECT_FALSE(m.overall.fast_p[0].rate.has_value());  // level 1's correct sample is untimed
}

}  // namespace
}  // namespace tritonrl::metrics
