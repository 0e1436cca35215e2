#include "rl/rewards.h"

#include <algorithm>
#include <cmath>

namespace tritonrl::rl {

Status ValidateRewardConfig(const RewardConfig& config) {
  if (!std::isfinite(config.speedup_clip) || config.speedup_clip <= 0)
    return Status::InvalidArgument("speedup clip must be a finite number > 0, got " +
                                   std::to_string(config.speedup_clip));
  if (!std::isfinite(config.speedup_noise_floor) || config.speedup_noise_floor < 0 ||
      config.speedup_noise_floor >= 1)
    return Status::InvalidArgument("speedup noise floor must be in [0, 1), got " +
                                   std::to_string(config.speedup_noise_floor));
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
  const bool test_passed = verdict.outputs_match.value_or(verdict.correct);
  r.r_binary = (is_triton && test_passed && certified) ? 1.0 : 0.0;
  if (!passed) return r;

  const auto listed = [](const std::vector<std::string>& set, const std::string& flag) {
    return std::find(set.begin(), set.end(), flag) != set.end();
  };
  bool voided_by_evidence = false;  // a void flag that load does not explain
  for (const auto& flag : verdict.flags) {
    if (!listed(config.speedup_void_flags, flag)) continue;
    r.speedup_voided = true;
    voided_by_evidence = voided_by_evidence || !listed(config.speedup_load_flags, flag);
  }
  if (r.speedup_voided) {
    r.speedup_unknown = !voided_by_evidence;
    return r;
  }
  if (!std::isfinite(verdict.speedup) || verdict.speedup <= 0) {
    r.speedup_missing = true;
    r.speedup_unknown = true;
    return r;
  }
  r.r_speedup = std::min(verdict.speedup, config.speedup_clip);
  return r;
}

}  // namespace tritonrl::rl

namespace tritonrl::rl {

namespace {

// The interval a measured speedup may stand for: its own spread, widened to the floor.
struct SpeedupBand {
  double speedup = 0, low = 0, high = 0;
  size_t index = 0;
};

SpeedupBand BandOf(const RolloutVerdict& v, double floor, size_t index) {
  SpeedupBand b{v.speedup, v.speedup * (1 - floor), v.speedup * (1 + floor), index};
  if (std::isfinite(v.speedup_low) && v.speedup_low < b.low) b.low = v.speedup_low;
  if (std::isfinite(v.speedup_high) && v.speedup_high > b.high) b.high = v.speedup_high;
  return b;
}

}  // namespace

void ApplySpeedupNoiseFloor(std::span<Rewards> rewards, std::span<const RolloutVerdict> verdicts,
                            const RewardConfig& config) {
  if (config.speedup_noise_floor <= 0) return;
  std::vector<SpeedupBand> bands;
  for (size_t i = 0; i < rewards.size() && i < verdicts.size(); ++i) {
    if (rewards[i].r_speedup > 0 && std::isfinite(verdicts[i].speedup)) {
      bands.push_back(BandOf(verdicts[i], config.speedup_noise_floor, i));
    }
  }
  std::sort(bands.begin(), bands.end(),
            [](const SpeedupBand& a, const SpeedupBand& b) { return a.speedup < b.speedup; });
  size_t run_begin = 0;
  double run_high = 0;
  auto close_run = [&](size_t run_end) {
    double sum = 0;
    for (size_t k = run_begin; k < run_end; ++k) sum += rewards[bands[k].index].r_speedup;
    const double mean = sum / static_cast<double>(run_end - run_begin);
    for (size_t k = run_begin; k < run_end; ++k) rewards[bands[k].index].r_speedup = mean;
  };
  for (size_t k = 0; k < bands.size(); ++k) {
    if (k > run_begin && bands[k].low > run_high) {
      close_run(k);
      run_begin = k;
      run_high = 0;
    }
    run_high = std::max(run_high, bands[k].high);
  }
  if (!bands.empty()) close_run(bands.size());
}

void ImputeUnknownSpeedups(std::span<Rewards> rewards, const RewardConfig& config) {
  if (!config.impute_unknown_speedup) return;
  double sum = 0;
  size_t trusted = 0;
  for (const Rewards& r : rewards) {
    if (r.r_correct > 0 && r.r_speedup > 0 && !r.speedup_voided && !r.speedup_missing) {
      sum += r.r_speedup;
      ++trusted;
    }
  }
  if (trusted == 0) return;
  const double mean = sum / static_cast<double>(trusted);
  for (Rewards& r : rewards) {
    if (r.r_correct > 0 && r.speedup_unknown) {
      r.r_speedup = mean;
      r.speedup_imputed = true;
    }
  }
}

void ApplyGroupSpeedupRules(std::span<Rewards> rewards, std::span<const RolloutVerdict> verdicts,
                            const RewardConfig& config) {
  ApplySpeedupNoiseFloor(rewards, verdicts, config);
  ImputeUnknownSpeedups(rewards, config);
}

}  // namespace tritonrl::rl
