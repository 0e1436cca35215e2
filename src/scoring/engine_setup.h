// Internal to scoring: the engine configuration a Scorer holds (interpreter, runner, sandbox,
// seccomp filter, timing options) and the secret seeds each batch draws afresh. Called from the
// Scorer only; ScoringConfig is the only input.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "eval/types.h"
#include "scoring/score_batch.h"

namespace tritonrl::scoring {

// "cpu" or "cuda" from auto, cpu or cuda; InvalidArgument otherwise.
Result<std::string> ResolveDevice(const std::string& requested);
// The accelerator's name (nvidia-smi), "cuda" if unknown, "cpu" on the CPU.
std::string DeviceModel(const std::string& device);

// Checks the config's numbers and names; InvalidArgument naming the option.
Status ValidateConfig(const ScoringConfig& config);

// Everything of the engine configuration that is fixed for the Scorer's lifetime: writes the
// allowlist into the work folder, builds the seccomp filter. Seeds are drawn by DrawBatchSeeds.
Result<eval::EngineConfig> MakeEngineConfig(const ScoringConfig& config, const std::string& device,
                                            const std::string& device_model);

// Fresh secret seeds for one batch: the trial schedule, the init seed and the timing plan, so
// that no two calls share a secret a candidate could learn from an earlier one.
void DrawBatchSeeds(const ScoringConfig& config, eval::EngineConfig& engine);

// The run configuration recorded in the store: every option that can change a verdict.
nlohmann::json RunConfigJson(const ScoringConfig& config, const std::string& device);

}  // namespace tritonrl::scoring
