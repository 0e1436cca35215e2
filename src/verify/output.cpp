#include "verify/output.h"

#include <algorithm>
#include <cctype>

namespace tritonrl::verify {
namespace {

struct Fence {
  std::string_view info;  // the language tag line after the backticks, trimmed
  size_t begin = 0;       // first byte of the contents
  size_t end = 0;         // one past the last byte of the contents
  bool closed = false;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Number of leading backticks of a line after its indentation; 0 if fewer than three.
size_t FenceTicks(std::string_view line, std::string_view* rest) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  size_t n = 0;
  while (i + n < line.size() && line[i + n] == '`') ++n;
  if (n < 3) return 0;
  *rest = line.substr(i + n);
  return n;
}

std::vector<Fence> FindFences(std::string_view text, size_t from) {
  std::vector<Fence> fences;
  size_t pos = from;
  bool open = false;
  size_t open_ticks = 0;
  Fence cur;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    size_t line_end = eol == std::string_view::npos ? text.size() : eol;
    size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    std::string_view line = text.substr(pos, line_end - pos);
    std::string_view rest;
    size_t ticks = FenceTicks(line, &rest);
    if (!open && ticks > 0) {
      open = true;
      open_ticks = ticks;
      cur = Fence{};
      cur.info = Trim(rest);
      cur.begin = next;
    } else if (open && ticks >= open_ticks && Trim(rest).empty()) {
      cur.end = pos;
      cur.closed = true;
      fences.push_back(cur);
      open = false;
    }
    pos = next;
  }
  if (open) {
    cur.end = text.size();
    fences.push_back(cur);
  }
  return fences;
}

bool IsPythonTag(std::string_view info) {
  std::string tag;
  for (char c : info) {
    if (std::isspace(static_cast<unsigned char>(c))) break;
    tag.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return tag.empty() || tag == "python" || tag == "py" || tag == "python3";
}

bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool DefinesModelNew(std::string_view code) {
  constexpr std::string_view kNeedle = "class ModelNew";
  for (size_t p = code.find(kNeedle); p != std::string_view::npos; p = code.find(kNeedle, p + 1)) {
    bool starts_line = p == 0 || code[p - 1] == '\n' || code[p - 1] == ' ' || code[p - 1] == '\t';
    size_t after = p + kNeedle.size();
    if (starts_line && (after == code.size() || !IsIdentChar(code[after]))) return true;
  }
  return false;
}

TextSpan MakeSpan(std::string_view text, size_t begin, size_t end) {
  TextSpan s;
  s.begin = begin;
  s.end = end;
  s.char_begin = CharOffset(text, begin);
  s.char_end = s.char_begin + CharOffset(text.substr(begin), end - begin);
  return s;
}

}  // namespace

const char* CodeSourceName(CodeSource source) {
  switch (source) {
    case CodeSource::kNone:
      return "none";
    case CodeSource::kModelNewFence:
      return "modelnew_fence";
    case CodeSource::kLastFence:
      return "last_fence";
    case CodeSource::kWholeText:
      return "whole_text";
  }
  return "none";
}

size_t CharOffset(std::string_view text, size_t byte_offset) {
  byte_offset = std::min(byte_offset, text.size());
  size_t n = 0;
  for (size_t i = 0; i < byte_offset; ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

ModelOutput SplitModelOutput(std::string_view output) {
  ModelOutput out;
  constexpr std::string_view kOpen = "<think>";
  constexpr std::string_view kClose = "</think>";
  size_t code_from = 0;
  size_t open = output.find(kOpen);
  size_t close = output.find(kClose);
  if (open != std::string_view::npos && (close == std::string_view::npos || open < close)) {
    size_t plan_begin = open + kOpen.size();
    close = output.find(kClose, plan_begin);
    if (close == std::string_view::npos) {
      out.notes.push_back("unterminated <think>: no plan");
    } else {
      out.plan = MakeSpan(output, plan_begin, close);
      code_from = close + kClose.size();
    }
  } else if (close != std::string_view::npos) {
    // Chat templates often put <think> in the prompt: the output starts inside the plan.
    out.plan = MakeSpan(output, 0, close);
    code_from = close + kClose.size();
    out.notes.push_back("plan opened by the prompt (no <think> in the output)");
  } else {
    out.notes.push_back("no <think> plan");
  }

  std::vector<Fence> fences = FindFences(output, code_from);
  const Fence* chosen = nullptr;
  for (auto it = fences.rbegin(); it != fences.rend(); ++it) {
    if (IsPythonTag(it->info) && DefinesModelNew(output.substr(it->begin, it->end - it->begin))) {
      chosen = &*it;
      out.code_source = CodeSource::kModelNewFence;
      break;
    }
  }
  if (chosen == nullptr && !fences.empty()) {
    chosen = &fences.back();
    out.code_source = CodeSource::kLastFence;
    out.notes.push_back("no fenced Python block defines ModelNew: using the last fenced block");
  }
  if (chosen != nullptr) {
    if (!chosen->closed) out.notes.push_back("unterminated code fence");
    out.code = MakeSpan(output, chosen->begin, chosen->end);
  } else if (code_from < output.size() && !Trim(output.substr(code_from)).empty()) {
    out.code = MakeSpan(output, code_from, output.size());
    out.code_source = CodeSource::kWholeText;
    out.notes.push_back("no fenced block: trying the text after the plan as code");
  }
  return out;
}

std::optional<std::string_view> PlanText(std::string_view output) {
  const ModelOutput split = SplitModelOutput(output);
  if (!split.plan) return std::nullopt;
  return output.substr(split.plan->begin, split.plan->end - split.plan->begin);
}

}  // namespace tritonrl::verify
