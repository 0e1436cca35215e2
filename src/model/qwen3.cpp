#include "model/qwen3.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>

#include "base/file.h"
#include "model/safetensors.h"

namespace tritonrl::model {

namespace {

namespace fs = std::filesystem;

std::string Name(int64_t layer, const char* suffix) {
  return "model.layers." + std::to_string(layer) + "." + suffix;
}

// RMSNorm with the reference implementation's rounding points: variance in
// fp32, x * rsqrt(variance + eps) rounded to the model dtype, then the weight
// multiply (rounded again). The product is written straight into a tensor of
// the model dtype: the same values as computing it in fp32 and converting, one
// pass less.
// With `grad` (a training forward) the product is converted instead: out=
// variants are not differentiable; the values are the same.
at::Tensor RmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps, bool grad = false) {
  at::Tensor xf = x.to(at::kFloat);
  at::Tensor rstd = xf.pow(2).mean(-1, /*keepdim=*/true).add_(eps).rsqrt_();
  if (grad) return weight * (xf * rstd).to(x.scalar_type());
  at::Tensor normed = at::empty(x.sizes(), x.options());
  at::mul_out(normed, xf, rstd);
  return weight * normed;
}

// x * cos + rotate_half(x) * sin with rotate_half(x) = cat(-x2, x1), each
// product and the sum rounded as in the reference. x * sin_swapped holds the
// products x1 * sin and -(x2 * sin) (exact: negation commutes with rounding)
// in swapped halves, so each half is one add and no rotated copy is built.
at::Tensor ApplyRope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin_swapped) {
  const int64_t half = x.size(-1) / 2;
  at::Tensor out = x * cos;
  at::Tensor rot = x * sin_swapped;
  out.narrow(-1, 0, half).add_(rot.narrow(-1, half, half));
  out.narrow(-1, half, half).add_(rot.narrow(-1, 0, half));
  return out;
}

// The same sums with the halves of x * sin_swapped swapped by a roll: the
// same rounded operands, so the same values (the gradients equal up to
// reduction order). For training: autograd's backward of a roll is one roll,
// where each in-place add into a view above costs a full clone, a zero-filled
// gradient and its accumulation.
at::Tensor ApplyRopeRoll(const at::Tensor& x, const at::Tensor& cos,
                         const at::Tensor& sin_swapped) {
  return x * cos + (x * sin_swapped).roll(x.size(-1) / 2, -1);
}

// Rotary tables as the reference computes them: inverse frequencies in fp32 on
// the CPU (1 / theta^(2i/d)), angles position * inv_freq and their cos/sin in
// fp32 on the model's device (device cos/sin may differ from the CPU's in the
// last bit), rounded to the model dtype.
// A projection's output plus its LoRA term, as PEFT computes it: the input cast
// to the adapter's dtype (fp32), dropout, A then B, times alpha / r, added in
// fp32 and rounded once to the output's dtype. `base` unchanged without an adapter.
at::Tensor WithLora(const at::Tensor& base, const LoraPair& p, const at::Tensor& x, double scale,
                    double dropout) {
  if (!p.defined()) return base;
  at::Tensor in = x.to(p.A.scalar_type());
  if (dropout > 0) in = at::dropout(in, dropout, /*train=*/true);
  at::Tensor d = at::linear(at::linear(in, p.A), p.B) * scale;
  if (base.scalar_type() == d.scalar_type()) return base + d;
  return (base.to(d.scalar_type()) + d).to(base.scalar_type());
}

constexpr int kQ = static_cast<int>(LoraTarget::kQ), kK = static_cast<int>(LoraTarget::kK),
              kV = static_cast<int>(LoraTarget::kV), kO = static_cast<int>(LoraTarget::kO),
              kGate = static_cast<int>(LoraTarget::kGate), kUp = static_cast<int>(LoraTarget::kUp),
              kDown = static_cast<int>(LoraTarget::kDown);

void RopeTables(int64_t max_positions, int64_t head_dim, double theta, c10::ScalarType dtype,
                c10::Device device, at::Tensor& cos, at::Tensor& sin, at::Tensor& sin_swapped) {
  at::Tensor exponent = at::arange(0, head_dim, 2, at::TensorOptions().dtype(at::kLong))
                            .to(at::kFloat)
                            .div(static_cast<double>(head_dim));
  at::Tensor inv_freq = at::pow(c10::Scalar(theta), exponent).reciprocal().to(device);
  at::Tensor pos =
      at::arange(max_positions, at::TensorOptions().dtype(at::kLong).device(device)).to(at::kFloat);
  at::Tensor freqs = pos.unsqueeze(1) * inv_freq.unsqueeze(0);
  at::Tensor emb = at::cat({freqs, freqs}, -1);
  cos = emb.cos().to(dtype);
  sin = emb.sin().to(dtype);
  const int64_t half = head_dim / 2;
  sin_swapped = at::cat({sin.narrow(1, half, half), -sin.narrow(1, 0, half)}, 1);
}

