#include "model/lora.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "base/file.h"
#include "model/hf_files.h"
#include "model/lora_merge.h"
#include "model/qwen3.h"
#include "model/safetensors.h"

namespace tritonrl::model {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr LoraTarget kAllTargets[] = {LoraTarget::kQ,   LoraTarget::kK,    LoraTarget::kV,
                                      LoraTarget::kO,   LoraTarget::kGate, LoraTarget::kUp,
                                      LoraTarget::kDown};

// The target's base weight inside a layer: a row slice of the fused q/k/v or
// gate/up tensor, or the whole o/down tensor (a view: writes reach the layer).
at::Tensor TargetWeight(const Qwen3Layer& L, const Qwen3Config& c, LoraTarget t) {
  const int64_t q = c.num_attention_heads * c.head_dim, kv = c.num_key_value_heads * c.head_dim;
  const int64_t I = c.intermediate_size;
  switch (t) {
    case LoraTarget::kQ:
      return L.qkv_proj.narrow(0, 0, q);
    case LoraTarget::kK:
      return L.qkv_proj.narrow(0, q, kv);
    case LoraTarget::kV:
      return L.qkv_proj.narrow(0, q + kv, kv);
    case LoraTarget::kO:
      return L.o_proj;
    case LoraTarget::kGate:
      return L.gate_up_proj.narrow(0, 0, I);
    case LoraTarget::kUp:
      return L.gate_up_proj.narrow(0, I, I);
    case LoraTarget::kDown:
      return L.down_proj;
  }
  return {};
}

// [out, in] of the target's projection, from the config alone.
std::pair<int64_t, int64_t> TargetShape(const Qwen3Config& c, LoraTarget t) {
  const int64_t q = c.num_attention_heads * c.head_dim, kv = c.num_key_value_heads * c.head_dim;
  const int64_t h = c.hidden_size, I = c.intermediate_size;
  switch (t) {
    case LoraTarget::kQ:
      return {q, h};
    case LoraTarget::kK:
    case LoraTarget::kV:
      return {kv, h};
    case LoraTarget::kO:
      return {h, q};
    case LoraTarget::kGate:
    case LoraTarget::kUp:
      return {I, h};
    case LoraTarget::kDown:
      return {h, I};
  }
  return {0, 0};
}

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// PEFT's adapter_config.json for what tritonrl computes (plain LoRA, no bias, no DoRA).
json AdapterConfigJson(const LoraConfig& c, const std::string& base_model) {
  json targets = json::array();
  for (LoraTarget t : c.targets) targets.push_back(LoraTargetName(t));
  return {{"peft_type", "LORA"},
          {"task_type", "CAUSAL_LM"},
          {"base_model_name_or_path", base_model},
          {"r", c.r},
          {"lora_alpha", c.alpha},
          {"lora_dropout", c.dropout},
          {"target_modules", targets},
          {"bias", "none"},
          {"fan_in_fan_out", false},
          {"use_rslora", false},
          {"use_dora", false},
          {"init_lora_weights", true},
          {"inference_mode", true},
          {"modules_to_save", nullptr},
          {"rank_pattern", json::object()},
          {"alpha_pattern", json::object()},
          {"layers_to_transform", nullptr}};
}

// Options PEFT may set that would change what the adapter computes: refused, not ignored.
Status CheckSupportedAdapter(const json& j, const std::string& path) {
  auto is = [&](const char* key, const json& want) {
    return !j.contains(key) || j[key].is_null() || j[key] == want;
  };
  if (j.value("peft_type", "") != "LORA")
    return Status::InvalidArgument(path + ": not a LoRA adapter");
  for (const char* flag : {"use_dora", "use_rslora", "fan_in_fan_out"}) {
    if (!is(flag, false)) return Status::InvalidArgument(path + ": " + flag + " is not supported");
  }
  if (!is("bias", "none")) return Status::InvalidArgument(path + ": bias other than none");
  for (const char* key : {"modules_to_save", "layers_to_transform"}) {
    if (!is(key, nullptr) && !(j[key].is_array() && j[key].empty())) {
      return Status::InvalidArgument(path + ": " + key + " is not supported");
    }
  }
  for (const char* key : {"rank_pattern", "alpha_pattern"}) {
    if (!is(key, json::object())) {
      return Status::InvalidArgument(path + ": " + key + " is not supported");
    }
  }
  return Status::Ok();
}

}  // namespace

