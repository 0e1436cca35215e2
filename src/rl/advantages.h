// Group-relative advantages for the G rollouts of one task (GRPO), in three
// modes: TritonRL's Hierarchical Reward Decomposition, the uniform-reward
// baseline, and AutoTriton's binary reward. See docs/rl.md.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "rl/rewards.h"

namespace tritonrl::rl {

enum class AdvantageMode {
  kHrd,      // plan tokens <- alpha * A(R_speedup), other tokens <- A(R_correct)
  kUniform,  // every token <- A(beta * R_correct + (1 - beta) * R_speedup)
  kBinary,   // every token <- A(is_triton * correct)
};

Result<AdvantageMode> ParseAdvantageMode(std::string_view name);  // "hrd", "uniform", "binary"
const char* AdvantageModeName(AdvantageMode mode);

struct AdvantageConfig {
  AdvantageMode mode = AdvantageMode::kHrd;
  double alpha = 0.1;  // HRD weight of the plan advantage
  double beta = 0.3;   // uniform mode: weight of R_correct
  // Divide by the group's sample standard deviation (GRPO); off gives Dr. GRPO's
  // plain mean-centred advantages.
  bool normalize_by_std = true;
  double eps = 1e-6;  // added to the std, as verl does
  // DAPO dynamic sampling: mark groups whose rewards are all equal as filtered.
  bool filter_constant_groups = true;
};

// Checks alpha >= 0, beta in [0, 1], eps > 0, all finite.
Status ValidateAdvantageConfig(const AdvantageConfig& config);

// The one scalar reward of a rollout under `config`: AutoTriton's binary reward in binary mode,
// else TritonRL's uniform mix beta * R_correct + (1 - beta) * R_speedup. The uniform and binary
// modes normalise it; engines that take one number per completion (TRL, verl) get it from the
// reward service. HRD normalises R_correct and R_speedup separately instead.
double ScalarReward(const Rewards& rewards, const AdvantageConfig& config);

// (r_i - mean) / (std + eps) with the sample std (divisor G - 1), or r_i - mean
// when by_std is false. A group whose values are all exactly equal (including
// G = 1) gets exact zeros. Fails on an empty group or a non-finite value.
Result<std::vector<double>> NormalizeGroup(std::span<const double> rewards, bool by_std,
                                           double eps);

// The advantage each token class of one rollout receives, alpha included.
// In uniform and binary modes plan == code.
struct RolloutAdvantage {
  double plan = 0;
  double code = 0;
};

struct GroupAdvantages {
  std::vector<RolloutAdvantage> rollouts;  // one per input Rewards, same order
  // Every reward the mode uses is equal across the group, so every advantage is 0.
  bool constant = false;
  bool filtered = false;  // constant && config.filter_constant_groups
};

// Fails on an empty group, non-finite rewards or an invalid config.
Result<GroupAdvantages> ComputeGroupAdvantages(std::span<const Rewards> group,
                                               const AdvantageConfig& config);

}  // namespace tritonrl::rl