c10::ScalarType ToTorch(DType d) {
  switch (d) {
    case DType::kF64:
      return at::kDouble;
    case DType::kF32:
      return at::kFloat;
    case DType::kF16:
      return at::kHalf;
    case DType::kBF16:
      return at::kBFloat16;
    case DType::kI64:
      return at::kLong;
    case DType::kI32:
      return at::kInt;
    case DType::kI16:
      return at::kShort;
    case DType::kI8:
      return at::kChar;
    case DType::kU8:
      return at::kByte;
    case DType::kBool:
      return at::kBool;
  }
  return at::kFloat;
}

Result<DType> FromTorch(c10::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return DType::kF32;
    case at::kHalf:
      return DType::kF16;
    case at::kBFloat16:
      return DType::kBF16;
    default:
      return Status::InvalidArgument("cannot save dtype " + std::string(c10::toString(t)));
  }
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The Hugging Face tensors a Qwen3 checkpoint must hold, with their shapes.
std::map<std::string, std::vector<int64_t>> ExpectedTensors(const Qwen3Config& c) {
  std::map<std::string, std::vector<int64_t>> e;
  const int64_t q = c.num_attention_heads * c.head_dim, kv = c.num_key_value_heads * c.head_dim;
  e["model.embed_tokens.weight"] = {c.vocab_size, c.hidden_size};
  e["model.norm.weight"] = {c.hidden_size};
  if (!c.tie_word_embeddings) e["lm_head.weight"] = {c.vocab_size, c.hidden_size};
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    e[Name(l, "input_layernorm.weight")] = {c.hidden_size};
    e[Name(l, "post_attention_layernorm.weight")] = {c.hidden_size};
    e[Name(l, "self_attn.q_proj.weight")] = {q, c.hidden_size};
    e[Name(l, "self_attn.k_proj.weight")] = {kv, c.hidden_size};
    e[Name(l, "self_attn.v_proj.weight")] = {kv, c.hidden_size};
    e[Name(l, "self_attn.o_proj.weight")] = {c.hidden_size, q};
    e[Name(l, "self_attn.q_norm.weight")] = {c.head_dim};
    e[Name(l, "self_attn.k_norm.weight")] = {c.head_dim};
    e[Name(l, "mlp.gate_proj.weight")] = {c.intermediate_size, c.hidden_size};
    e[Name(l, "mlp.up_proj.weight")] = {c.intermediate_size, c.hidden_size};
    e[Name(l, "mlp.down_proj.weight")] = {c.hidden_size, c.intermediate_size};
    if (c.attention_bias) {
      e[Name(l, "self_attn.q_proj.bias")] = {q};
      e[Name(l, "self_attn.k_proj.bias")] = {kv};
      e[Name(l, "self_attn.v_proj.bias")] = {kv};
      e[Name(l, "self_attn.o_proj.bias")] = {c.hidden_size};
    }
  }
  return e;
}

// Assembles the model from a name -> tensor lookup (already in dtype, on device).
template <typename Get>
Qwen3Model Assemble(const Qwen3Config& c, const ModelOptions& o, Get get) {
  Qwen3Model m;
  m.config = c;
  m.device = o.device;
  m.dtype = o.dtype;
  m.embed = get("model.embed_tokens.weight");
  m.final_norm = get("model.norm.weight");
  m.lm_head = c.tie_word_embeddings ? m.embed : get("lm_head.weight");
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    Qwen3Layer L;
    L.input_norm = get(Name(l, "input_layernorm.weight"));
    L.post_norm = get(Name(l, "post_attention_layernorm.weight"));
    L.qkv_proj =
        at::cat({get(Name(l, "self_attn.q_proj.weight")), get(Name(l, "self_attn.k_proj.weight")),
                 get(Name(l, "self_attn.v_proj.weight"))},
                0);
    L.o_proj = get(Name(l, "self_attn.o_proj.weight"));
    L.q_norm = get(Name(l, "self_attn.q_norm.weight"));
    L.k_norm = get(Name(l, "self_attn.k_norm.weight"));
    L.qk_norm = at::cat({L.q_norm.unsqueeze(0).expand({c.num_attention_heads, c.head_dim}),
                         L.k_norm.unsqueeze(0).expand({c.num_key_value_heads, c.head_dim})},
                        0);
    L.gate_up_proj =
        at::cat({get(Name(l, "mlp.gate_proj.weight")), get(Name(l, "mlp.up_proj.weight"))}, 0);
    L.down_proj = get(Name(l, "mlp.down_proj.weight"));
    if (c.attention_bias) {
      L.qkv_bias =
          at::cat({get(Name(l, "self_attn.q_proj.bias")), get(Name(l, "self_attn.k_proj.bias")),
                   get(Name(l, "self_attn.v_proj.bias"))},
                  0);
      L.o_bias = get(Name(l, "self_attn.o_proj.bias"));
    }
    m.layers.push_back(std::move(L));
  }
  int64_t max_pos =
      o.max_positions > 0 ? o.max_positions : std::min<int64_t>(c.max_position_embeddings, 32768);
  RopeTables(max_pos, c.head_dim, c.rope_theta, o.dtype, o.device, m.rope_cos, m.rope_sin,
             m.rope_sin_swapped);
  return m;
}

}  // namespace

Result<c10::Device> ParseDevice(const std::string& text) {
  if (text == "cpu") return c10::Device(c10::kCPU);
  if (text == "cuda") return c10::Device(c10::kCUDA, 0);
  if (text.rfind("cuda:", 0) == 0) {
    try {
      return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(std::stoi(text.substr(5))));
    } catch (const std::exception&) {
    }
  }
  return Status::InvalidArgument("unknown device '" + text + "' (cpu, cuda, cuda:N)");
}