namespace {

// Every weight of `m` in `dtype` (SaveQwen3 writes the model's dtype).
void ConvertWeights(Qwen3Model& m, c10::ScalarType dtype) {
  auto conv = [&](at::Tensor& t) {
    if (t.defined()) t = t.to(dtype);
  };
  conv(m.embed);
  conv(m.final_norm);
  if (m.config.tie_word_embeddings) {
    m.lm_head = m.embed;
  } else {
    conv(m.lm_head);
  }
  for (Qwen3Layer& L : m.layers) {
    for (at::Tensor* t : {&L.input_norm, &L.qkv_proj, &L.qkv_bias, &L.o_proj, &L.o_bias, &L.q_norm,
                          &L.k_norm, &L.qk_norm, &L.post_norm, &L.gate_up_proj, &L.down_proj}) {
      conv(*t);
    }
  }
  m.dtype = dtype;
}

}  // namespace

void AddLoraAdapters(Qwen3Model& m, const LoraConfig& c, uint64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  auto opts = at::TensorOptions().dtype(at::kFloat);
  for (Qwen3Layer& L : m.layers) {
    for (LoraTarget t : kAllTargets) {
      L.lora[static_cast<int>(t)] = {};
      if (!c.Targets(t)) continue;
      const auto [out, in] = TargetShape(m.config, t);
      // kaiming_uniform_(a = sqrt(5)): gain sqrt(2 / (1 + 5)), bound gain * sqrt(3 / in) =
      // 1/sqrt(in).
      const double bound = 1.0 / std::sqrt(static_cast<double>(in));
      at::Tensor A = at::empty({c.r, in}, opts).uniform_(-bound, bound, gen);
      L.lora[static_cast<int>(t)] = {A.to(m.device), at::zeros({out, c.r}, opts.device(m.device))};
    }
  }
  m.lora = c;
}

std::string PeftLoraKey(int64_t layer, LoraTarget t, bool b_matrix) {
  return "base_model.model.model.layers." + std::to_string(layer) + "." + LoraTargetPath(t) +
         (b_matrix ? ".lora_B.weight" : ".lora_A.weight");
}

Status SaveLoraAdapter(const Qwen3Model& m, const std::string& dir, const std::string& base_model) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(dir + ": " + ec.message());
  std::vector<at::Tensor> keep;
  std::vector<TensorToWrite> out;
  for (size_t l = 0; l < m.layers.size(); ++l) {
    for (LoraTarget t : kAllTargets) {
      const LoraPair& p = m.layers[l].lora[static_cast<int>(t)];
      if (!p.defined()) continue;
      for (bool b : {false, true}) {
        keep.push_back((b ? p.B : p.A).detach().to(at::kCPU, at::kFloat).contiguous());
        out.push_back({PeftLoraKey(static_cast<int64_t>(l), t, b), DType::kF32,
                       keep.back().sizes().vec(), keep.back().data_ptr()});
      }
    }
  }
  TRITONRL_RETURN_IF_ERROR(WriteFileAtomic((fs::path(dir) / "adapter_config.json").string(),
                                           AdapterConfigJson(m.lora, base_model).dump(2)));
  return WriteSafetensors((fs::path(dir) / "adapter_model.safetensors").string(), out,
                          {{"format", "pt"}});
}

