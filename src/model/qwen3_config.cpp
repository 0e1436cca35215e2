#include "model/qwen3_config.h"

#include <nlohmann/json.hpp>

#include "base/file.h"

namespace tritonrl::model {

namespace {
using json = nlohmann::json;
}  // namespace

Result<Qwen3Config> ParseQwen3Config(const std::string& json_text) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    return Status::ParseError(std::string("config.json is not valid JSON: ") + e.what());
  }
  Qwen3Config c;
  try {
    std::string type = j.value("model_type", "qwen3");
    if (type != "qwen3") {
      return Status::InvalidArgument("config.json: model_type '" + type +
                                     "' is not supported (only qwen3)");
    }
    c.vocab_size = j.at("vocab_size").get<int64_t>();
    c.hidden_size = j.at("hidden_size").get<int64_t>();
    c.intermediate_size = j.at("intermediate_size").get<int64_t>();
    c.num_hidden_layers = j.at("num_hidden_layers").get<int64_t>();
    c.num_attention_heads = j.at("num_attention_heads").get<int64_t>();
    c.num_key_value_heads = j.value("num_key_value_heads", c.num_attention_heads);
    c.head_dim = j.contains("head_dim") && !j["head_dim"].is_null()
                     ? j["head_dim"].get<int64_t>()
                     : c.hidden_size / c.num_attention_heads;
    c.max_position_embeddings = j.value("max_position_embeddings", int64_t{40960});
    c.rms_norm_eps = j.value("rms_norm_eps", 1e-6);
    // transformers 5 may nest rope_theta under rope_parameters.
    if (j.contains("rope_theta") && j["rope_theta"].is_number()) {
      c.rope_theta = j["rope_theta"].get<double>();
    } else if (j.contains("rope_parameters") && j["rope_parameters"].is_object()) {
      const json& rp = j["rope_parameters"];
      std::string rtype = rp.value("rope_type", "default");
      if (rtype != "default") {
        return Status::InvalidArgument("config.json: rope_type '" + rtype + "' is not supported");
      }
      c.rope_theta = rp.value("rope_theta", c.rope_theta);
    }
    if (j.contains("rope_scaling") && j["rope_scaling"].is_object()) {
      const json& rs = j["rope_scaling"];
      std::string rtype = rs.value("rope_type", rs.value("type", ""));
      if (rtype != "default") {
        return Status::InvalidArgument("config.json: rope_scaling '" + rtype +
                                       "' is not supported");
      }
      // Some transformers versions write the default rope parameters here.
      if (!(j.contains("rope_theta") && j["rope_theta"].is_number()) && rs.contains("rope_theta")) {
        c.rope_theta = rs["rope_theta"].get<double>();
      }
    }
    if (j.value("use_sliding_window", false)) {
      return Status::InvalidArgument("config.json: use_sliding_window is not supported");
    }
    c.tie_word_embeddings = j.value("tie_word_embeddings", false);
    c.attention_bias = j.value("attention_bias", false);
    if (j.contains("bos_token_id") && j["bos_token_id"].is_number_integer()) {
      c.bos_token_id = j["bos_token_id"].get<int64_t>();
    }
    if (j.contains("eos_token_id") && j["eos_token_id"].is_number_integer()) {
      c.eos_token_id = j["eos_token_id"].get<int64_t>();
    } else if (j.contains("eos_token_id") && j["eos_token_id"].is_array() &&
               !j["eos_token_id"].empty()) {
      c.eos_token_id = j["eos_token_id"][0].get<int64_t>();
    }
    if (j.contains("torch_dtype") && j["torch_dtype"].is_string()) {
      c.torch_dtype = j["torch_dtype"].get<std::string>();
    } else if (j.contains("dtype") && j["dtype"].is_string()) {
      c.torch_dtype = j["dtype"].get<std::string>();
    }
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("config.json: ") + e.what());
  }
  if (c.vocab_size <= 0 || c.hidden_size <= 0 || c.intermediate_size <= 0 ||
      c.num_hidden_layers <= 0 || c.num_attention_heads <= 0 || c.num_key_value_heads <= 0 ||
      c.head_dim <= 0 || c.head_dim % 2 != 0) {
    return Status::InvalidArgument("config.json: sizes must be positive (head_dim even)");
  }
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    return Status::InvalidArgument("config.json: num_attention_heads (" +
                                   std::to_string(c.num_attention_heads) +
                                   ") is not a multiple of num_key_value_heads (" +
                                   std::to_string(c.num_key_value_heads) + ")");
  }
  return c;
}

Result<Qwen3Config> LoadQwen3Config(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto c = ParseQwen3Config(*text);
  if (!c.ok()) return Status::InvalidArgument(path + ": " + c.status().message());
  return c;
}

std::string Qwen3ConfigToJson(const Qwen3Config& c) {
  json j = {{"architectures", {"Qwen3ForCausalLM"}},
            {"model_type", "qwen3"},
            {"vocab_size", c.vocab_size},
            {"hidden_size", c.hidden_size},
            {"intermediate_size", c.intermediate_size},
            {"num_hidden_layers", c.num_hidden_layers},
            {"num_attention_heads", c.num_attention_heads},
            {"num_key_value_heads", c.num_key_value_heads},
            {"head_dim", c.head_dim},
            {"max_position_embeddings", c.max_position_embeddings},
            {"rms_norm_eps", c.rms_norm_eps},
            {"rope_theta", c.rope_theta},
            {"tie_word_embeddings", c.tie_word_embeddings},
            {"attention_bias", c.attention_bias},
            {"hidden_act", "silu"},
            {"torch_dtype", c.torch_dtype}};
  if (c.bos_token_id >= 0) j["bos_token_id"] = c.bos_token_id;
  if (c.eos_token_id >= 0) j["eos_token_id"] = c.eos_token_id;
  return j.dump(2) + "\n";
}

Qwen3Config TinyQwen3Config() {
  Qwen3Config c;
  c.vocab_size = 272;
  c.hidden_size = 64;
  c.intermediate_size = 128;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 16;
  c.max_position_embeddings = 4096;
  c.rope_theta = 10000.0;
  c.tie_word_embeddings = true;
  c.bos_token_id = -1;
  c.eos_token_id = 258;  // <|im_end|> in ByteFallbackTokenizer
  c.torch_dtype = "float32";
  return c;
}

Qwen3Config MiniQwen3Config(int64_t vocab_size) {
  Qwen3Config c = SmallQwen3Config(vocab_size);
  c.hidden_size = 128;
  c.intermediate_size = 384;
  c.num_hidden_layers = 4;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 32;
  c.max_position_embeddings = 4096;
  return c;
}

Qwen3Config SmallQwen3Config(int64_t vocab_size) {
  Qwen3Config c;
  c.vocab_size = (vocab_size + 63) / 64 * 64;
  c.hidden_size = 512;
  c.intermediate_size = 1536;
  c.num_hidden_layers = 8;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 4;
  c.head_dim = 64;
  c.max_position_embeddings = 8192;
  c.rope_theta = 10000.0;
  c.tie_word_embeddings = true;
  c.bos_token_id = -1;
  c.eos_token_id = -1;  // set by the caller: its tokenizer's end of turn (FindEndOfTurn)
  c.torch_dtype = "float32";
  return c;
}

}  // namespace tritonrl::model