Result<c10::ScalarType> ParseModelDType(const std::string& text) {
  if (text == "fp32" || text == "float32" || text == "float") return at::kFloat;
  if (text == "bf16" || text == "bfloat16") return at::kBFloat16;
  if (text == "fp16" || text == "float16" || text == "half") return at::kHalf;
  return Status::InvalidArgument("unknown dtype '" + text + "' (fp32, bf16, fp16)");
}

Result<Qwen3Model> LoadQwen3Checkpoint(const std::string& dir, const ModelOptions& options) {
  auto config = LoadQwen3Config((fs::path(dir) / "config.json").string());
  if (!config.ok()) return config.status();
  auto ck = OpenCheckpoint(dir);
  if (!ck.ok()) return ck.status();
  const auto expected = ExpectedTensors(*config);
  std::vector<std::string> missing, extra, misshaped;
  for (const auto& [name, shape] : expected) {
    auto it = ck->tensors.find(name);
    if (it == ck->tensors.end()) {
      missing.push_back(name);
    } else if (it->second.second.shape != shape) {
      misshaped.push_back(name + " is " + ShapeString(it->second.second.shape) + ", expected " +
                          ShapeString(shape));
    } else {
      DType d = it->second.second.dtype;
      if (d != DType::kF32 && d != DType::kF16 && d != DType::kBF16) {
        misshaped.push_back(name + " has dtype " + DTypeName(d) + ", expected F32, F16 or BF16");
      }
    }
  }
  for (const auto& [name, where] : ck->tensors) {
    // A tied checkpoint may still carry the (identical) head; it is not used.
    if (!expected.count(name) && !(config->tie_word_embeddings && name == "lm_head.weight")) {
      extra.push_back(name);
    }
  }
  if (!missing.empty() || !extra.empty() || !misshaped.empty()) {
    std::string msg = dir + ": checkpoint does not match config.json:";
    auto list = [&](const char* what, const std::vector<std::string>& v) {
      if (v.empty()) return;
      msg += std::string(" ") + what + " (" + std::to_string(v.size()) + "):";
      for (size_t i = 0; i < v.size() && i < 8; ++i) msg += " " + v[i] + ";";
      if (v.size() > 8) msg += " ...;";
    };
    list("missing", missing);
    list("unexpected", extra);
    list("wrong shape or dtype", misshaped);
    return Status::InvalidArgument(msg);
  }
  const Checkpoint& c = *ck;
  auto get = [&](const std::string& name) {
    const auto& [fi, info] = c.tensors.at(name);
    const uint8_t* p = c.files[fi].TensorData(info);
    at::Tensor src;
    auto opts = at::TensorOptions().dtype(ToTorch(info.dtype));
    if (reinterpret_cast<uintptr_t>(p) % DTypeSize(info.dtype) == 0) {
      src = at::from_blob(const_cast<uint8_t*>(p), info.shape, opts);
    } else {  // unaligned data (a writer that does not pad the header): copy first
      src = at::empty(info.shape, opts);
      std::memcpy(src.data_ptr(), p, info.end - info.begin);
    }
    // Always a fresh tensor: the mapping is released when loading ends.
    return src.to(options.device, options.dtype, /*non_blocking=*/false, /*copy=*/true);
  };
  try {
    return Assemble(*config, options, get);
  } catch (const c10::Error& e) {
    return Status::Internal(dir + ": loading weights failed: " + e.what_without_backtrace());
  }
}

Qwen3Model RandomQwen3(const Qwen3Config& config, uint64_t seed, const ModelOptions& options) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto expected = ExpectedTensors(config);
  std::map<std::string, at::Tensor> weights;
  for (const auto& [name, shape] : expected) {  // map order: deterministic
    at::Tensor t = at::empty(shape, at::TensorOptions().dtype(at::kFloat));
    bool is_norm = name.find("norm") != std::string::npos;
    if (is_norm) {
      t.normal_(1.0, 0.1, gen);
    } else {
      t.normal_(0.0, 0.02, gen);
    }
    weights[name] = t.to(options.device, options.dtype);
  }
  return Assemble(config, options, [&](const std::string& n) { return weights.at(n); });
}

