#include "model/chat_template.h"

#include <string_view>

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
    if (!options.enable_thinking) out += "<think>\n\n</think>\n\n";
  }
  return out;
}

}  // namespace tritonrl::model