Result<Qwen3Model> LoadQwen3(const std::string& dir, const ModelOptions& options) {
  if (!IsLoraAdapterDir(dir)) return LoadQwen3Checkpoint(dir, options);
  auto adapter = ReadLoraAdapterConfig(dir);
  if (!adapter.ok()) return adapter.status();
  if (adapter->base_model.empty()) {
    return Status::InvalidArgument(dir + "/adapter_config.json: no base_model_name_or_path");
  }
  if (IsLoraAdapterDir(adapter->base_model)) {
    return Status::InvalidArgument(dir + ": base model " + adapter->base_model +
                                   " is itself an adapter; merge it first (tritonrl lora merge)");
  }
  auto m = LoadQwen3Checkpoint(adapter->base_model, options);
  if (!m.ok()) {
    return Status::InvalidArgument(dir + ": base model " + adapter->base_model + ": " +
                                   m.status().message());
  }
  try {
    TRITONRL_RETURN_IF_ERROR(LoadLoraAdapterWeights(*m, dir, adapter->config));
  } catch (const c10::Error& e) {
    return Status::Internal(dir + ": loading the adapter failed: " + e.what_without_backtrace());
  }
  return m;
}

bool IsLoraAdapterDir(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "adapter_config.json", ec);
}

Result<LoraAdapterConfig> ReadLoraAdapterConfig(const std::string& dir) {
  const std::string path = (fs::path(dir) / "adapter_config.json").string();
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  LoraAdapterConfig out;
  try {
    const json j = json::parse(*text);
    TRITONRL_RETURN_IF_ERROR(CheckSupportedAdapter(j, path));
    out.config.r = j.at("r").get<int64_t>();
    out.config.alpha = j.at("lora_alpha").get<double>();
    out.config.dropout = j.value("lora_dropout", 0.0);
    std::string joined;
    const json& tm = j.at("target_modules");
    if (tm.is_string()) {
      return Status::InvalidArgument(path + ": target_modules as a regex is not supported");
    }
    for (const json& t : tm) joined += (joined.empty() ? "" : ",") + t.get<std::string>();
    auto targets = ParseLoraTargets(joined);
    if (!targets.ok()) return Status::InvalidArgument(path + ": " + targets.status().message());
    out.config.targets = *targets;
    out.base_model = j.value("base_model_name_or_path", "");
  } catch (const json::exception& e) {
    return Status::InvalidArgument(path + ": " + e.what());
  }
  TRITONRL_RETURN_IF_ERROR(ValidateLoraConfig(out.config));
  return out;
}

Status LoadLoraAdapterWeights(Qwen3Model& m, const std::string& dir, const LoraConfig& c) {
  const std::string path = (fs::path(dir) / "adapter_model.safetensors").string();
  auto file = OpenSafetensors(path);
  if (!file.ok()) return file.status();
  std::vector<std::string> problems;
  std::set<std::string> used;
  std::vector<LoraLayer> loaded(m.layers.size());
  for (size_t l = 0; l < m.layers.size(); ++l) {
    for (LoraTarget t : c.targets) {
      const auto [out, in] = TargetShape(m.config, t);
      for (bool b : {false, true}) {
        const std::string key = PeftLoraKey(static_cast<int64_t>(l), t, b);
        // PEFT before 0.7 kept the adapter name in the key.
        std::string found = key;
        if (!file->tensors.count(found)) found = key.substr(0, key.size() - 7) + ".default.weight";
        auto it = file->tensors.find(found);
        const std::vector<int64_t> want =
            b ? std::vector<int64_t>{out, c.r} : std::vector<int64_t>{c.r, in};
        if (it == file->tensors.end()) {
          problems.push_back(key + " missing");
          continue;
        }
        used.insert(found);
        const TensorInfo& info = it->second;
        if (info.shape != want || (info.dtype != DType::kF32 && info.dtype != DType::kBF16 &&
                                   info.dtype != DType::kF16)) {
          problems.push_back(key + " is " + DTypeName(info.dtype) + ShapeText(info.shape) +
                             ", expected a float " + ShapeText(want));
          continue;
        }
        const c10::ScalarType st = info.dtype == DType::kF32    ? at::kFloat
                                   : info.dtype == DType::kBF16 ? at::kBFloat16
                                                                : at::kHalf;
        at::Tensor x = at::empty(info.shape, at::TensorOptions().dtype(st));
        std::memcpy(x.data_ptr(), file->TensorData(info), info.end - info.begin);
        (b ? loaded[l][static_cast<int>(t)].B : loaded[l][static_cast<int>(t)].A) =
            x.to(m.device, at::kFloat);
      }
    }
  }
  for (const auto& [name, info] : file->tensors) {
    if (!used.count(name)) problems.push_back(name + " unexpected");
  }
  if (!problems.empty()) {
    std::string msg = path + ": adapter does not match adapter_config.json and the base model:";
    for (size_t i = 0; i < problems.size() && i < 8; ++i) msg += " " + problems[i] + ";";
    if (problems.size() > 8) msg += " ...;";
    return Status::InvalidArgument(msg);
  }
  for (size_t l = 0; l < m.layers.size(); ++l) m.layers[l].lora = loaded[l];
  m.lora = c;
  return Status::Ok();
}

