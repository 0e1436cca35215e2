// Decoding literal tokens into constant values: string prefixes and escapes,
// f-string literal pieces, numbers of every form (big ints become decimal text).
#pragma once

#include <string>
#include <string_view>

#include "pyast/arena.h"
#include "pyast/ast.h"

namespace tritonrl::pyast {

struct StringPrefix {
  bool raw = false;
  bool bytes = false;
  bool u = false;
  bool f = false;
  size_t length = 0;  // prefix letters before the quote
};

StringPrefix ParsePrefix(std::string_view token_text);

// Decodes a whole STRING token (prefix, quotes, escapes); appends to *out.
// For bytes, *out receives raw bytes. Returns false with *error on a bad escape.
bool DecodeStringLiteral(std::string_view token_text, const StringPrefix& prefix, std::string* out,
                         std::string* error);

// Decodes an FSTRING_MIDDLE piece ("{{" and "}}" are single braces).
bool DecodeFStringMiddle(std::string_view text, bool raw, std::string* out, std::string* error);

// Decodes a NUMBER token. Returns false only for malformed text.
bool DecodeNumber(std::string_view text, Arena& arena, ConstantValue* out);

// Appends the UTF-8 (generalised: surrogates allowed) encoding of a code point.
void AppendUtf8(uint32_t cp, std::string* out);

}  // namespace tritonrl::pyast
