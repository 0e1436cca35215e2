// A random source whose every output is fixed by the seed on any platform and
// whose state is four integers, so a checkpoint can save and restore it exactly.
// std::uniform_int_distribution and friends are not portable across standard
// libraries, so the draws below are built from the raw 64-bit outputs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace tritonrl::rl {

// SplitMix64 (Steele, Lea, Flood 2014): advances `state` and returns the next
// output. Used to expand a single seed into a xoshiro state.
uint64_t SplitMix64Next(uint64_t& state);

// xoshiro256** 1.0 (Blackman and Vigna 2018).
struct Xoshiro256 {
  std::array<uint64_t, 4> s{};  // never all zero

  // The state is the first four SplitMix64 outputs from `seed`.
  static Xoshiro256 FromSeed(uint64_t seed);
  uint64_t Next();
};

// Uniform integer in [0, n), n > 0, without modulo bias (rejection sampling).
uint64_t UniformBelow(Xoshiro256& rng, uint64_t n);
// Uniform double in [0, 1) with 53 random bits.
double UniformUnit(Xoshiro256& rng);
// Index i drawn with probability weights[i] / sum(weights). Weights must be
// finite and >= 0 with a positive sum (the caller checks); a zero weight is
// never drawn.
size_t WeightedIndex(Xoshiro256& rng, std::span<const double> weights);

// Fisher-Yates shuffle driven by UniformBelow.
template <typename T>
void Shuffle(Xoshiro256& rng, std::vector<T>& v) {
  for (size_t i = v.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(UniformBelow(rng, i));
    std::swap(v[i - 1], v[j]);
  }
}

}  // namespace tritonrl::rl