void MergeLora(Qwen3Model& m) {
  at::NoGradGuard no_grad;
  if (!m.lora.enabled()) return;
  const double scale = m.lora.scale();
  for (Qwen3Layer& L : m.layers) {
    for (LoraTarget t : kAllTargets) {
      LoraPair& p = L.lora[static_cast<int>(t)];
      if (!p.defined()) continue;
      at::Tensor W = TargetWeight(L, m.config, t);
      W.copy_((W.to(at::kFloat) + at::mm(p.B.to(at::kFloat), p.A.to(at::kFloat)) * scale)
                  .to(W.scalar_type()));
      p = {};
    }
  }
  m.lora = {};
}

}  // namespace tritonrl::model

namespace tritonrl::model {

Result<LoraMergeSummary> MergeLoraCheckpoint(const std::string& adapter_dir,
                                             const std::string& out_dir) {
  if (!IsLoraAdapterDir(adapter_dir)) {
    return Status::InvalidArgument(adapter_dir + ": no adapter_config.json (not a LoRA adapter)");
  }
  auto adapter = ReadLoraAdapterConfig(adapter_dir);
  if (!adapter.ok()) return adapter.status();
  auto base_config = LoadQwen3Config((fs::path(adapter->base_model) / "config.json").string());
  if (!base_config.ok()) return base_config.status();
  const std::string& dt = base_config->torch_dtype;
  LoraMergeSummary summary;
  summary.base_model = adapter->base_model;
  summary.dtype = dt.empty() ? "float32" : dt;
  ModelOptions mo;
  mo.dtype = at::kFloat;
  auto m = LoadQwen3(adapter_dir, mo);  // base + adapters, fp32
  if (!m.ok()) return m.status();
  for (const Qwen3Layer& L : m->layers) {
    for (const LoraPair& p : L.lora) summary.adapters += p.defined() ? 1 : 0;
  }
  auto dtype = ParseModelDType(summary.dtype);
  if (!dtype.ok()) return dtype.status();
  MergeLora(*m);
  ConvertWeights(*m, *dtype);
  auto base_files = ReadCarriedModelFiles(adapter->base_model);
  if (!base_files.ok()) return base_files.status();
  auto adapter_files = ReadCarriedModelFiles(adapter_dir);
  if (!adapter_files.ok()) return adapter_files.status();
  try {
    TRITONRL_RETURN_IF_ERROR(SaveQwen3(*m, out_dir));
  } catch (const c10::Error& e) {
    return Status::Internal(out_dir + ": merging failed: " + e.what_without_backtrace());
  }
  ModelFiles files = std::move(base_files.value());
  for (auto& [name, text] : *adapter_files) {
    // The trainer's files are no part of a model.
    if (name == "optimizer.safetensors" || name == "trainer_state.json") continue;
    files[name] = text;
  }
  for (const auto& [name, text] : files) {
    TRITONRL_RETURN_IF_ERROR(WriteFileAtomic((fs::path(out_dir) / name).string(), text));
  }
  return summary;
}

}  // namespace tritonrl::model
