#include "rl/advantages.h"

#include <cmath>

namespace tritonrl::rl {

Result<AdvantageMode> ParseAdvantageMode(std::string_view name) {
  if (name == "hrd") return AdvantageMode::kHrd;
  if (name == "uniform") return AdvantageMode::kUniform;
  if (name == "binary") return AdvantageMode::kBinary;
  return Status::InvalidArgument("unknown advantage mode '" + std::string(name) +
                                 "' (expected hrd, uniform or binary)");
}

const char* AdvantageModeName(AdvantageMode mode) {
  switch (mode) {
    case AdvantageMode::kHrd:
      return "hrd";
    case AdvantageMode::kUniform:
      return "uniform";
    case AdvantageMode::kBinary:
      return "binary";
  }
  return "unknown";
}

Status ValidateAdvantageConfig(const AdvantageConfig& config) {
  if (!std::isfinite(config.alpha) || config.alpha < 0)
    return Status::InvalidArgument("alpha must be a finite number >= 0");
  if (!std::isfinite(config.beta) || config.beta < 0 || config.beta > 1)
    return Status::InvalidArgument("beta must be in [0, 1]");
  if (!std::isfinite(config.eps) || config.eps <= 0)
    return Status::InvalidArgument("eps must be a finite number > 0");
  return Status::Ok();
}

double ScalarReward(const Rewards& rewards, const AdvantageConfig& config) {
  if (config.mode == AdvantageMode::kBinary) return rewards.r_binary;
  return config.beta * rewards.r_correct + (1 - config.beta) * rewards.r_speedup;
}

namespace {
bool AllEqual(std::span<const double> v) {
  for (double x : v)
    if (x != v[0]) return false;
  return true;
}
}  // namespace

Result<std::vector<double>> NormalizeGroup(std::span<const double> rewards, bool by_std,
                                           double eps) {
  if (rewards.empty()) return Status::InvalidArgument("empty group");
  for (size_t i = 0; i < rewards.size(); ++i) {
    if (!std::isfinite(rewards[i]))
      return Status::InvalidArgument("reward " + std::to_string(i) + " of the group is not finite");
  }
  std::vector<double> out(rewards.size(), 0.0);
  // Tested explicitly: sum/G of equal values need not round back to the value,
  // and (r - mean) / eps would then turn rounding noise into a signal.
  if (AllEqual(rewards)) return out;
  const double n = static_cast<double>(rewards.size());
  double sum = 0;
  for (double r : rewards) sum += r;
  const double mean = sum / n;
  double scale = 1.0;
  if (by_std) {
    double squares = 0;
    for (double r : rewards) squares += (r - mean) * (r - mean);
    // G >= 2 here: a single value is always "all equal".
    scale = 1.0 / (std::sqrt(squares / (n - 1)) + eps);
  }
  for (size_t i = 0; i < rewards.size(); ++i) out[i] = (rewards[i] - mean) * scale;
  return out;
}

Result<GroupAdvantages> ComputeGroupAdvantages(std::span<const Rewards> group,
                                               const AdvantageConfig& config) {
  TRITONRL_RETURN_IF_ERROR(ValidateAdvantageConfig(config));
  if (group.empty()) return Status::InvalidArgument("empty group");
  const size_t g = group.size();
  GroupAdvantages out;
  out.rollouts.resize(g);

  auto normalize = [&](const std::vector<double>& r) {
    return NormalizeGroup(r, config.normalize_by_std, config.eps);
  };
  if (config.mode == AdvantageMode::kHrd) {
    std::vector<double> correct(g), speedup(g);
    for (size_t i = 0; i < g; ++i) {
      correct[i] = group[i].r_correct;
      speedup[i] = group[i].r_speedup;
    }
    auto a_code = normalize(correct);
    if (!a_code.ok()) return a_code.status();
    auto a_plan = normalize(speedup);
    if (!a_plan.ok()) return a_plan.status();
    for (size_t i = 0; i < g; ++i) {
      out.rollouts[i].code = (*a_code)[i];
      out.rollouts[i].plan = config.alpha * (*a_plan)[i];
    }
    out.constant = AllEqual(correct) && AllEqual(speedup);
  } else {
    std::vector<double> reward(g);
    for (size_t i = 0; i < g; ++i) reward[i] = ScalarReward(group[i], config);
    auto a = normalize(reward);
    if (!a.ok()) return a.status();
    for (size_t i = 0; i < g; ++i) out.rollouts[i] = {(*a)[i], (*a)[i]};
    out.constant = AllEqual(reward);
  }
  out.filtered = out.constant && config.filter_constant_groups;
  return out;
}

}  // namespace tritonrl::rl
