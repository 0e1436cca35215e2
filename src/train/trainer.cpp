#include "train/trainer.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "base/sha256.h"
#include "model/lora.h"
#include "model/safetensors.h"
#include "train/sft_data.h"

namespace tritonrl::train {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Visits every trained tensor of the model once (the head only when untied),
// with a stable name and whether it takes weight decay (matrices only).
template <typename Fn>
void ForEachTensor(model::Qwen3Model& m, Fn fn) {
  fn("embed", m.embed, true);
  if (!m.config.tie_word_embeddings) fn("lm_head", m.lm_head, true);
  fn("final_norm", m.final_norm, false);
  for (size_t l = 0; l < m.layers.size(); ++l) {
    model::Qwen3Layer& L = m.layers[l];
    const std::string p = "layers." + std::to_string(l) + ".";
    fn(p + "input_norm", L.input_norm, false);
    fn(p + "qkv_proj", L.qkv_proj, true);
    if (L.qkv_bias.defined()) fn(p + "qkv_bias", L.qkv_bias, false);
    fn(p + "o_proj", L.o_proj, true);
    if (L.o_bias.defined()) fn(p + "o_bias", L.o_bias, false);
    fn(p + "q_norm", L.q_norm, false);
    fn(p + "k_norm", L.k_norm, false);
    fn(p + "post_norm", L.post_norm, false);
    fn(p + "gate_up_proj", L.gate_up_proj, true);
    fn(p + "down_proj", L.down_proj, true);
  }
}

at::Tensor QkNorm(const model::Qwen3Layer& L, const model::Qwen3Config& c) {
  return at::cat({L.q_norm.unsqueeze(0).expand({c.num_attention_heads, c.head_dim}),
                  L.k_norm.unsqueeze(0).expand({c.num_key_value_heads, c.head_dim})},
                 0);
}

Result<std::string> HashFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  return Sha256Hex(*text);
}

const std::vector<const char*>& HashedFiles(bool lora) {
  static const std::vector<const char*> kFull = {"config.json", "model.safetensors",
                                                 "tokenizer.json", "optimizer.safetensors"};
  static const std::vector<const char*> kLora = {"adapter_config.json", "adapter_model.safetensors",
                                                 "tokenizer.json", "optimizer.safetensors"};
  return lora ? kLora : kFull;
}

// The model's files: a full Hugging Face model, or (LoRA) PEFT's adapter files and the
// tokenizer's side files, the base referenced by Trainable::lora_base.
// `dtype`: the weights' dtype on disk (the fp32 masters, or rounded once to bf16: the served
// model).
Status SaveModelFiles(const std::string& tmp, const Trainable& t, const model::Tokenizer& tokenizer,
                      const model::EndOfTurn& end_of_turn, const model::ModelFiles& carried,
                      c10::ScalarType dtype = at::kFloat) {
  model::Qwen3Model m = t.master;
  if (dtype != at::kFloat && !m.lora.enabled()) {
    ForEachTensor(m, [&](const std::string&, at::Tensor& x, bool) { x = x.detach().to(dtype); });
    if (m.config.tie_word_embeddings) m.lm_head = m.embed;
    m.dtype = dtype;
  }
  for (model::Qwen3Layer& L : m.layers) L.qk_norm = QkNorm(L, m.config);
  std::error_code ec;
  fs::create_directories(tmp, ec);
  if (ec) return Status::IoError(tmp + ": " + ec.message());
  if (!m.lora.enabled()) TRITONRL_RETURN_IF_ERROR(model::SaveQwen3(m, tmp));
  TRITONRL_RETURN_IF_ERROR(
      WriteFileAtomic((fs::path(tmp) / "tokenizer.json").string(), TokenizerToJson(tokenizer)));
  model::HfSideFileOptions side;
  side.model_max_length = m.config.max_position_embeddings;
  side.eos_token_id = m.config.eos_token_id;
  side.bos_token_id = m.config.bos_token_id;
  side.end_of_turn = end_of_turn;
  TRITONRL_RETURN_IF_ERROR(model::WriteHfModelFiles(tmp, tokenizer, side, carried));
  if (m.lora.enabled()) TRITONRL_RETURN_IF_ERROR(model::SaveLoraAdapter(m, tmp, t.lora_base));
  return Status::Ok();
}

