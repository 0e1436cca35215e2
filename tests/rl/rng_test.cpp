#include "rl/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace tritonrl::rl {
namespace {

// Published test vectors (the reference C implementations' outputs, as used
// by e.g. Rust's rand_xoshiro): SplitMix64 from state 0 ...
TEST(Rng, SplitMix64KnownAnswers) {
  uint64_t state = 0;
  EXPECT_EQ(SplitMix64Next(state), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(SplitMix64Next(state), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(SplitMix64Next(state), 0x06C45D188009454FULL);
  EXPECT_EQ(SplitMix64Next(state), 0xF88BB8A8724C81ECULL);
}

// ... and xoshiro256** from the state {1, 2, 3, 4}.
TEST(Rng, Xoshiro256StarStarKnownAnswers) {
  Xoshiro256 rng;
  rng.s = {1, 2, 3, 4};
  const uint64_t expected[] = {11520ULL,
                               0ULL,
                               1509978240ULL,
                               1215971899390074240ULL,
                               1216172134540287360ULL,
                               607988272756665600ULL,
                               16172922978634559625ULL,
                               8476171486693032832ULL,
                               10595114339597558777ULL,
                               2904607092377533576ULL};
  for (uint64_t e : expected) EXPECT_EQ(rng.Next(), e);
}

TEST(Rng, FromSeedIsSplitMixExpansion) {
  Xoshiro256 rng = Xoshiro256::FromSeed(0);
  EXPECT_EQ(rng.s[0], 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rng.s[3], 0xF88BB8A8724C81ECULL);
}

TEST(Rng, UniformBelowStaysInRangeAndCoversIt) {
  Xoshiro256 rng = Xoshiro256::FromSeed(7);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    uint64_t v = UniformBelow(rng, 6);
    ASSERT_LT(v, 6u);
    ++counts[v];
  }
  // Each face expects 10000 (binomial sd ~91); 600 is > 6 sd.
  for (int c : counts) EXPECT_NEAR(c, 10000, 600);
  EXPECT_EQ(UniformBelow(rng, 1), 0u);
}

TEST(Rng, UniformUnitIsInHalfOpenUnitInterval) {
  Xoshiro256 rng = Xoshiro256::FromSeed(1);
  double sum = 0;
  for (int i = 0; i < 20000; ++i) {
    double u = UniformUnit(rng);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 20000, 0.5, 0.01);  // sd of the mean ~0.002
}

TEST(Rng, WeightedIndexFollowsWeightsAndSkipsZeros) {
  Xoshiro256 rng = Xoshiro256::FromSeed(3);
  const std::vector<double> w = {0.0, 3.0, 0.0, 1.0};
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 40000; ++i) ++counts[WeightedIndex(rng, w)];
  EXPECT_EQ(counts[0], 0);
  EXPECT_EQ(counts[2], 0);
  EXPECT_NEAR(counts[1] / 40000.0, 0.75, 0.01);  // sd ~0.002
}

TEST(Rng, ShuffleIsAPermutationAndDependsOnSeed) {
  std::vector<int> a(20), b(20);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), 0);
  Xoshiro256 r1 = Xoshiro256::FromSeed(5), r2 = Xoshiro256::FromSeed(6);
  Shuffle(r1, a);
  Shuffle(r2, b);
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  std::vector<int> identity(20);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(a, identity);
}

}  // namespace
}  // namespace tritonrl::rl
