// Per-rollout rewards from the evaluator's verdict (TritonRL's decomposition and
// AutoTriton's binary reward). See docs/rl.md for the formulas.
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "vocab/verdict_vocab.h"

namespace tritonrl::rl {

// What the verifier and evaluator said about one rollout.
struct RolloutVerdict {
  bool syntax_ok = false;         // static verifier: code parses, has the required structure
  bool functionality_ok = false;  // static verifier: real Triton kernels do the work
  bool correct = false;           // runtime: outputs match the reference
  // AutoTriton's rule-based "is Triton" check; absent means syntax_ok && functionality_ok
  // (our static verifier subsumes that check).
  std::optional<bool> is_triton;
  // AutoTriton's "test passed": the outputs matched the reference on every trial, whatever our
  // proof of work and static functionality rules said (the scorer's AutoTriton check,
  // ScoringConfig::autotriton_check); absent means `correct`.
  std::optional<bool> outputs_match;
  // Reference time / candidate time. NaN when not measured.
  double speedup = std::numeric_limits<double>::quiet_NaN();
  // The speedup's own measured spread: [reference p25 / candidate p75, reference p75 /
  // candidate p25] of the timed calls. NaN when not known (the noise floor alone then applies).
  double speedup_low = std::numeric_limits<double>::quiet_NaN();
  double speedup_high = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> flags;  // evaluator flags, e.g. "lazy_optimization"
};

struct RewardConfig {
  double speedup_clip = 2.0;  // R_speedup = min(speedup, clip)
  // Within a group, correct rollouts whose speedups cannot be told apart earn the same
  // R_speedup (their mean): two speedups are apart only when their spreads (each at least
  // speedup * (1 +- noise_floor)) do not overlap (ApplySpeedupNoiseFloor). 0: raw speedups.
  double speedup_noise_floor = 0;
  // Any of these flags means the speedup measurement cannot be trusted: the
  // speedup term becomes 0 (correctness still counts).
  std::vector<std::string> speedup_void_flags = vocab::SpeedupVoidFlags();
  // A correct rollout whose speedup is unknown (not measured, or voided only by these flags:
  // disagreements that load explains) is not slow: within its group it earns the mean R_speedup
  // of the correct rollouts with a trusted speedup (ImputeUnknownSpeedups). Empty, or
  // impute_unknown_speedup false: such a rollout keeps R_speedup 0.
  std::vector<std::string> speedup_load_flags = vocab::SpeedupLoadFlags();
  bool impute_unknown_speedup = true;
  // Any of these flags means correctness itself is not established: no reward at all (the
  // verdict's "correct" came from a task that a null model passes).
  std::vector<std::string> reward_void_flags = vocab::RewardVoidFlags();
};

struct Rewards {
  bool valid = false;            // syntax_ok * functionality_ok
  double r_correct = 0;          // valid * correct
  double r_speedup = 0;          // valid * correct * min(speedup, clip), 0 when voided or missing
  double r_binary = 0;           // AutoTriton: is_triton * outputs_match (else correct)
  bool speedup_voided = false;   // a void flag zeroed the speedup term
  bool speedup_missing = false;  // valid and correct, but speedup is NaN, infinite or <= 0
  // Correct, and the speedup missing or voided by load flags alone: unknown rather than low.
  bool speedup_unknown = false;
  bool speedup_imputed = false;  // ImputeUnknownSpeedups gave it the group's trusted mean
};

// Checks clip is finite and > 0.
Status ValidateRewardConfig(const RewardConfig& config);

// Never fails: a speedup that is not a finite positive number earns no speedup
// reward (and sets speedup_missing) rather than poisoning the group statistics.
Rewards ComputeRewards(const RolloutVerdict& verdict, const RewardConfig& config);

// The noise floor over one group (config.speedup_noise_floor > 0): the rollouts with a speedup
// reward, in order of speedup, form runs whose spreads overlap one after the other (single
// linkage); each run's members get the run's mean R_speedup. Rollouts without a speedup reward
// are untouched. `rewards` and `verdicts` are parallel.
void ApplySpeedupNoiseFloor(std::span<Rewards> rewards, std::span<const RolloutVerdict> verdicts,
                            const RewardConfig& config);

// Within one group (config.impute_unknown_speedup): each correct rollout whose speedup is unknown
// (Rewards::speedup_unknown) gets the mean R_speedup of the group's correct rollouts with a
// trusted speedup, so load that voids a timing gives no speed advantage either way. With no
// trusted speedup in the group, nothing changes (every correct rollout keeps 0: no speed
// signal). What a candidate gains by getting its own timing voided is bounded by that mean,
// never above the best trusted speedup of its group (docs/rl.md).
void ImputeUnknownSpeedups(std::span<Rewards> rewards, const RewardConfig& config);

// The group rules on speedup rewards, in order: the noise floor, then the imputation. The one
// home of both for the trainer, the reward service and `tritonrl advantages`.
void ApplyGroupSpeedupRules(std::span<Rewards> rewards, std::span<const RolloutVerdict> verdicts,
                            const RewardConfig& config);

}  // namespace tritonrl::rl
