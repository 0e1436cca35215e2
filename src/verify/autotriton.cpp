#include "verify/autotriton.h"

#include <cctype>
#include <cstddef>

namespace tritonrl::verify {
namespace {

// How many times `quote` occurs in `line` (a triple quote counted once per occurrence).
std::size_t CountTripleQuotes(std::string_view line, std::string_view quote) {
  std::size_t n = 0;
  for (std::size_t at = line.find(quote); at != std::string_view::npos;
       at = line.find(quote, at + quote.size()))
    ++n;
  return n;
}

bool IsJitDecorator(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  line.remove_prefix(i);
  constexpr std::string_view kJit = "@triton.jit";
  if (line.substr(0, kJit.size()) != kJit) return false;
  line.remove_prefix(kJit.size());
  // `@triton.jitter` is another name; `@triton.jit`, `@triton.jit(...)` and a comment are not.
  return line.empty() || line[0] == '(' || line[0] == '#' ||
         std::isspace(static_cast<unsigned char>(line[0])) != 0;
}

}  // namespace

bool AutoTritonIsTriton(std::string_view code) {
  bool in_triple = false;  // inside a """ or ''' string opened on an earlier line
  std::string_view open_quote;
  while (!code.empty()) {
    const std::size_t end = code.find('\n');
    std::string_view line = code.substr(0, end);
    code.remove_prefix(end == std::string_view::npos ? code.size() : end + 1);
    if (!in_triple && IsJitDecorator(line)) return true;
    for (std::string_view q : {std::string_view("\"\"\""), std::string_view("'''")}) {
      if (in_triple && q != open_quote) continue;
      if (CountTripleQuotes(line, q) % 2 == 1) {
        in_triple = !in_triple;
        open_quote = in_triple ? q : std::string_view();
        break;
      }
    }
  }
  return false;
}

}  // namespace tritonrl::verify