Status SaveQwen3(const Qwen3Model& m, const std::string& dir) {
  const Qwen3Config& c = m.config;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(dir + ": " + ec.message());
  auto dtype = FromTorch(m.dtype);
  if (!dtype.ok()) return dtype.status();
  std::vector<std::pair<std::string, at::Tensor>> named;
  const int64_t q = c.num_attention_heads * c.head_dim, kv = c.num_key_value_heads * c.head_dim;
  named.emplace_back("model.embed_tokens.weight", m.embed);
  named.emplace_back("model.norm.weight", m.final_norm);
  if (!c.tie_word_embeddings) named.emplace_back("lm_head.weight", m.lm_head);
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const Qwen3Layer& L = m.layers[l];
    named.emplace_back(Name(l, "input_layernorm.weight"), L.input_norm);
    named.emplace_back(Name(l, "post_attention_layernorm.weight"), L.post_norm);
    named.emplace_back(Name(l, "self_attn.q_proj.weight"), L.qkv_proj.narrow(0, 0, q));
    named.emplace_back(Name(l, "self_attn.k_proj.weight"), L.qkv_proj.narrow(0, q, kv));
    named.emplace_back(Name(l, "self_attn.v_proj.weight"), L.qkv_proj.narrow(0, q + kv, kv));
    named.emplace_back(Name(l, "self_attn.o_proj.weight"), L.o_proj);
    named.emplace_back(Name(l, "self_attn.q_norm.weight"), L.q_norm);
    named.emplace_back(Name(l, "self_attn.k_norm.weight"), L.k_norm);
    const int64_t I = c.intermediate_size;
    named.emplace_back(Name(l, "mlp.gate_proj.weight"), L.gate_up_proj.narrow(0, 0, I));
    named.emplace_back(Name(l, "mlp.up_proj.weight"), L.gate_up_proj.narrow(0, I, I));
    named.emplace_back(Name(l, "mlp.down_proj.weight"), L.down_proj);
    if (c.attention_bias) {
      named.emplace_back(Name(l, "self_attn.q_proj.bias"), L.qkv_bias.narrow(0, 0, q));
      named.emplace_back(Name(l, "self_attn.k_proj.bias"), L.qkv_bias.narrow(0, q, kv));
      named.emplace_back(Name(l, "self_attn.v_proj.bias"), L.qkv_bias.narrow(0, q + kv, kv));
      named.emplace_back(Name(l, "self_attn.o_proj.bias"), L.o_bias);
    }
  }
  std::vector<at::Tensor> keep;  // host copies alive until written
  std::vector<TensorToWrite> out;
  for (auto& [name, t] : named) {
    keep.push_back(t.to(at::kCPU).contiguous());
    const at::Tensor& h = keep.back();
    out.push_back({name, *dtype, h.sizes().vec(), h.data_ptr()});
  }
  Qwen3Config saved = c;
  saved.torch_dtype = m.dtype == at::kFloat      ? "float32"
                      : m.dtype == at::kBFloat16 ? "bfloat16"
                                                 : "float16";
  TRITONRL_RETURN_IF_ERROR(
      WriteFileAtomic((fs::path(dir) / "config.json").string(), Qwen3ConfigToJson(saved)));
  return WriteSafetensors((fs::path(dir) / "model.safetensors").string(), out, {{"format", "pt"}});
}

KvCache AllocateKvCache(const Qwen3Model& m, int64_t batch, int64_t capacity, int64_t filled) {
  const Qwen3Config& c = m.config;
  auto opts = at::TensorOptions().dtype(m.dtype).device(m.device);
  KvCache cache;
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    for (std::vector<at::Tensor>* x : {&cache.k, &cache.v}) {
      x->push_back(at::empty({batch, c.num_key_value_heads, capacity, c.head_dim}, opts));
      if (capacity > filled) x->back().narrow(2, filled, capacity - filled).zero_();
    }
  }
  return cache;
}

at::Tensor LeftPaddedCausalMask(const at::Tensor& pad, const at::Tensor& query_slots, int64_t L) {
  at::Tensor keys = at::arange(L, pad.options()).view({1, 1, 1, L});
  at::Tensor qs = query_slots.view({1, 1, -1, 1});
  at::Tensor p = pad.view({-1, 1, 1, 1});
  return ((keys <= qs) & (keys >= p)) | (keys == qs);
}

