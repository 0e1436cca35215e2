#include "model/end_of_turn.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "model/chat_template.h"

namespace tritonrl::model {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The assistant's content in the probe conversation: plain text no template rewrites (no
// whitespace to trim, no <think> to split) and no tokenizer splits into an added token.
constexpr std::string_view kMarker = "tritonrl-end-of-turn-probe";

bool InVocabulary(const Tokenizer& tok, int64_t id) {
  return id >= 0 && id < tok.vocab_size();
}

std::string TokenText(const Tokenizer& tok, int32_t id) {
  for (const AddedToken& a : tok.added_tokens) {
    if (a.id == id) return a.content;
  }
  return tok.id_to_token[id];
}

// Rule 1: the first special token the template renders after the assistant's content. None
// when the template raises on the probe or renders no special token of `tok` there.
std::optional<int32_t> TemplateEndOfTurn(const ChatTemplate& chat, const Tokenizer& tok) {
  auto text = chat.Apply({{"user", "Write a kernel."}, {"assistant", std::string(kMarker)}},
                         {.add_generation_prompt = false});
  if (!text.ok()) return std::nullopt;
  const size_t at = text->rfind(kMarker);
  if (at == std::string::npos) return std::nullopt;
  auto tail = Encode(tok, std::string_view(*text).substr(at + kMarker.size()));
  if (!tail.ok()) return std::nullopt;
  for (int32_t id : tail->ids) {
    if (tok.is_special[id]) return id;
  }
  return std::nullopt;
}

// generation_config.json's eos_token_id, the first of a list; -1 when the file or the key is
// absent. A file that cannot be read or parsed, or is not a JSON object, fails naming it.
Result<int64_t> GenerationConfigEos(const fs::path& dir) {
  auto j = ReadModelJsonObject(dir / "generation_config.json");
  if (!j.ok()) return j.status();
  const json* eos = j->contains("eos_token_id") ? &(*j)["eos_token_id"] : nullptr;
  if (eos && eos->is_array() && !eos->empty()) eos = &(*eos)[0];
  if (eos && eos->is_number_integer()) return eos->get<int64_t>();
  return int64_t{-1};
}

EndOfTurn Found(const Tokenizer& tok, int32_t id, std::string source) {
  return {id, TokenText(tok, id), std::move(source)};
}

}  // namespace

Result<EndOfTurn> FindEndOfTurn(const std::string& model, const Tokenizer& tok,
                                int64_t config_eos_token_id) {
  auto chat = LoadChatTemplate(model);
  if (!chat.ok()) return chat.status();
  if (auto id = TemplateEndOfTurn(*chat, tok)) {
    return Found(tok, *id, "the chat template (" + chat->origin() + ")");
  }
  auto named = LoadSpecialTokens(model);
  if (!named.ok()) return named.status();
  if (const int32_t id = TokenId(tok, named->eos_token); !named->eos_token.empty() && id >= 0) {
    return Found(tok, id, "tokenizer_config.json's eos_token");
  }
  if (model.rfind("builtin:", 0) != 0) {
    auto generation = GenerationConfigEos(fs::path(model));
    if (!generation.ok()) return generation.status();
    if (InVocabulary(tok, *generation)) {
      return Found(tok, static_cast<int32_t>(*generation), "generation_config.json's eos_token_id");
    }
  }
  if (InVocabulary(tok, config_eos_token_id)) {
    return Found(tok, static_cast<int32_t>(config_eos_token_id), "config.json's eos_token_id");
  }
  for (const char* token : {"<|im_end|>", "<|endoftext|>"}) {
    if (const int32_t id = TokenId(tok, token); id >= 0) {
      return Found(tok, id, std::string("the tokenizer's ") + token);
    }
  }
  return Status::InvalidArgument(
      model + ": no end-of-turn token: its chat template (" + chat->origin() +
      ") renders no special token of the tokenizer after an assistant turn, no eos_token or "
      "eos_token_id (tokenizer_config.json, generation_config.json, config.json) names a token "
      "of it, and it has neither <|im_end|> nor <|endoftext|>");
}

std::vector<int32_t> StopTokenIds(const Tokenizer& tok, int32_t end_of_turn_id,
                                  int64_t config_eos_token_id) {
  std::vector<int32_t> ids;
  for (int64_t id : {static_cast<int64_t>(end_of_turn_id),
                     static_cast<int64_t>(TokenId(tok, "<|endoftext|>")), config_eos_token_id}) {
    const auto i = static_cast<int32_t>(id);
    if (id >= 0 && std::find(ids.begin(), ids.end(), i) == ids.end()) ids.push_back(i);
  }
  return ids;
}

}  // namespace tritonrl::model
