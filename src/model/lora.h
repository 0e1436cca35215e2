// LoRA adapters on a Qwen3 model's projections, as PEFT's LoRA computes them:
//   y = W x + (alpha / r) * B(A(dropout(x)))
// for each targeted projection (PEFT's module names: q_proj, k_proj, v_proj,
// o_proj, gate_proj, up_proj, down_proj). A [r, in] starts as PEFT draws it
// (kaiming-uniform, a = sqrt(5): U(-1/sqrt(in), 1/sqrt(in))), B [out, r] at
// zero, so a fresh adapter leaves the model unchanged. Adapters are fp32
// whatever the base's dtype: as in PEFT, the input is cast to fp32, the
// adapter's term added to the base projection's output in fp32, and the sum
// rounded once to the model dtype.
//
// On disk, PEFT's layout: DIR/adapter_config.json (peft_type LORA, r,
// lora_alpha, lora_dropout, target_modules, base_model_name_or_path) and
// DIR/adapter_model.safetensors with PEFT's key names
// (base_model.model.model.layers.{i}.self_attn.q_proj.lora_A.weight, ...), fp32.
// The base model is referenced by base_model_name_or_path (an absolute
// directory), not copied. LoadQwen3 (below) reads such a directory as base
// plus adapters, unmerged; MergeLora folds them into the base weights.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/lora_config.h"
#include "model/qwen3.h"

namespace tritonrl::model {

// Gives every layer fresh adapters of `c` (PEFT's initialisation), drawn on the
// CPU from `seed` (layer by layer, targets in enum order), fp32 on the model's
// device. Sets m.lora.
void AddLoraAdapters(Qwen3Model& m, const LoraConfig& c, uint64_t seed);

// PEFT's key of layer l's adapter: base_model.model.model.layers.{l}.{path}.lora_{A,B}.weight.
std::string PeftLoraKey(int64_t layer, LoraTarget t, bool b_matrix);

// Writes DIR/adapter_config.json and DIR/adapter_model.safetensors (fp32). `base_model`:
// base_model_name_or_path.
Status SaveLoraAdapter(const Qwen3Model& m, const std::string& dir, const std::string& base_model);

bool IsLoraAdapterDir(const std::string& dir);  // DIR/adapter_config.json exists

struct LoraAdapterConfig {
  LoraConfig config;
  std::string base_model;  // base_model_name_or_path
};
// Reads DIR/adapter_config.json; refuses what tritonrl cannot apply exactly (not LORA,
// DoRA, rsLoRA, bias other than "none", fan_in_fan_out, modules_to_save, per-module ranks).
Result<LoraAdapterConfig> ReadLoraAdapterConfig(const std::string& dir);
// Reads DIR/adapter_model.safetensors into m's layers (fp32, m's device) and sets m.lora;
// errors list every missing, unexpected or mis-shaped tensor by its PEFT name.
Status LoadLoraAdapterWeights(Qwen3Model& m, const std::string& dir, const LoraConfig& c);

// A model directory: DIR/config.json and the safetensors checkpoint in DIR (LoadQwen3Checkpoint),
// or a LoRA adapter directory (DIR/adapter_config.json), which loads as its base model
// (base_model_name_or_path) plus the adapters, unmerged.
Result<Qwen3Model> LoadQwen3(const std::string& dir, const ModelOptions& options);

// W <- W + (alpha / r) B A for every adapter, computed in fp32 and rounded once to the
// model dtype; the adapters are removed (m.lora.r = 0).
void MergeLora(Qwen3Model& m);

}  // namespace tritonrl::model