// Renames the complete directory `tmp` over `dir`, replacing the previous one only once the new
// one is complete (a crash leaves the old, the new, or DIR.old beside DIR.tmp).
Status ReplaceDirectory(const std::string& tmp, const std::string& dir) {
  std::error_code ec;
  const std::string old = dir + ".old";
  fs::remove_all(old, ec);
  if (fs::exists(dir)) {
    fs::rename(dir, old, ec);
    if (ec) return Status::IoError(dir + ": " + ec.message());
  }
  fs::rename(tmp, dir, ec);
  if (ec) return Status::IoError(dir + ": " + ec.message());
  fs::remove_all(old, ec);
  return Status::Ok();
}

}  // namespace

Trainable MakeTrainable(model::Qwen3Model m, c10::ScalarType compute) {
  Trainable t;
  ForEachTensor(m, [&](const std::string& name, at::Tensor& x, bool decay) {
    x = x.detach().to(at::kFloat).contiguous().requires_grad_(true);
    t.params.push_back({name, x, decay});
  });
  if (m.config.tie_word_embeddings) m.lm_head = m.embed;
  m.dtype = at::kFloat;
  t.compute = compute;
  // The reference rounds fp32 rotary tables to the model dtype: casting the
  // fp32 tables gives exactly the compute-dtype tables.
  t.rope_cos = m.rope_cos.to(at::kFloat).to(compute);
  t.rope_sin = m.rope_sin.to(at::kFloat).to(compute);
  t.rope_sin_swapped = m.rope_sin_swapped.to(at::kFloat).to(compute);
  m.rope_cos = m.rope_cos.to(at::kFloat);
  m.rope_sin = m.rope_sin.to(at::kFloat);
  m.rope_sin_swapped = m.rope_sin_swapped.to(at::kFloat);
  t.master = std::move(m);
  return t;
}

Trainable MakeLoraTrainable(model::Qwen3Model m, c10::ScalarType compute, std::string base_dir) {
  Trainable t;
  ForEachTensor(m, [&](const std::string&, at::Tensor& x, bool) {
    x = x.detach().to(compute).contiguous().requires_grad_(false);
  });
  if (m.config.tie_word_embeddings) m.lm_head = m.embed;
  for (size_t l = 0; l < m.layers.size(); ++l) {
    for (int i = 0; i < model::kLoraTargetCount; ++i) {
      model::LoraPair& p = m.layers[l].lora[i];
      if (!p.defined()) continue;
      const std::string name = "layers." + std::to_string(l) + "." +
                               model::LoraTargetName(static_cast<model::LoraTarget>(i));
      p.A = p.A.detach().to(at::kFloat).contiguous().requires_grad_(true);
      p.B = p.B.detach().to(at::kFloat).contiguous().requires_grad_(true);
      t.params.push_back({name + ".lora_A", p.A, true});
      t.params.push_back({name + ".lora_B", p.B, true});
    }
  }
  m.dtype = compute;
  t.compute = compute;
  t.rope_cos = m.rope_cos.to(at::kFloat).to(compute);
  t.rope_sin = m.rope_sin.to(at::kFloat).to(compute);
  t.rope_sin_swapped = m.rope_sin_swapped.to(at::kFloat).to(compute);
  t.lora_base = std::move(base_dir);
  t.master = std::move(m);
  return t;
}