namespace {

// One position per row (a decode step), usually with a cache: ~22 kernels per
// layer, since in a CUDA graph the step costs about as much per kernel as per
// byte. Fused RMSNorm (input/post/final norms with the weight, q/k norms of
// all heads in one call), fused q/k/v and gate/up GEMMs, rotary embedding of q
// and k together, the residual adds folded into the o/down GEMMs (beta = 1),
// and attention as two batched GEMMs with an additive mask: the G query heads
// of a kv head are G rows against that head's K/V, read once, where fused
// attention kernels would pad them to a whole tile.
at::Tensor ForwardStep(const Qwen3Model& m, const ForwardArgs& a, at::Tensor h,
                       const at::Tensor& cos, const at::Tensor& sin_swapped) {
  const Qwen3Config& c = m.config;
  const int64_t B = a.ids.size(0), D = c.head_dim, hidden = c.hidden_size;
  const int64_t H = c.num_attention_heads, Hkv = c.num_key_value_heads, G = H / Hkv;
  const int64_t I = c.intermediate_size;
  const double eps = c.rms_norm_eps;
  const double scale = std::pow(static_cast<double>(D), -0.5);
  const int64_t L = a.cache ? a.attend_len : 1;
  const bool lora = m.lora.enabled();
  const double ls = lora ? m.lora.scale() : 0.0;
  // Additive mask shared by all layers: [B * Hkv, G, L], 0 or -inf.
  at::Tensor bias = at::zeros({B, 1, 1, L}, h.options());
  if (!a.causal) {
    bias.masked_fill_(a.mask.view({B, 1, 1, L}).logical_not(),
                      -std::numeric_limits<double>::infinity());
  }
  bias = bias.expand({B, Hkv, G, L}).reshape({B * Hkv, G, L}).contiguous();
  at::Tensor h2 = h.view({B, hidden});  // h is fresh (embedding): safe to update in place
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const Qwen3Layer& W = m.layers[l];
    at::Tensor x = at::rms_norm(h2, {hidden}, W.input_norm, eps);
    at::Tensor qkv = at::linear(x, W.qkv_proj, W.qkv_bias);  // [B, (H + 2 Hkv) D]
    if (lora) {
      qkv = at::cat({WithLora(qkv.narrow(1, 0, H * D), W.lora[kQ], x, ls, 0),
                     WithLora(qkv.narrow(1, H * D, Hkv * D), W.lora[kK], x, ls, 0),
                     WithLora(qkv.narrow(1, (H + Hkv) * D, Hkv * D), W.lora[kV], x, ls, 0)},
                    1);
    }
    at::Tensor qk = qkv.narrow(1, 0, (H + Hkv) * D).view({B, H + Hkv, D});
    qk = at::rms_norm(qk, {D}, std::nullopt, eps).mul_(W.qk_norm);
    qk = ApplyRope(qk, cos, sin_swapped);  // cos [B, 1, D]
    at::Tensor q = qk.narrow(1, 0, H).reshape({B * Hkv, G, D});
    at::Tensor k = qk.narrow(1, H, Hkv).unsqueeze(2);  // [B, Hkv, 1, D]
    at::Tensor v = qkv.narrow(1, (H + Hkv) * D, Hkv * D).view({B, Hkv, 1, D});
    at::Tensor keys = k, values = v;
    if (a.cache) {
      at::Tensor kc = a.cache->k[l], vc = a.cache->v[l];
      kc.index_copy_(2, a.slots, k);
      vc.index_copy_(2, a.slots, v);
      keys = kc.narrow(2, 0, L);
      values = vc.narrow(2, 0, L);
    }
    keys = keys.reshape({B * Hkv, L, D});  // views: batch stride = Hkv * head stride
    values = values.reshape({B * Hkv, L, D});
    at::Tensor scores = at::baddbmm(bias, q, keys.transpose(1, 2), /*beta=*/1, /*alpha=*/scale);
    at::Tensor o = at::bmm(at::softmax(scores, -1), values);  // [B * Hkv, G, D] = [B, H * D]
    if (W.o_bias.defined() || W.lora[kO].defined()) {
      at::Tensor o2 = o.view({B, H * D});
      h2.add_(WithLora(at::linear(o2, W.o_proj, W.o_bias), W.lora[kO], o2, ls, 0));
    } else {
      h2.addmm_(o.view({B, H * D}), W.o_proj.t());
    }
    x = at::rms_norm(h2, {hidden}, W.post_norm, eps);
    at::Tensor gu = at::linear(x, W.gate_up_proj);
    if (lora) {
      gu = at::cat({WithLora(gu.narrow(1, 0, I), W.lora[kGate], x, ls, 0),
                    WithLora(gu.narrow(1, I, I), W.lora[kUp], x, ls, 0)},
                   1);
    }
    at::Tensor act = at::silu(gu.narrow(1, 0, I)).mul_(gu.narrow(1, I, I));
    if (W.lora[kDown].defined()) {
      h2.add_(WithLora(at::linear(act, W.down_proj), W.lora[kDown], act, ls, 0));
    } else {
      h2.addmm_(act, W.down_proj.t());
    }
  }
  at::Tensor logits = at::linear(at::rms_norm(h2, {hidden}, m.final_norm, eps), m.lm_head);
  logits = logits.to(at::kFloat);
  return a.last_only ? logits : logits.view({B, 1, -1});
}

}  // namespace

