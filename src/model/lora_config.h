// LoRA's configuration, without a model: the projections an adapter can target (PEFT's module
// names), rank / alpha / dropout, and one adapter's two matrices. Below the decoder (qwen3.h holds
// a LoraLayer per layer and a LoraConfig); what adds, loads, saves or merges adapters on a model is
// model/lora.h, above it.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace tritonrl::model {

enum class LoraTarget : int { kQ = 0, kK, kV, kO, kGate, kUp, kDown };
inline constexpr int kLoraTargetCount = 7;

// PEFT's (and transformers') module name: "q_proj", ..., "down_proj".
const char* LoraTargetName(LoraTarget t);
// The module's path inside a decoder layer: "self_attn.q_proj", "mlp.gate_proj", ...
const char* LoraTargetPath(LoraTarget t);

struct LoraConfig {
  int64_t r = 0;  // rank; 0: no adapters
  double alpha = 16;
  double dropout = 0;  // on the adapter's input, training only
  std::vector<LoraTarget> targets;

  bool enabled() const { return r > 0; }
  double scale() const { return alpha / static_cast<double>(r); }
  bool Targets(LoraTarget t) const;
};

// One adapter: A [r, in], B [out, r] (fp32). Undefined when the projection is not targeted.
struct LoraPair {
  at::Tensor A, B;
  bool defined() const { return A.defined(); }
};
using LoraLayer = std::array<LoraPair, kLoraTargetCount>;

// "q_proj,k_proj,..." (PEFT's names, any order, no repeats), "all" (the seven),
// "attention" (q, k, v, o) or "mlp" (gate, up, down). Errors name the bad entry.
Result<std::vector<LoraTarget>> ParseLoraTargets(const std::string& text);
// Rank >= 1, alpha > 0, dropout in [0, 1), at least one target.
Status ValidateLoraConfig(const LoraConfig& c);

}  // namespace tritonrl::model