model::Qwen3Model ComputeView(const Trainable& t) {
  model::Qwen3Model v = t.master;
  if (t.compute != at::kFloat) {
    ForEachTensor(v, [&](const std::string&, at::Tensor& x, bool) { x = x.to(t.compute); });
    if (v.config.tie_word_embeddings) v.lm_head = v.embed;
  }
  for (model::Qwen3Layer& L : v.layers) L.qk_norm = QkNorm(L, v.config);
  v.dtype = t.compute;
  v.rope_cos = t.rope_cos;
  v.rope_sin = t.rope_sin;
  v.rope_sin_swapped = t.rope_sin_swapped;
  return v;
}

TokenBatch MakeBatch(const std::vector<std::vector<int32_t>>& rows,
                     const std::vector<int64_t>& score_from, c10::Device device) {
  size_t T = 0;
  for (const auto& r : rows) T = std::max(T, r.size());
  const int64_t B = static_cast<int64_t>(rows.size());
  std::vector<int64_t> ids(B * T, 0), targets, where;
  TokenBatch b;
  for (int64_t r = 0; r < B; ++r) {
    const auto& row = rows[r];
    for (size_t t = 0; t < row.size(); ++t) ids[r * T + t] = row[t];
    b.real_tokens += static_cast<int64_t>(row.size());
    for (int64_t t = std::max<int64_t>(score_from[r] - 1, 0);
         t + 1 < static_cast<int64_t>(row.size()); ++t) {
      targets.push_back(row[t + 1]);
      where.push_back(r * static_cast<int64_t>(T) + t);
    }
  }
  auto opts = at::TensorOptions().dtype(at::kLong);
  b.ids = at::tensor(ids, opts).view({B, static_cast<int64_t>(T)}).to(device);
  b.targets = at::tensor(targets, opts).to(device);
  b.rows = at::tensor(where, opts).to(device);
  return b;
}

at::Tensor ScoredHidden(const model::Qwen3Model& m, const TokenBatch& b, const LossKernels& k) {
  const int64_t B = b.ids.size(0), T = b.ids.size(1);
  model::ForwardArgs a;
  a.ids = b.ids;
  a.positions = at::arange(T, b.ids.options()).unsqueeze(0).expand({B, T}).contiguous();
  a.causal = true;  // right padding: a real position never attends to the padding after it
  a.hidden_only = true;
  a.checkpoint_layers = k.checkpoint_layers;
  a.fused_norm = k.fused_norm;
  a.fused_proj = k.fused_proj;
  a.rope_roll = k.rope_roll;
  a.lora_dropout = k.lora_dropout;
  at::Tensor h = model::Forward(m, a);
  return h.reshape({B * T, h.size(-1)}).index_select(0, b.rows);
}

at::Tensor ScoredLogProbs(const model::Qwen3Model& m, const TokenBatch& b, bool checkpoint_layers,
                          double temperature, at::Tensor* entropy, int64_t chunk) {
  LossKernels k;
  k.checkpoint_layers = checkpoint_layers;
  return HeadLogProbs(ScoredHidden(m, b, k), m.lm_head, b.targets, temperature, chunk, entropy);
}

AdamWState InitAdamW(const Trainable& t) {
  AdamWState s;
  for (const Param& p : t.params) {
    s.exp_avg.push_back(at::zeros_like(p.value, at::TensorOptions().requires_grad(false)));
    s.exp_avg_sq.push_back(at::zeros_like(p.value, at::TensorOptions().requires_grad(false)));
  }
  return s;
}

