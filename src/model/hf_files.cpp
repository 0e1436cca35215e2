#include "model/hf_files.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "base/file.h"
#include "model/sampling.h"

namespace tritonrl::model {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Line for line what ApplyQwen3ChatTemplate (chat_template.cpp) does: the index of the last
// user turn; every turn "<|im_start|>ROLE\nCONTENT<|im_end|>\n"; an assistant turn with a
// "</think>" loses its reasoning (the text before the first "</think>", after the last
// "<think>" before it, newlines stripped) unless it comes after the last user turn, where it
// is rewritten as "<think>\nREASONING\n</think>\n\n" + the rest (leading newlines stripped).
// Every tag trims the whitespace around it, so only the {{ }} strings are output (transformers
// renders with trim_blocks and lstrip_blocks; this template does not depend on them).
const char kQwen3ChatTemplateJinja[] = R"J({%- set ns = namespace(last_user=-1) -%}
{%- for message in messages -%}
{%- if message['role'] == 'user' -%}{%- set ns.last_user = loop.index0 -%}{%- endif -%}
{%- endfor -%}
{%- for message in messages -%}
{%- set content = message['content'] -%}
{%- if message['role'] == 'assistant' and '</think>' in content -%}
{%- set parts = content.split('</think>') -%}
{%- set reasoning = parts[0].split('<think>')[-1].strip('\n') -%}
{%- set content = (parts[1:] | join('</think>')).lstrip('\n') -%}
{%- if loop.index0 > ns.last_user -%}
{%- set content = '<think>\n' + reasoning + '\n</think>\n\n' + content -%}
{%- endif -%}
{%- endif -%}
{{- '<|im_start|>' + message['role'] + '\n' + content + '<|im_end|>\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<|im_start|>assistant\n' -}}
{%- if enable_thinking is defined and enable_thinking is false -%}
{{- '<think>\n\n</think>\n\n' -}}
{%- endif -%}
{%- endif -%})J";

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// An added token as tokenizer_config.json / special_tokens_map.json spell it.
json TokenObject(const std::string& content) {
  return {{"content", content},
          {"lstrip", false},
          {"normalized", false},
          {"rstrip", false},
          {"single_word", false}};
}

}  // namespace

ModelFiles MakeHfSideFiles(const Tokenizer& tok, const HfSideFileOptions& o) {
  // The eos is the end of turn: transformers' generate (and TRL's trainers) stop at it.
  const int32_t eos_id = o.end_of_turn.id;
  const std::string eos = eos_id >= 0 ? o.end_of_turn.token : "";
  const int32_t endoftext = TokenId(tok, "<|endoftext|>");
  const std::string pad = endoftext >= 0 ? "<|endoftext|>" : eos;
  const int32_t pad_id = endoftext >= 0 ? endoftext : eos_id;
  std::string bos;
  if (o.bos_token_id >= 0 && o.bos_token_id < tok.vocab_size()) {
    for (const AddedToken& a : tok.added_tokens) {
      if (a.id == o.bos_token_id) bos = a.content;
    }
  }

  json tc = json::object();
  tc["tokenizer_class"] = "PreTrainedTokenizerFast";
  tc["bos_token"] = bos.empty() ? json(nullptr) : json(bos);
  tc["eos_token"] = eos.empty() ? json(nullptr) : json(eos);
  tc["pad_token"] = pad.empty() ? json(nullptr) : json(pad);
  tc["unk_token"] = nullptr;
  tc["add_bos_token"] = false;
  tc["add_eos_token"] = false;
  tc["clean_up_tokenization_spaces"] = false;
  tc["split_special_tokens"] = false;
  if (o.model_max_length > 0) tc["model_max_length"] = o.model_max_length;
  tc["chat_template"] = kQwen3ChatTemplateJinja;

  json stm = json::object();
  if (!bos.empty()) stm["bos_token"] = TokenObject(bos);
  if (!eos.empty()) stm["eos_token"] = TokenObject(eos);
  if (!pad.empty()) stm["pad_token"] = TokenObject(pad);
  std::vector<AddedToken> specials;
  for (const AddedToken& a : tok.added_tokens) {
    if (a.special && a.content != eos && a.content != pad && a.content != bos) {
      specials.push_back(a);
    }
  }
  std::sort(specials.begin(), specials.end(),
            [](const AddedToken& a, const AddedToken& b) { return a.id < b.id; });
  json extra = json::array();
  for (const AddedToken& a : specials) extra.push_back(a.content);
  stm["additional_special_tokens"] = extra;

  const SamplingOptions defaults;
  json gc = json::object();
  if (o.bos_token_id >= 0) gc["bos_token_id"] = o.bos_token_id;
  gc["eos_token_id"] = StopTokenIds(tok, eos_id, o.eos_token_id);  // generate's stop tokens
  if (pad_id >= 0) gc["pad_token_id"] = pad_id;
  gc["do_sample"] = defaults.temperature > 0;
  gc["temperature"] = defaults.temperature;
  gc["top_p"] = defaults.top_p;
  gc["top_k"] = defaults.top_k;

  return {{"tokenizer_config.json", tc.dump(2) + "\n"},
          {"generation_config.json", gc.dump(2) + "\n"},
          {"special_tokens_map.json", stm.dump(2) + "\n"}};
}

bool IsRewrittenModelFile(std::string_view name) {
  if (name == "config.json" || name == "trainer_state.json" || name == "adapter_config.json") {
    return true;
  }
  static constexpr std::array<std::string_view, 10> kWeightSuffixes = {
      ".safetensors", ".bin",     ".pt",   ".pth",  ".ckpt",
      ".h5",          ".msgpack", ".gguf", ".onnx", ".index.json"};
  for (std::string_view s : kWeightSuffixes) {
    if (EndsWith(name, s)) return true;
  }
  return false;
}

Result<ModelFiles> ReadCarriedModelFiles(const std::string& dir) {
  ModelFiles files;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) return Status::IoError(dir + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::IoError(dir + ": " + ec.message());
    const std::string name = it->path().filename().string();
    if (IsRewrittenModelFile(name)) continue;
    std::error_code type_ec;
    if (!fs::is_regular_file(it->path(), type_ec)) continue;  // follows symbolic links
    auto text = ReadFile(it->path().string());
    if (!text.ok()) return text.status();
    files[name] = std::move(text.value());
  }
  if (ec) return Status::IoError(dir + ": " + ec.message());
  return files;
}

Status WriteHfModelFiles(const std::string& dir, const Tokenizer& tok, const HfSideFileOptions& o,
                         const ModelFiles& carried) {
  const bool own_tokenizer_config = carried.count("tokenizer_config.json") > 0;
  for (const auto& [name, content] : MakeHfSideFiles(tok, o)) {
    // transformers reads special_tokens_map.json over tokenizer_config.json: a generated map
    // beside the model's own tokenizer config would replace the model's eos and pad.
    if (own_tokenizer_config && name == "special_tokens_map.json") continue;
    TRITONRL_RETURN_IF_ERROR(WriteFileAtomic((fs::path(dir) / name).string(), content));
  }
  for (const auto& [name, content] : carried) {
    if (IsRewrittenModelFile(name) || name.find('/') != std::string::npos) continue;
    TRITONRL_RETURN_IF_ERROR(WriteFileAtomic((fs::path(dir) / name).string(), content));
  }
  return Status::Ok();
}

}  // namespace tritonrl::model
