#include "rl/rewards.h"

#include <algorithm>
#include <cmath>

namespace tritonrl::rl {

Status ValidateRewardConfig(const RewardConfig& config) {
  if (!std::isfinite(config.speedup_clip) || config.speedup_clip <= 0)
    return Status::InvalidArgument("speedup clip must be a finite number > 0, got " +
                                   std::to_string(config.speedup_clip));
  return Status::Ok();
}

Rewards ComputeRewards(const RolloutVerdict& verdict, const RewardConfig& config) {
  Rewards r;
  r.valid = verdict.syntax_ok && verdict.functionality_ok;
  const bool certified =
      std::none_of(verdict.flags.begin(), verdict.flags.end(), [&](const auto& f) {
        return std::find(config.reward_void_flags.begin(), config.reward_void_flags.end(), f) !=
               config.reward_void_flags.end();
      });
  const bool passed = r.valid && verdict.correct && certified;
  r.r_correct = passed ? 1.0 : 0.0;
  const bool is_triton = verdict.is_triton.value_or(r.valid);
  r.r_binary = (is_triton && verdict.correct && certified) ? 1.0 : 0.0;
  if (!passed) return r;

  for (const auto& flag : verdict.flags) {
    if (std::find(config.speedup_void_flags.begin(), config.speedup_void_flags.end(), flag) !=
        config.speedup_void_flags.end()) {
      r.speedup_voided = true;
    }
  }
  if (r.speedup_voided) return r;
  if (!std::isfinite(verdict.speedup) || verdict.speedup <= 0) {
    r.speedup_missing = true;
    return r;
  }
  r.r_speedup = std::min(verdict.speedup, config.speedup_clip);
  return r;
}

}  // namespace tritonrl::rl