namespace {

// Two multi-tensor calls (with and without weight decay) over the tensors that have gradients.
void FusedAdamWStep(Trainable& t, AdamWState& s, double lr, const AdamWOptions& o) {
  if (s.fused_steps.size() != t.params.size()) {  // first step, or after a resume
    s.fused_steps.clear();
    for (const Param& p : t.params) {
      s.fused_steps.push_back(at::full({}, static_cast<double>(s.step - 1),
                                       p.value.options().dtype(at::kFloat).requires_grad(false)));
    }
  }
  at::_foreach_add_(s.fused_steps, 1.0);  // the kernel reads the step (bias correction) from here
  std::vector<at::Tensor> p[2], g[2], m[2], v[2], st[2];
  for (size_t i = 0; i < t.params.size(); ++i) {
    at::Tensor grad = t.params[i].value.grad();
    if (!grad.defined()) continue;
    const int d = t.params[i].decay && o.weight_decay != 0 ? 1 : 0;
    p[d].push_back(t.params[i].value);
    g[d].push_back(grad);
    m[d].push_back(s.exp_avg[i]);
    v[d].push_back(s.exp_avg_sq[i]);
    st[d].push_back(s.fused_steps[i]);
  }
  for (int d = 0; d < 2; ++d) {
    if (p[d].empty()) continue;
    at::_fused_adamw_(p[d], g[d], m[d], v[d], /*max_exp_avg_sqs=*/{}, st[d], lr, o.beta1, o.beta2,
                      d ? o.weight_decay : 0.0, o.eps, /*amsgrad=*/false, /*maximize=*/false);
  }
}

}  // namespace

void AdamWStep(Trainable& t, AdamWState& s, double lr, const AdamWOptions& o) {
  at::NoGradGuard no_grad;
  ++s.step;
  if (o.fused) return FusedAdamWStep(t, s, lr, o);
  const double bc1 = 1.0 - std::pow(o.beta1, static_cast<double>(s.step));
  const double bc2 = 1.0 - std::pow(o.beta2, static_cast<double>(s.step));
  for (size_t i = 0; i < t.params.size(); ++i) {
    at::Tensor p = t.params[i].value;
    at::Tensor g = p.grad();
    if (!g.defined()) continue;
    if (t.params[i].decay && o.weight_decay != 0) p.mul_(1.0 - lr * o.weight_decay);
    s.exp_avg[i].lerp_(g, 1.0 - o.beta1);
    s.exp_avg_sq[i].mul_(o.beta2).addcmul_(g, g, 1.0 - o.beta2);
    at::Tensor denom = (s.exp_avg_sq[i].sqrt() / std::sqrt(bc2)).add_(o.eps);
    p.addcdiv_(s.exp_avg[i], denom, -lr / bc1);
  }
}

double CosineLr(int64_t step, int64_t warmup, int64_t total, double peak, double min_ratio) {
  if (warmup > 0 && step < warmup) return peak * static_cast<double>(step + 1) / warmup;
  const double span = static_cast<double>(std::max<int64_t>(total - warmup, 1));
  const double progress = std::min(1.0, static_cast<double>(step - warmup) / span);
  const double cosine = 0.5 * (1.0 + std::cos(M_PI * progress));
  return peak * (min_ratio + (1.0 - min_ratio) * cosine);
}

double ClipGradNorm(Trainable& t, double max_norm) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> norms;
  for (const Param& p : t.params) {
    if (p.value.grad().defined()) norms.push_back(p.value.grad().norm(2.0));
  }
  if (norms.empty()) return 0.0;
  const double total = at::stack(norms).norm(2.0).item<double>();
  if (max_norm > 0 && total > max_norm) {
    const double scale = max_norm / (total + 1e-6);
    for (const Param& p : t.params) {
      if (p.value.grad().defined()) p.value.mutable_grad().mul_(scale);
    }
  }
  return total;
}

at::Tensor ClipGradNormForeach(Trainable& t, double max_norm) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> grads;
  for (const Param& p : t.params) {
    if (p.value.grad().defined()) grads.push_back(p.value.grad());
  }
  if (grads.empty()) return at::zeros({}, at::TensorOptions().dtype(at::kDouble));
  at::Tensor total = at::stack(at::_foreach_norm(grads, 2)).norm(2.0);
  if (max_norm > 0) {
    at::_foreach_mul_(grads, (total + 1e-6).reciprocal().mul_(max_norm).clamp_max_(1.0));
  }
  return total;
}

