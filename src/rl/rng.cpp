#include "rl/rng.h"

namespace tritonrl::rl {
namespace {
uint64_t RotateLeft(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}
}  // namespace

uint64_t SplitMix64Next(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

Xoshiro256 Xoshiro256::FromSeed(uint64_t seed) {
  Xoshiro256 rng;
  // Four distinct SplitMix64 inputs give four outputs of a bijection, so the
  // state cannot be all zero.
  for (auto& word : rng.s) word = SplitMix64Next(seed);
  return rng;
}

uint64_t Xoshiro256::Next() {
  const uint64_t result = RotateLeft(s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = RotateLeft(s[3], 45);
  return result;
}

uint64_t UniformBelow(Xoshiro256& rng, uint64_t n) {
  // Reject the lowest (2^64 mod n) outputs so every residue is equally likely.
  const uint64_t threshold = (0 - n) % n;
  while (true) {
    uint64_t r = rng.Next();
    if (r >= threshold) return r % n;
  }
}

double UniformUnit(Xoshiro256& rng) {
  return static_cast<double>(rng.Next() >> 11) * 0x1.0p-53;
}

size_t WeightedIndex(Xoshiro256& rng, std::span<const double> weights) {
  double total = 0;
  for (double w : weights) total += w;
  const double u = UniformUnit(rng) * total;
  double cumulative = 0;
  size_t last_positive = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    cumulative += weights[i];
    last_positive = i;
    if (u < cumulative) return i;
  }
  // Rounding can leave u at or just above the final cumulative sum.
  return last_positive;
}

}  // namespace tritonrl::rl
