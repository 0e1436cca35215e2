// How prompts are put into a model's chat format. A model directory with a chat template of its
// own (chat_template.jinja, or tokenizer_config.json's "chat_template", resolved as transformers
// resolves them) is rendered through that template by llama.cpp's Jinja engine
// (model/jinja_template.h), as transformers' apply_chat_template(tokenize=False) renders it.
// A model without one (builtin:*, or a directory whose tokenizer config has none) gets the
// built-in Qwen3 format, ApplyQwen3ChatTemplate. tritonrl's checkpoints carry
// kQwen3ChatTemplateJinja (hf_files.h), which renders byte for byte what the built-in does.
//
// Usage:
//   auto chat = LoadChatTemplate(model_dir);             // once per model; errors name the file
//   auto prompt = chat->Apply({{"user", "Write a kernel"}}, {.enable_thinking = false});
//
// Threads: a ChatTemplate is immutable; Apply may be called from any thread.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace tritonrl::model {

class JinjaTemplate;

struct ChatMessage {
  std::string role;  // "system", "user", "assistant" (a model's template may know others)
  std::string content;
};

struct ChatTemplateOptions {
  bool add_generation_prompt = true;  // end with an open assistant turn
  // false: the open assistant turn starts with an empty <think></think> block,
  // which is how Qwen3 is told to answer without reasoning. A model's template gets it as the
  // variable enable_thinking (Qwen3's reads it; others ignore it) only when set, so that unset
  // renders what apply_chat_template renders without the keyword. Unset: the built-in thinks.
  std::optional<bool> enable_thinking;
};

// Assistant turns before the last user turn lose their <think>...</think>
// reasoning (Qwen3 keeps reasoning only for the turn being continued).
std::string ApplyQwen3ChatTemplate(const std::vector<ChatMessage>& messages,
                                   const ChatTemplateOptions& options = {});

// The named special tokens a template may use (transformers passes these as variables);
// empty: not set, so the variable is undefined in the template.
struct ChatSpecialTokens {
  std::string bos_token, eos_token, unk_token, sep_token, pad_token, cls_token, mask_token;
};

class ChatTemplate {
 public:
  ChatTemplate() = default;  // the built-in Qwen3 format

  // A Jinja chat template; `origin` names it in errors (the file it came from).
  static Result<ChatTemplate> FromJinja(const std::string& source, const std::string& origin,
                                        ChatSpecialTokens tokens = {});

  // The built-in format never fails; a model's template fails (InvalidArgument naming its file)
  // when it raises (raise_exception, e.g. on a role it does not know) or cannot run.
  Result<std::string> Apply(const std::vector<ChatMessage>& messages,
                            const ChatTemplateOptions& options = {}) const;

  bool builtin() const { return jinja_ == nullptr; }
  // Where the template came from: "built-in Qwen3 format" or the file.
  std::string origin() const;

 private:
  std::shared_ptr<const JinjaTemplate> jinja_;  // null: the built-in format
  ChatSpecialTokens tokens_;
};

// The chat template of `model`: builtin:* has none (the built-in format). For a directory,
// as transformers resolves it: chat_template.jinja; else additional_chat_templates/
// default.jinja; else tokenizer_config.json's "chat_template" (a string, or a list of
// {"name", "template"} of which "default" is used); else the built-in format. Special tokens
// come from tokenizer_config.json (a string or an {"content": ...} object), missing ones from
// special_tokens_map.json. A file that cannot be read or parsed, and a template that does not
// compile, fail with the file's path in the message.
Result<ChatTemplate> LoadChatTemplate(const std::string& model);

// The named special tokens LoadChatTemplate hands `model`'s template, read the same way
// (tokenizer_config.json, then special_tokens_map.json), whether or not it has a template;
// builtin:* has none. A file that cannot be read or parsed fails naming it.
Result<ChatSpecialTokens> LoadSpecialTokens(const std::string& model);

// A JSON object file of a model directory (tokenizer_config.json, generation_config.json, ...):
// an absent file is an empty object; one that cannot be read, is not JSON or is not an object
// fails naming its path.
Result<nlohmann::json> ReadModelJsonObject(const std::filesystem::path& path);

}  // namespace tritonrl::model
