#include "model/chat_template.h"

#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

#include "base/file.h"
#include "model/jinja_template.h"

namespace tritonrl::model {

namespace {

std::string_view StripNewlines(std::string_view s, bool left, bool right) {
  while (left && !s.empty() && s.front() == '\n') s.remove_prefix(1);
  while (right && !s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

void AppendTurn(std::string& out, const std::string& role, std::string_view content) {
  out += "<|im_start|>";
  out += role;
  out += '\n';
  out += content;
  out += "<|im_end|>\n";
}

}  // namespace

std::string ApplyQwen3ChatTemplate(const std::vector<ChatMessage>& messages,
                                   const ChatTemplateOptions& options) {
  int last_user = -1;
  for (int i = 0; i < static_cast<int>(messages.size()); ++i) {
    if (messages[i].role == "user") last_user = i;
  }
  std::string out;
  for (int i = 0; i < static_cast<int>(messages.size()); ++i) {
    const ChatMessage& m = messages[i];
    if (m.role != "assistant") {
      AppendTurn(out, m.role, m.content);
      continue;
    }
    std::string_view content = m.content;
    std::string_view reasoning;
    size_t close = content.find("</think>");
    if (close != std::string_view::npos) {
      std::string_view before = content.substr(0, close);
      size_t open = before.rfind("<think>");
      reasoning = before.substr(open == std::string_view::npos ? 0 : open + 7);
      reasoning = StripNewlines(reasoning, true, true);
      content = StripNewlines(content.substr(close + 8), true, false);
    }
    if (i > last_user && close != std::string_view::npos) {
      std::string body = "<think>\n";
      body += reasoning;
      body += "\n</think>\n\n";
      body += content;
      AppendTurn(out, "assistant", body);
    } else {
      AppendTurn(out, "assistant", content);
    }
  }
  if (options.add_generation_prompt) {
    out += "<|im_start|>assistant\n";
    if (!options.enable_thinking.value_or(true)) out += "<think>\n\n</think>\n\n";
  }
  return out;
}

namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

constexpr const char* kBuiltinOrigin = "built-in Qwen3 format";

// transformers' SPECIAL_TOKENS_ATTRIBUTES: the variable names and where each token is kept.
template <typename Tokens>  // ChatSpecialTokens, const or not
auto NamedTokens(Tokens& t) {
  using Field = decltype(&t.bos_token);
  return std::array<std::pair<const char*, Field>, 7>{{{"bos_token", &t.bos_token},
                                                       {"eos_token", &t.eos_token},
                                                       {"unk_token", &t.unk_token},
                                                       {"sep_token", &t.sep_token},
                                                       {"pad_token", &t.pad_token},
                                                       {"cls_token", &t.cls_token},
                                                       {"mask_token", &t.mask_token}}};
}

// What transformers hands a chat template besides the messages: tools and documents (None when
// not given, so `tools is defined` holds and `if tools` does not), the named special tokens that
// are set, and the keyword arguments (enable_thinking, when the caller set it).
ordered_json TemplateVariables(const std::vector<ChatMessage>& messages,
                               const ChatTemplateOptions& options,
                               const ChatSpecialTokens& tokens) {
  ordered_json msgs = ordered_json::array();
  for (const ChatMessage& m : messages) {
    msgs.push_back({{"role", m.role}, {"content", m.content}});
  }
  ordered_json v = ordered_json::object();
  v["messages"] = std::move(msgs);
  v["tools"] = nullptr;
  v["documents"] = nullptr;
  v["add_generation_prompt"] = options.add_generation_prompt;
  for (const auto& [name, value] : NamedTokens(tokens)) {
    if (!value->empty()) v[name] = *value;
  }
  if (options.enable_thinking) v["enable_thinking"] = *options.enable_thinking;
  return v;
}

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// A special token as tokenizer_config.json or special_tokens_map.json write it: a string, or
// an added-token object whose "content" is the token. Anything else (null) is not set.
std::string TokenText(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.contains("content") && j["content"].is_string()) {
    return j["content"].get<std::string>();
  }
  return "";
}

Result<ChatSpecialTokens> ReadSpecialTokens(const fs::path& dir, const nlohmann::json& config) {
  auto map = ReadModelJsonObject(dir / "special_tokens_map.json");
  if (!map.ok()) return map.status();
  ChatSpecialTokens t;
  for (const auto& [name, value] : NamedTokens(t)) {
    if (config.contains(name)) {
      *value = TokenText(config[name]);
    } else if (map->contains(name)) {
      *value = TokenText((*map)[name]);
    }
  }
  return t;
}

struct TemplateSource {
  std::string text;
  std::string origin;  // the file, for errors
};

// tokenizer_config.json's "chat_template": a string, or named templates of which transformers
// uses "default" when no tools are given. None: nullopt.
Result<std::optional<TemplateSource>> ConfigTemplate(const fs::path& file,
                                                     const nlohmann::json& config) {
  const std::string origin = file.string();
  if (!config.contains("chat_template") || config["chat_template"].is_null()) {
    return std::optional<TemplateSource>();
  }
  const nlohmann::json& t = config["chat_template"];
  if (t.is_string()) return std::optional<TemplateSource>({t.get<std::string>(), origin});
  if (t.is_array()) {
    for (const nlohmann::json& named : t) {
      if (named.is_object() && named.value("name", "") == "default" && named.contains("template") &&
          named["template"].is_string()) {
        return std::optional<TemplateSource>({named["template"].get<std::string>(), origin});
      }
    }
    return Status::InvalidArgument(origin + ": \"chat_template\" names no \"default\" template");
  }
  return Status::ParseError(origin + ": \"chat_template\" must be a string or a list");
}

// The template files transformers prefers over tokenizer_config.json's entry.
Result<std::optional<TemplateSource>> FileTemplate(const fs::path& dir) {
  for (const fs::path& p :
       {dir / "chat_template.jinja", dir / "additional_chat_templates" / "default.jinja"}) {
    if (!IsFile(p)) continue;
    auto text = ReadFile(p.string());
    if (!text.ok()) return text.status();
    return std::optional<TemplateSource>({std::move(text.value()), p.string()});
  }
  // Named templates without a default replace the config's entry in transformers, which then
  // refuses to choose one.
  std::error_code ec;
  const fs::path extra = dir / "additional_chat_templates";
  if (fs::is_directory(extra, ec)) {
    for (const auto& entry : fs::directory_iterator(extra, ec)) {
      if (entry.path().extension() == ".jinja") {
        return Status::InvalidArgument(extra.string() +
                                       ": named chat templates but no default.jinja");
      }
    }
  }
  return std::optional<TemplateSource>();
}

}  // namespace

Result<ChatTemplate> ChatTemplate::FromJinja(const std::string& source, const std::string& origin,
                                             ChatSpecialTokens tokens) {
  auto compiled = JinjaTemplate::Compile(source, origin);
  if (!compiled.ok()) return compiled.status();
  ChatTemplate t;
  t.jinja_ = std::make_shared<const JinjaTemplate>(std::move(compiled.value()));
  t.tokens_ = std::move(tokens);
  return t;
}

Result<std::string> ChatTemplate::Apply(const std::vector<ChatMessage>& messages,
                                        const ChatTemplateOptions& options) const {
  if (!jinja_) return ApplyQwen3ChatTemplate(messages, options);
  return jinja_->Render(TemplateVariables(messages, options, tokens_));
}

std::string ChatTemplate::origin() const {
  return jinja_ ? jinja_->origin() : kBuiltinOrigin;
}

Result<ChatTemplate> LoadChatTemplate(const std::string& model) {
  if (model.rfind("builtin:", 0) == 0) return ChatTemplate();
  const fs::path dir(model);
  const fs::path config_file = dir / "tokenizer_config.json";
  auto config = ReadModelJsonObject(config_file);
  if (!config.ok()) return config.status();
  auto source = FileTemplate(dir);
  if (!source.ok()) return source.status();
  if (!source->has_value()) {
    source = ConfigTemplate(config_file, *config);
    if (!source.ok()) return source.status();
  }
  if (!source->has_value()) return ChatTemplate();
  auto tokens = ReadSpecialTokens(dir, *config);
  if (!tokens.ok()) return tokens.status();
  return ChatTemplate::FromJinja((*source)->text, (*source)->origin, std::move(tokens.value()));
}

Result<ChatSpecialTokens> LoadSpecialTokens(const std::string& model) {
  if (model.rfind("builtin:", 0) == 0) return ChatSpecialTokens();
  const fs::path dir(model);
  auto config = ReadModelJsonObject(dir / "tokenizer_config.json");
  if (!config.ok()) return config.status();
  return ReadSpecialTokens(dir, *config);
}

Result<nlohmann::json> ReadModelJsonObject(const fs::path& path) {
  if (!IsFile(path)) return nlohmann::json::object();
  auto text = ReadFile(path.string());
  if (!text.ok()) return text.status();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    return Status::ParseError(path.string() + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) return Status::ParseError(path.string() + ": expected a JSON object");
  return j;
}

}  // namespace tritonrl::model
