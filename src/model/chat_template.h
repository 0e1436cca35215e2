// The Qwen3 chat format for prompts: <|im_start|>role\ncontent<|im_end|>\n
// turns, with Qwen3's handling of <think> blocks in earlier assistant turns.
#pragma once

#include <string>
#include <vector>

namespace tritonrl::model {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

struct ChatTemplateOptions {
  bool add_generation_prompt = true;  // end with an open assistant turn
  // false: the open assistant turn starts with an empty <think></think> block,
  // which is how Qwen3 is told to answer without reasoning.
  bool enable_thinking = true;
};

// Assistant turns before the last user turn lose their <think>...</think>
// reasoning (Qwen3 keeps reasoning only for the turn being continued).
std::string ApplyQwen3ChatTemplate(const std::vector<ChatMessage>& messages,
                                   const ChatTemplateOptions& options = {});

}  // namespace tritonrl::model
