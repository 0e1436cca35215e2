#include "model/qwen3.h"

#include <ATen/ATen.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "base/file.h"
#include "model/safetensors.h"

namespace tritonrl::model {

namespace {

namespace fs = std::filesystem;

std::string Name(int64_t layer, const char* suffix) {
  return "model.layers." + std::to_string(layer) + "." + suffix;
}

// Computed in fp32 and scaled in fp32, then rounded to the model dtype before
// the weight multiply, as the reference implementation does.
at::Tensor RmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  at::Tensor xf = x.to(at::kFloat);
  at::Tensor var = xf.pow(2).mean(-1, /*keepdim=*/true);
  return weight * (xf * at::rsqrt(var + eps)).to(x.scalar_type());
}

at::Tensor RotateHalf(const at::Tensor& x) {
  int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

at::Tensor ApplyRope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  return x * cos + RotateHalf(x) * sin;
}

void RopeTables(int64_t max_positions, int64_t head_dim, double theta, c10::ScalarType dtype,
                at::Tensor& cos, at::Tensor& sin) {
  auto f32 = at::TensorOptions().dtype(at::kFloat);
  at::Tensor exponent = at::arange(0, head_dim, 2, at::TensorOptions().dtype(at::kLong))
                            .to(at::kFloat)
                            .div(static_cast<double>(head_dim));
  at::Tensor inv_freq = at::pow(at::scalar_tensor(theta, f32), exponent).reciprocal();
  at::Tensor pos = at::arange(max_positions, f32);
  at::Tensor freqs = pos.unsqueeze(1) * inv_freq.unsqueeze(0);
  at::Tensor emb = at::cat({freqs, freqs}, -1);
  cos = emb.cos().to(dtype);
  sin = emb.sin().to(dtype);
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
  at::Tensor cos, sin;
  RopeTables(max_pos, c.head_dim, c.rope_theta, o.dtype, cos, sin);
  m.rope_cos = cos.to(o.device);
  m.rope_sin = sin.to(o.device);
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

Result<Qwen3Model> LoadQwen3(const std::string& dir, const ModelOptions& options) {
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

KvCache AllocateKvCache(const Qwen3Model& m, int64_t batch, int64_t capacity) {
  const Qwen3Config& c = m.config;
  auto opts = at::TensorOptions().dtype(m.dtype).device(m.device);
  std::vector<int64_t> shape = {c.num_hidden_layers, batch, c.num_key_value_heads, capacity,
                                c.head_dim};
  return {at::zeros(shape, opts), at::zeros(shape, opts)};
}

at::Tensor LeftPaddedCausalMask(const at::Tensor& pad, const at::Tensor& query_slots, int64_t L) {
  at::Tensor keys = at::arange(L, pad.options()).view({1, 1, 1, L});
  at::Tensor qs = query_slots.view({1, 1, -1, 1});
  at::Tensor p = pad.view({-1, 1, 1, 1});
  return ((keys <= qs) & (keys >= p)) | (keys == qs);
}

at::Tensor Forward(const Qwen3Model& m, const ForwardArgs& a) {
  const Qwen3Config& c = m.config;
  const int64_t B = a.ids.size(0), T = a.ids.size(1), D = c.head_dim;
  const int64_t H = c.num_attention_heads, Hkv = c.num_key_value_heads, G = H / Hkv;
  const int64_t I = c.intermediate_size;
  const double eps = c.rms_norm_eps;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  at::Tensor h = at::embedding(m.embed, a.ids);
  at::Tensor flat_pos = a.positions.reshape({-1});
  at::Tensor cos = m.rope_cos.index_select(0, flat_pos).view({B, 1, T, D});
  at::Tensor sin = m.rope_sin.index_select(0, flat_pos).view({B, 1, T, D});
  // Grouped-query attention as plain attention over the kv heads: the G query
  // heads sharing a kv head become G*T query rows, so every SDPA backend that
  // takes a mask applies (no kv repeat, no enable_gqa restrictions).
  const int64_t L = a.mask.size(-1);
  at::Tensor mask =
      G == 1 ? a.mask : a.mask.unsqueeze(2).expand({B, 1, G, T, L}).reshape({B, 1, G * T, L});
  // Decode steps (T == 1) use the fused RMSNorm kernel: one launch instead of
  // eight matters when a step is ~1000 small kernels. Longer inputs keep the
  // reference rounding order (RmsNorm above), which the parity checks compare.
  auto norm = [&](const at::Tensor& x, const at::Tensor& w) {
    return T == 1 ? at::rms_norm(x, {x.size(-1)}, w, eps) : RmsNorm(x, w, eps);
  };
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const Qwen3Layer& W = m.layers[l];
    at::Tensor x = norm(h, W.input_norm);
    at::Tensor qkv = at::linear(x, W.qkv_proj, W.qkv_bias);
    at::Tensor q = qkv.narrow(-1, 0, H * D).view({B, T, H, D});
    at::Tensor k = qkv.narrow(-1, H * D, Hkv * D).view({B, T, Hkv, D});
    at::Tensor v = qkv.narrow(-1, (H + Hkv) * D, Hkv * D).view({B, T, Hkv, D}).transpose(1, 2);
    q = ApplyRope(norm(q, W.q_norm).transpose(1, 2), cos, sin);  // [B, H, T, D]
    k = ApplyRope(norm(k, W.k_norm).transpose(1, 2), cos, sin);  // [B, Hkv, T, D]
    at::Tensor keys = k, values = v;
    if (a.cache) {
      at::Tensor kc = a.cache->k.select(0, l), vc = a.cache->v.select(0, l);
      kc.index_copy_(2, a.slots, k);
      vc.index_copy_(2, a.slots, v);
      keys = kc.narrow(2, 0, a.attend_len);
      values = vc.narrow(2, 0, a.attend_len);
    }
    at::Tensor qg = q.reshape({B, Hkv, G * T, D});
    at::Tensor o;
    if (T == 1) {
      // Decode: G query rows per kv head. Two batched GEMMs read each K and V
      // once; fused attention kernels would pad the G rows to a full tile.
      at::Tensor scores = at::matmul(qg * scale, keys.transpose(-1, -2));
      scores.masked_fill_(mask.logical_not(), -std::numeric_limits<float>::infinity());
      o = at::matmul(at::softmax(scores, -1, at::kFloat).to(qg.scalar_type()), values);
    } else {
      o = at::scaled_dot_product_attention(qg, keys, values, mask);
    }
    o = o.reshape({B, H, T, D}).transpose(1, 2).reshape({B, T, H * D});
    h = h + at::linear(o, W.o_proj, W.o_bias);
    x = norm(h, W.post_norm);
    at::Tensor gu = at::linear(x, W.gate_up_proj);
    h = h + at::linear(at::silu(gu.narrow(-1, 0, I)) * gu.narrow(-1, I, I), W.down_proj);
  }
  if (a.last_only) h = h.select(1, T - 1);
  h = norm(h, m.final_norm);
  return at::linear(h, m.lm_head).to(at::kFloat);
}

at::Tensor ForwardNoCache(const Qwen3Model& m, const at::Tensor& ids, const at::Tensor& pad) {
  const int64_t T = ids.size(1);
  at::Tensor slots = at::arange(T, pad.options());
  ForwardArgs a;
  a.ids = ids;
  a.positions = (slots.unsqueeze(0) - pad.unsqueeze(1)).clamp_min(0);
  a.mask = LeftPaddedCausalMask(pad, slots, T);
  return Forward(m, a);
}

}  // namespace tritonrl::model
