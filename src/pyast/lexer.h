// Python 3.12 tokenizer: the whole source is tokenized up front into a flat
// array the parser indexes (backtracking is an index reset). f-strings are
// split as PEP 701 does: FSTRING_START, FSTRING_MIDDLE pieces and ordinary
// tokens for the replacement fields, FSTRING_END.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tritonrl::pyast {

// The token table is laid out by hand: clang-format does not settle on a layout for it.
// clang-format off
#define PYAST_TOKENS(T) \
  T(EndMarker, "ENDMARKER") T(Name, "NAME") T(Number, "NUMBER") T(String, "STRING") \
  T(FStringStart, "FSTRING_START") T(FStringMiddle, "FSTRING_MIDDLE") \
  T(FStringEnd, "FSTRING_END") T(Newline, "NEWLINE") T(Indent, "INDENT") T(Dedent, "DEDENT") \
  /* keywords */ \
  T(False, "False") T(None, "None") T(True, "True") T(And, "and") T(As, "as") \
  T(Assert, "assert") T(Async, "async") T(Await, "await") T(Break, "break") T(Class, "class") \
  T(Continue, "continue") T(Def, "def") T(Del, "del") T(Elif, "elif") T(Else, "else") \
  T(Except, "except") T(Finally, "finally") T(For, "for") T(From, "from") T(Global, "global") \
  T(If, "if") T(Import, "import") T(In, "in") T(Is, "is") T(Lambda, "lambda") \
  T(Nonlocal, "nonlocal") T(Not, "not") T(Or, "or") T(Pass, "pass") T(Raise, "raise") \
  T(Return, "return") T(Try, "try") T(While, "while") T(With, "with") T(Yield, "yield") \
  /* operators and delimiters */ \
  T(LPar, "(") T(RPar, ")") T(LSqb, "[") T(RSqb, "]") T(LBrace, "{") T(RBrace, "}") \
  T(Colon, ":") T(Comma, ",") T(Semi, ";") T(Plus, "+") T(Minus, "-") T(Star, "*") \
  T(Slash, "/") T(VBar, "|") T(Amper, "&") T(Less, "<") T(Greater, ">") T(Equal, "=") \
  T(Dot, ".") T(Percent, "%") T(EqEqual, "==") T(NotEqual, "!=") T(LessEqual, "<=") \
  T(GreaterEqual, ">=") T(Tilde, "~") T(Circumflex, "^") T(LeftShift, "<<") T(RightShift, ">>") \
  T(DoubleStar, "**") T(PlusEqual, "+=") T(MinEqual, "-=") T(StarEqual, "*=") \
  T(SlashEqual, "/=") T(PercentEqual, "%=") T(AmperEqual, "&=") T(VBarEqual, "|=") \
  T(CircumflexEqual, "^=") T(LeftShiftEqual, "<<=") T(RightShiftEqual, ">>=") \
  T(DoubleStarEqual, "**=") T(DoubleSlash, "//") T(DoubleSlashEqual, "//=") T(At, "@") \
  T(AtEqual, "@=") T(RArrow, "->") T(Ellipsis, "...") T(ColonEqual, ":=") T(Exclamation, "!")
// clang-format on

enum class Tok : uint8_t {
#define PYAST_TOK_ENUM(name, text) k##name,
  PYAST_TOKENS(PYAST_TOK_ENUM)
#undef PYAST_TOK_ENUM
};

const char* TokName(Tok t);  // "NAME", "if", "+=", ...

struct Token {
  Tok kind;
  uint32_t start;  // byte offsets into the (normalised) source
  uint32_t end;
  int32_t line;  // 1-based
  int32_t col;   // 0-based UTF-8 byte column
  int32_t end_line;
  int32_t end_col;
};

struct LexError {
  bool failed = false;
  int line = 0;
  int col = 0;  // 0-based byte column
  std::string message;
};

// Tokenizes `source` (UTF-8, '\n' line ends: see NormalizeSource). On error
// returns the tokens before it and fills *error.
std::vector<Token> Tokenize(std::string_view source, LexError* error);

// Decodes the source the way CPython reads a file: BOM, PEP 263 coding
// declaration (utf-8, latin-1, ascii), CRLF/CR to LF, UTF-8 validation, no NUL.
bool NormalizeSource(std::string_view raw, std::string* out, LexError* error);

}  // namespace tritonrl::pyast