namespace {

// What every layer of one multi-position forward shares.
struct LayerEnv {
  int64_t B = 0, T = 0, H = 0, Hkv = 0, D = 0, I = 0;
  double eps = 0, scale = 0;
  at::Tensor cos, sin_sw;  // [B, 1, T, D]
  at::Tensor mask;         // padded rows: [B, 1, G * T, L]
  const ForwardArgs* args = nullptr;
  bool grad = false;  // out-of-place residuals and activations (autograd records the graph)
  bool fused_norm = false, fused_proj = false, rope_roll = false;  // ForwardArgs' speed options
  double lora_scale = 0, lora_dropout = 0;  // alpha / r; dropout when training
};

at::Tensor Lora(const LayerEnv& e, const at::Tensor& base, const LoraPair& p, const at::Tensor& x) {
  return WithLora(base, p, x, e.lora_scale, e.lora_dropout);
}

// The layer's RMSNorm: the reference's rounding points, or the fused kernel.
at::Tensor Norm(const LayerEnv& e, const at::Tensor& x, const at::Tensor& w) {
  if (e.fused_norm) return at::rms_norm(x, {x.size(-1)}, w, e.eps);
  return RmsNorm(x, w, e.eps, e.grad);
}

LayerEnv MakeEnv(const Qwen3Config& c, int64_t B, int64_t T) {
  LayerEnv e;
  e.B = B;
  e.T = T;
  e.H = c.num_attention_heads;
  e.Hkv = c.num_key_value_heads;
  e.D = c.head_dim;
  e.I = c.intermediate_size;
  e.eps = c.rms_norm_eps;
  // The reference passes head_dim ** -0.5 (C pow) as SDPA's scale.
  e.scale = std::pow(static_cast<double>(e.D), -0.5);
  return e;
}

// One decoder layer over T > 1 positions, the reference implementation's
// operations in its order. `trim`: only the last position's output is wanted
// (a prefill): keys and values of every position (the cache), the query side,
// attention, output projection and MLP of the last one.
at::Tensor Layer(const LayerEnv& e, const Qwen3Layer& W, int64_t l, at::Tensor h, bool trim) {
  const int64_t B = e.B, T = e.T, H = e.H, Hkv = e.Hkv, D = e.D, I = e.I, G = H / Hkv;
  const ForwardArgs* a = e.args;
  const bool causal = a == nullptr || a->causal;
  KvCache* cache = a ? a->cache : nullptr;
  const int64_t Tq = trim ? 1 : T;
  at::Tensor x = Norm(e, h, W.input_norm);
  at::Tensor q, k, v;
  if (e.fused_proj && !trim) {
    // One GEMM; split (not narrow) so that the backward pass concatenates the
    // three gradients once instead of summing three zero-padded copies.
    at::Tensor qkv = at::linear(x, W.qkv_proj, W.qkv_bias);
    std::vector<at::Tensor> p = qkv.split_with_sizes({H * D, Hkv * D, Hkv * D}, -1);
    q = Lora(e, p[0], W.lora[kQ], x).view({B, T, H, D});
    k = Lora(e, p[1], W.lora[kK], x).view({B, T, Hkv, D});
    v = Lora(e, p[2], W.lora[kV], x).view({B, T, Hkv, D}).transpose(1, 2);
  } else {
    // Separate q/k/v GEMMs (row slices of the fused weight are contiguous):
    // the same GEMM shapes, hence the same cuBLAS kernels and sums, as the
    // reference's three projections.
    auto proj = [&](const at::Tensor& in, int64_t row, int64_t n, int target) {
      return Lora(e,
                  at::linear(in, W.qkv_proj.narrow(0, row, n),
                             W.qkv_bias.defined() ? W.qkv_bias.narrow(0, row, n) : at::Tensor()),
                  W.lora[target], in);
    };
    q = proj(trim ? x.narrow(1, T - 1, 1) : x, 0, H * D, kQ).view({B, Tq, H, D});
    k = proj(x, H * D, Hkv * D, kK).view({B, T, Hkv, D});
    v = proj(x, (H + Hkv) * D, Hkv * D, kV).view({B, T, Hkv, D}).transpose(1, 2);
  }
  auto rope = e.rope_roll ? ApplyRopeRoll : ApplyRope;
  q = rope(Norm(e, q, W.q_norm).transpose(1, 2), trim ? e.cos.narrow(2, T - 1, 1) : e.cos,
           trim ? e.sin_sw.narrow(2, T - 1, 1) : e.sin_sw);         // [B, H, Tq, D]
  k = rope(Norm(e, k, W.k_norm).transpose(1, 2), e.cos, e.sin_sw);  // [B, Hkv, T, D]
  at::Tensor o;
  if (causal) {
    if (cache) {
      cache->k[l].narrow(2, 0, T).copy_(k);
      cache->v[l].narrow(2, 0, T).copy_(v);
    }
    // As the reference calls it without a mask: is_causal, GQA inside SDPA.
    // The last position alone attends to every key: no causal mask needed.
    o = at::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, /*is_causal=*/!trim, e.scale,
                                         /*enable_gqa=*/true);
  } else {
    at::Tensor keys = k, values = v;
    if (cache) {
      at::Tensor kc = cache->k[l], vc = cache->v[l];
      kc.index_copy_(2, a->slots, k);
      vc.index_copy_(2, a->slots, v);
      keys = kc.narrow(2, 0, a->attend_len);
      values = vc.narrow(2, 0, a->attend_len);
    }
    at::Tensor qg = q.reshape({B, Hkv, G * T, D});
    // reshape, not view: CUDA's memory-efficient kernel (the one that takes a mask) returns its
    // output in [B, G * T, Hkv, D] memory order, where Hkv and G cannot merge without a copy.
    o = at::scaled_dot_product_attention(qg, keys, values, e.mask, 0.0, false, e.scale)
            .reshape({B, H, T, D});
  }
  o = o.transpose(1, 2).reshape({B, Tq, H * D});
  if (trim) h = h.narrow(1, T - 1, 1).contiguous();
  if (e.grad) {  // the same sums, out of place: autograd keeps the inputs it saved
    h = h + Lora(e, at::linear(o, W.o_proj, W.o_bias), W.lora[kO], o);
    x = Norm(e, h, W.post_norm);
    at::Tensor gate, up;
    if (e.fused_proj) {
      std::vector<at::Tensor> gu = at::linear(x, W.gate_up_proj).split(I, -1);
      gate = gu[0];
      up = gu[1];
    } else {
      gate = at::linear(x, W.gate_up_proj.narrow(0, 0, I));
      up = at::linear(x, W.gate_up_proj.narrow(0, I, I));
    }
    gate = Lora(e, gate, W.lora[kGate], x);
    up = Lora(e, up, W.lora[kUp], x);
    at::Tensor act = at::silu(gate) * up;
    return h + Lora(e, at::linear(act, W.down_proj), W.lora[kDown], act);
  }
  // h is fresh (embedding): in place is safe
  h.add_(Lora(e, at::linear(o, W.o_proj, W.o_bias), W.lora[kO], o));
  x = Norm(e, h, W.post_norm);
  at::Tensor gate = Lora(e, at::linear(x, W.gate_up_proj.narrow(0, 0, I)), W.lora[kGate], x);
  at::Tensor up = Lora(e, at::linear(x, W.gate_up_proj.narrow(0, I, I)), W.lora[kUp], x);
  at::Tensor act = at::silu_(gate).mul_(up);
  h.add_(Lora(e, at::linear(act, W.down_proj), W.lora[kDown], act));
  return h;
}

