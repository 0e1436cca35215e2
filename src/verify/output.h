// Splitting a full model output into its plan (<think>...</think>) and its code (a fenced block),
// with exact spans so the trainer can map advantages onto tokens.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tritonrl::verify {

// A half-open range of the output: bytes of the UTF-8 text, and the same range counted in Unicode
// code points (what a Python str index or a tokenizer offset mapping uses).
struct TextSpan {
  size_t begin = 0;
  size_t end = 0;
  size_t char_begin = 0;
  size_t char_end = 0;
};

enum class CodeSource {
  kNone,           // nothing that could be code
  kModelNewFence,  // the last Python fence after the plan that defines ModelNew
  kLastFence,      // no fence defines ModelNew: the last fence after the plan
  kWholeText,  // no fence at all: the text after the plan, if it parses (checked by VerifyOutput)
};

const char* CodeSourceName(CodeSource source);

struct ModelOutput {
  std::optional<TextSpan> plan;  // the text inside the first <think>...</think>
  std::optional<TextSpan> code;  // the chosen block's contents (no fence lines)
  CodeSource code_source = CodeSource::kNone;
  std::vector<std::string> notes;  // malformed pieces, e.g. "unterminated <think>"
};

// Pure text analysis: never fails, never parses Python.
ModelOutput SplitModelOutput(std::string_view output);

// The text of SplitModelOutput's plan (a view into `output`); none when the output has no plan.
std::optional<std::string_view> PlanText(std::string_view output);

// The code-point count of text[0, byte_offset).
size_t CharOffset(std::string_view text, size_t byte_offset);

}  // namespace tritonrl::verify