Status SaveTrainCheckpoint(const std::string& dir, const Trainable& t, const AdamWState& adam,
                           const model::Tokenizer& tokenizer, const model::EndOfTurn& end_of_turn,
                           const std::string& state_json, const model::ModelFiles& carried) {
  at::NoGradGuard no_grad;
  const std::string tmp = dir + ".tmp";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  try {
    TRITONRL_RETURN_IF_ERROR(SaveModelFiles(tmp, t, tokenizer, end_of_turn, carried));
    std::vector<at::Tensor> keep;
    std::vector<model::TensorToWrite> out;
    for (size_t i = 0; i < t.params.size(); ++i) {
      for (int which = 0; which < 2; ++which) {
        keep.push_back((which ? adam.exp_avg_sq[i] : adam.exp_avg[i]).to(at::kCPU).contiguous());
        out.push_back({(which ? "exp_avg_sq." : "exp_avg.") + t.params[i].name, model::DType::kF32,
                       keep.back().sizes().vec(), keep.back().data_ptr()});
      }
    }
    TRITONRL_RETURN_IF_ERROR(model::WriteSafetensors(
        (fs::path(tmp) / "optimizer.safetensors").string(), out,
        {{"format", "tritonrl-adamw"}, {"step", std::to_string(adam.step)}}));
  } catch (const c10::Error& e) {
    return Status::Internal(dir + ": saving failed: " + e.what_without_backtrace());
  }
  json state;
  try {
    state = json::parse(state_json);
  } catch (const json::exception& e) {
    return Status::Internal(std::string("trainer state is not JSON: ") + e.what());
  }
  state["adam_step"] = adam.step;
  json hashes = json::object();
  for (const char* f : HashedFiles(t.master.lora.enabled())) {
    auto h = HashFile((fs::path(tmp) / f).string());
    if (!h.ok()) return h.status();
    hashes[f] = *h;
  }
  state["file_sha256"] = hashes;
  TRITONRL_RETURN_IF_ERROR(
      WriteFileAtomic((fs::path(tmp) / "trainer_state.json").string(), state.dump(1)));
  return ReplaceDirectory(tmp, dir);
}

Status SaveServedModel(const std::string& dir, const Trainable& t,
                       const model::Tokenizer& tokenizer, const model::EndOfTurn& end_of_turn,
                       c10::ScalarType dtype, const model::ModelFiles& carried) {
  if (t.master.lora.enabled()) {
    return Status::InvalidArgument(
        "a served model in another dtype is not written for LoRA adapters: merge the adapter "
        "(tritonrl lora merge) instead");
  }
  at::NoGradGuard no_grad;
  const std::string tmp = dir + ".tmp";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  try {
    TRITONRL_RETURN_IF_ERROR(SaveModelFiles(tmp, t, tokenizer, end_of_turn, carried, dtype));
  } catch (const c10::Error& e) {
    return Status::Internal(dir + ": saving failed: " + e.what_without_backtrace());
  }
  return ReplaceDirectory(tmp, dir);
}