// Activation checkpointing: a layer's forward runs without recording the
// graph; its backward runs the same Layer again with recording and
// differentiates that. Inputs: h, cos, sin_sw, the layer's defined weights, then
// the A and B of each LoRA target in enum order whose bit is set in `lora_mask`
// (so the adapters' gradients flow through the recomputation).
at::Tensor RunLayer(const LayerEnv& e, const at::TensorList tensors, bool has_bias,
                    int64_t lora_mask, bool grad) {
  Qwen3Layer W;
  size_t i = 3;
  W.input_norm = tensors[i++];
  W.qkv_proj = tensors[i++];
  W.o_proj = tensors[i++];
  W.q_norm = tensors[i++];
  W.k_norm = tensors[i++];
  W.post_norm = tensors[i++];
  W.gate_up_proj = tensors[i++];
  W.down_proj = tensors[i++];
  if (has_bias) {
    W.qkv_bias = tensors[i++];
    W.o_bias = tensors[i++];
  }
  for (int t = 0; t < kLoraTargetCount; ++t) {
    if (!(lora_mask & (int64_t{1} << t))) continue;
    W.lora[t].A = tensors[i++];
    W.lora[t].B = tensors[i++];
  }
  LayerEnv env = e;
  env.cos = tensors[1];
  env.sin_sw = tensors[2];
  env.grad = grad;
  return Layer(env, W, 0, tensors[0], /*trim=*/false);
}

// LoRA dropout draws its masks from the default generator of the layer's device: the
// recomputation must draw the forward's masks again, and leave the generator where the
// forward left it (so the run's later draws are those of an uncheckpointed run).
at::Generator DropoutGenerator(const at::Tensor& h) {
  return at::globalContext().defaultGenerator(h.device());
}

struct CheckpointedLayer : torch::autograd::Function<CheckpointedLayer> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::TensorList tensors,
                            std::vector<int64_t> dims, std::vector<double> reals, bool has_bias) {
    ctx->save_for_backward(tensors.vec());
    ctx->saved_data["dims"] = dims;
    ctx->saved_data["reals"] = reals;
    ctx->saved_data["has_bias"] = has_bias;
    const LayerEnv env = EnvFrom(dims, reals);
    if (env.lora_dropout > 0) {
      at::Generator gen = DropoutGenerator(tensors[0]);
      std::lock_guard<std::mutex> lock(gen.mutex());
      ctx->saved_data["rng"] = gen.get_state();
    }
    at::NoGradGuard no_grad;
    // Out of place even here: the input h is saved for the backward pass.
    return RunLayer(env, tensors, has_bias, dims[9], /*grad=*/true);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    std::vector<at::Tensor> saved = ctx->get_saved_variables();
    const std::vector<int64_t> dims = ctx->saved_data["dims"].toIntVector();
    const std::vector<double> reals = ctx->saved_data["reals"].toDoubleVector();
    const bool has_bias = ctx->saved_data["has_bias"].toBool();
    std::vector<at::Tensor> inputs;
    for (const at::Tensor& t : saved)
      inputs.push_back(t.detach().requires_grad_(t.requires_grad()));
    at::Tensor out;
    {
      at::AutoGradMode enable(true);
      const LayerEnv env = EnvFrom(dims, reals);
      if (env.lora_dropout > 0) {
        at::Generator gen = DropoutGenerator(inputs[0]);
        at::Tensor now;
        {
          std::lock_guard<std::mutex> lock(gen.mutex());
          now = gen.get_state();
          gen.set_state(ctx->saved_data["rng"].toTensor());
        }
        out = RunLayer(env, inputs, has_bias, dims[9], /*grad=*/true);
        std::lock_guard<std::mutex> lock(gen.mutex());
        gen.set_state(now);
      } else {
        out = RunLayer(env, inputs, has_bias, dims[9], /*grad=*/true);
      }
    }
    std::vector<at::Tensor> wrt;
    std::vector<size_t> where;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].requires_grad()) {
        wrt.push_back(inputs[i]);
        where.push_back(i);
      }
    }
    torch::autograd::variable_list grads(inputs.size() + 3);  // + dims, reals, has_bias
    if (!wrt.empty()) {
      auto g = torch::autograd::grad({out}, wrt, {grad_out[0]});
      for (size_t j = 0; j < where.size(); ++j) grads[where[j]] = g[j];
    }
    return grads;
  }
  // dims: B, T, H, Hkv, D, I, fused_norm, fused_proj, rope_roll, LoRA target mask;
  // reals: eps, LoRA scale, LoRA dropout.
  static LayerEnv EnvFrom(const std::vector<int64_t>& d, const std::vector<double>& r) {
    LayerEnv e;
    e.B = d[0];
    e.T = d[1];
    e.H = d[2];
    e.Hkv = d[3];
    e.D = d[4];
    e.I = d[5];
    e.eps = r[0];
    e.scale = std::pow(static_cast<double>(e.D), -0.5);
    e.fused_norm = d[6] != 0;
    e.fused_proj = d[7] != 0;
    e.rope_roll = d[8] != 0;
    e.lora_scale = r[1];
    e.lora_dropout = r[2];
    return e;
  }
};

