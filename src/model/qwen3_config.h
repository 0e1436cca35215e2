// Qwen3 decoder hyper-parameters, read from (and written as) a Hugging Face
// config.json. No libtorch.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace tritonrl::model {

struct Qwen3Config {
  int64_t vocab_size = 151936;
  int64_t hidden_size = 4096;
  int64_t intermediate_size = 12288;
  int64_t num_hidden_layers = 36;
  int64_t num_attention_heads = 32;
  int64_t num_key_value_heads = 8;
  int64_t head_dim = 128;
  int64_t max_position_embeddings = 40960;
  double rms_norm_eps = 1e-6;
  double rope_theta = 1e6;
  bool tie_word_embeddings = false;
  bool attention_bias = false;
  int64_t bos_token_id = -1;  // -1: none
  int64_t eos_token_id = -1;
  std::string torch_dtype = "bfloat16";  // the checkpoint's dtype, informational
};

// Rejects configs the decoder cannot run: other model types, rope scaling,
// sliding windows, heads that do not divide evenly.
Result<Qwen3Config> ParseQwen3Config(const std::string& json_text);
Result<Qwen3Config> LoadQwen3Config(const std::string& path);
std::string Qwen3ConfigToJson(const Qwen3Config& config);

// The built-in tiny model (tests, the default demo): byte-level vocabulary
// (256 bytes + 5 special tokens, padded to 272), 2 layers, hidden 64.
Qwen3Config TinyQwen3Config();

// builtin:small (~25M parameters: 8 layers, hidden 512, 8 query / 4 KV heads
// of 64, MLP 1536, tied head), sized to learn on one GPU in minutes. Its
// vocabulary comes from a BPE tokenizer trained on the data; vocab_size is
// rounded up to a multiple of 64.
Qwen3Config SmallQwen3Config(int64_t vocab_size);

// builtin:mini: between tiny and small, for the CPU main job (docs/demo.md): 4 layers, hidden
// 128, with a BPE of `vocab_size` learnt from the training texts (about 3.5 bytes a token on
// Python, so a prompt and its whole solution fit in ~1,000 tokens).
Qwen3Config MiniQwen3Config(int64_t vocab_size);

}  // namespace tritonrl::model