Result<LoadedCheckpoint> LoadTrainCheckpoint(const std::string& dir, c10::Device device,
                                             c10::ScalarType compute) {
  const std::string state_path = (fs::path(dir) / "trainer_state.json").string();
  auto text = ReadFile(state_path);
  if (!text.ok()) {
    return Status::NotFound(dir + ": not a training checkpoint (no readable trainer_state.json)");
  }
  json state;
  try {
    state = json::parse(*text);
  } catch (const json::exception& e) {
    return Status::Corruption(state_path + ": corrupt (" + e.what() + ")");
  }
  if (state.is_object() && state.contains("file_fnv1a64") && !state.contains("file_sha256")) {
    return Status::FailedPrecondition(state_path +
                                      ": written by an older tritonrl (FNV-1a file hashes); "
                                      "resume it with the version that wrote it");
  }
  if (!state.is_object() || !state.contains("file_sha256") || !state.contains("adam_step")) {
    return Status::Corruption(state_path + ": missing file hashes or optimizer step");
  }
  const bool lora = model::IsLoraAdapterDir(dir);
  for (const char* f : HashedFiles(lora)) {
    const std::string path = (fs::path(dir) / f).string();
    auto h = HashFile(path);
    if (!h.ok())
      return Status::Corruption(dir + ": checkpoint incomplete: " + h.status().message());
    if (!state["file_sha256"].contains(f) || state["file_sha256"][f] != *h) {
      return Status::Corruption(path +
                                ": corrupt (its hash differs from the one in trainer_state.json)");
    }
  }
  LoadedCheckpoint out;
  model::ModelOptions mo;
  mo.device = device;
  mo.dtype = lora ? compute : at::kFloat;  // a LoRA base stays frozen in the compute dtype
  auto m = model::LoadQwen3(dir, mo);      // LoRA: the base named by adapter_config.json + adapters
  if (!m.ok()) return m.status();
  std::string lora_base;
  if (lora) {
    auto adapter = model::ReadLoraAdapterConfig(dir);
    if (!adapter.ok()) return adapter.status();
    lora_base = adapter->base_model;
  }
  auto tok = model::LoadTokenizerFile((fs::path(dir) / "tokenizer.json").string());
  if (!tok.ok()) return tok.status();
  if (tok->vocab_size() > m->config.vocab_size) {
    return Status::InvalidArgument(
        dir + ": tokenizer.json has " + std::to_string(tok->vocab_size()) +
        " tokens, more than the model's vocab_size " + std::to_string(m->config.vocab_size));
  }
  out.tokenizer = std::move(tok.value());
  auto eot = model::FindEndOfTurn(dir, out.tokenizer, m->config.eos_token_id);
  if (!eot.ok()) return eot.status();
  out.end_of_turn = std::move(eot.value());
  auto carried = model::ReadCarriedModelFiles(dir);
  if (!carried.ok()) return carried.status();
  out.carried_files = std::move(carried.value());
  out.trainable = lora ? MakeLoraTrainable(std::move(m.value()), compute, lora_base)
                       : MakeTrainable(std::move(m.value()), compute);
  const std::string opt_path = (fs::path(dir) / "optimizer.safetensors").string();
  auto opt = model::OpenSafetensors(opt_path);
  if (!opt.ok()) return opt.status();
  out.adam.step = state["adam_step"].get<int64_t>();
  std::vector<std::string> problems;
  size_t expected = 0;
  for (const Param& p : out.trainable.params) {
    for (const char* prefix : {"exp_avg.", "exp_avg_sq."}) {
      ++expected;
      const std::string name = prefix + p.name;
      auto it = opt->tensors.find(name);
      if (it == opt->tensors.end()) {
        problems.push_back(name + " missing");
        continue;
      }
      if (it->second.dtype != model::DType::kF32 || it->second.shape != p.value.sizes().vec()) {
        problems.push_back(name + " has the wrong shape or dtype");
        continue;
      }
      at::Tensor x = at::empty(it->second.shape, at::TensorOptions().dtype(at::kFloat));
      std::memcpy(x.data_ptr(), opt->TensorData(it->second), it->second.end - it->second.begin);
      (std::string(prefix) == "exp_avg." ? out.adam.exp_avg : out.adam.exp_avg_sq)
          .push_back(x.to(device));
    }
  }
  if (opt->tensors.size() != expected && problems.empty()) {
    problems.push_back(std::to_string(opt->tensors.size() - expected) + " unexpected tensors");
  }
  if (!problems.empty()) {
    std::string msg = opt_path + ": optimizer state does not match the model:";
    for (size_t i = 0; i < problems.size() && i < 6; ++i) msg += " " + problems[i] + ";";
    return Status::InvalidArgument(msg);
  }
  out.state_json = state.dump();
  return out;
}

}  // namespace tritonrl::train