at::Tensor CheckpointLayer(const LayerEnv& e, const Qwen3Layer& W, const at::Tensor& h) {
  std::vector<at::Tensor> t = {h,           e.cos,          e.sin_sw,   W.input_norm,
                               W.qkv_proj,  W.o_proj,       W.q_norm,   W.k_norm,
                               W.post_norm, W.gate_up_proj, W.down_proj};
  const bool has_bias = W.qkv_bias.defined();
  if (has_bias) {
    t.push_back(W.qkv_bias);
    t.push_back(W.o_bias.defined() ? W.o_bias : at::zeros({W.o_proj.size(0)}, W.o_proj.options()));
  }
  int64_t lora_mask = 0;
  for (int i = 0; i < kLoraTargetCount; ++i) {
    if (!W.lora[i].defined()) continue;
    lora_mask |= int64_t{1} << i;
    t.push_back(W.lora[i].A);
    t.push_back(W.lora[i].B);
  }
  return CheckpointedLayer::apply(at::TensorList(t),
                                  std::vector<int64_t>{e.B, e.T, e.H, e.Hkv, e.D, e.I, e.fused_norm,
                                                       e.fused_proj, e.rope_roll, lora_mask},
                                  std::vector<double>{e.eps, e.lora_scale, e.lora_dropout},
                                  has_bias);
}

}  // namespace

bool RecordsGradients(const Qwen3Model& m) {
  if (!at::GradMode::is_enabled()) return false;
  if (m.embed.requires_grad() || (!m.layers.empty() && m.layers[0].qkv_proj.requires_grad())) {
    return true;
  }
  for (const LoraPair& p : m.layers.empty() ? LoraLayer{} : m.layers[0].lora) {
    if (p.defined() && p.A.requires_grad()) return true;
  }
  return false;
}

at::Tensor Forward(const Qwen3Model& m, const ForwardArgs& a) {
  const Qwen3Config& c = m.config;
  const int64_t B = a.ids.size(0), T = a.ids.size(1), D = c.head_dim;
  at::Tensor h = at::embedding(m.embed, a.ids);
  at::Tensor flat_pos = a.positions.reshape({-1});
  at::Tensor cos = m.rope_cos.index_select(0, flat_pos);
  at::Tensor sin_sw = m.rope_sin_swapped.index_select(0, flat_pos);
  if (T == 1 && !a.hidden_only) {
    return ForwardStep(m, a, h, cos.view({B, 1, D}), sin_sw.view({B, 1, D}));
  }
  LayerEnv env = MakeEnv(c, B, T);
  env.args = &a;
  env.grad = RecordsGradients(m);
  env.fused_norm = a.fused_norm;
  env.fused_proj = a.fused_proj;
  env.rope_roll = a.rope_roll;
  if (m.lora.enabled()) {
    env.lora_scale = m.lora.scale();
    env.lora_dropout = a.lora_dropout ? m.lora.dropout : 0.0;
  }
  env.cos = cos.view({B, 1, T, D});
  env.sin_sw = sin_sw.view({B, 1, T, D});
  const int64_t G = env.H / env.Hkv;
  if (!a.causal) {
    // Padded rows: a boolean mask, with grouped-query attention as plain
    // attention over the kv heads (the G query heads sharing a kv head become
    // G*T query rows), which SDPA's memory-efficient kernel runs.
    const int64_t L = a.mask.size(-1);
    env.mask =
        G == 1 ? a.mask : a.mask.unsqueeze(2).expand({B, 1, G, T, L}).reshape({B, 1, G * T, L});
  }
  const bool checkpoint = env.grad && a.checkpoint_layers && a.causal && !a.cache;
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const bool trim = a.causal && a.last_only && l + 1 == c.num_hidden_layers;
    h = checkpoint ? CheckpointLayer(env, m.layers[l], h) : Layer(env, m.layers[l], l, h, trim);
  }
  if (a.last_only) h = h.select(1, h.size(1) - 1);
  h = Norm(env, h, m.final_norm);
  if (a.hidden_only) return h;
  return at::linear(h, m.lm_head).to(at::kFloat);
}

at::Tensor ForwardNoCache(const Qwen3Model& m, const at::Tensor& ids, const at::Tensor& pad) {
  const int64_t T = ids.size(1);
  at::Tensor slots = at::arange(T, pad.options());
  ForwardArgs a;
  a.ids = ids;
  a.positions = (slots.unsqueeze(0) - pad.unsqueeze(1)).clamp_min(0);
  a.causal = pad.max().item<int64_t>() == 0;
  if (!a.causal) a.mask = LeftPaddedCausalMask(pad, slots, T);
  return Forward(m, a);
}

}  // namespace tritonrl::model
