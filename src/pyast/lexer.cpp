#include "pyast/lexer.h"

#include <cstring>

namespace tritonrl::pyast {

const char* TokName(Tok t) {
  static const char* const kNames[] = {
#define PYAST_TOK_NAME(name, text) text,
      PYAST_TOKENS(PYAST_TOK_NAME)
#undef PYAST_TOK_NAME
  };
  return kNames[static_cast<int>(t)];
}

namespace {

bool IsIdStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdChar(unsigned char c) {
  return IsIdStart(c) || (c >= '0' && c <= '9');
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

struct Keyword {
  const char* text;
  Tok tok;
};
constexpr Keyword kKeywords[] = {
    {"False", Tok::kFalse},
    {"None", Tok::kNone},
    {"True", Tok::kTrue},
    {"and", Tok::kAnd},
    {"as", Tok::kAs},
    {"assert", Tok::kAssert},
    {"async", Tok::kAsync},
    {"await", Tok::kAwait},
    {"break", Tok::kBreak},
    {"class", Tok::kClass},
    {"continue", Tok::kContinue},
    {"def", Tok::kDef},
    {"del", Tok::kDel},
    {"elif", Tok::kElif},
    {"else", Tok::kElse},
    {"except", Tok::kExcept},
    {"finally", Tok::kFinally},
    {"for", Tok::kFor},
    {"from", Tok::kFrom},
    {"global", Tok::kGlobal},
    {"if", Tok::kIf},
    {"import", Tok::kImport},
    {"in", Tok::kIn},
    {"is", Tok::kIs},
    {"lambda", Tok::kLambda},
    {"nonlocal", Tok::kNonlocal},
    {"not", Tok::kNot},
    {"or", Tok::kOr},
    {"pass", Tok::kPass},
    {"raise", Tok::kRaise},
    {"return", Tok::kReturn},
    {"try", Tok::kTry},
    {"while", Tok::kWhile},
    {"with", Tok::kWith},
    {"yield", Tok::kYield},
};

Tok KeywordOrName(std::string_view s) {
  if (s.size() < 2 || s.size() > 8) return Tok::kName;
  for (const Keyword& k : kKeywords) {
    if (k.text[0] == s[0] && s == k.text) return k.tok;
  }
  return Tok::kName;
}

enum class ModeKind : uint8_t { kFString, kField, kSpec };
struct Mode {
  ModeKind kind;
  char quote = 0;
  bool triple = false;
  bool raw = false;
  uint32_t paren_level = 0;  // kField: size of the paren stack just after its '{'
};

struct Paren {
  char ch;
  int line;
  int col;
};

class Lexer {
 public:
  Lexer(std::string_view src, LexError* err) : s_(src), err_(err) {
    toks_.reserve(src.size() / 4 + 16);
  }

  std::vector<Token> Run() {
    indents_.push_back({0, 0});
    while (!err_->failed) {
      if (!modes_.empty() && modes_.back().kind != ModeKind::kField) {
        LexFStringMiddle();
        continue;
      }
      if (at_line_start_ && parens_.empty()) {
        if (!Indentation()) break;
        if (err_->failed) break;
      }
      if (!Next()) break;
    }
    return std::move(toks_);
  }

 private:
  int Col(size_t p) const { return static_cast<int>(p - line_start_); }

  void Fail(std::string msg, size_t p) { FailAt(std::move(msg), line_, Col(p)); }
  void FailAt(std::string msg, int line, int col) {
    if (err_->failed) return;
    err_->failed = true;
    err_->line = line;
    err_->col = col;
    err_->message = std::move(msg);
  }

  void Emit(Tok k, size_t start, size_t end, int line, int col) {
    toks_.push_back(Token{k, static_cast<uint32_t>(start), static_cast<uint32_t>(end), line, col,
                          line_, Col(end)});
  }
  void EmitHere(Tok k, size_t start, size_t end) { Emit(k, start, end, line_, Col(start)); }

  void NewLine(size_t nl_pos) {
    ++line_;
    line_start_ = nl_pos + 1;
  }

  // Handles a line start: blank lines, comments, INDENT/DEDENT. Returns false at EOF handled.
  bool Indentation() {
    for (;;) {
      size_t p = pos_;
      int col = 0, alt = 0;
      for (; p < s_.size(); ++p) {
        char c = s_[p];
        if (c == ' ') {
          ++col, ++alt;
        } else if (c == '\t') {
          col = (col / 8 + 1) * 8;
          ++alt;
        } else if (c == '\f') {
          col = alt = 0;
        } else {
          break;
        }
      }
      if (p >= s_.size()) {
        pos_ = p;
        at_line_start_ = false;
        return true;  // EOF: Next() emits the end tokens
      }
      char c = s_[p];
      if (c == '#' || c == '\n') {
        // Blank or comment-only line: no tokens.
        while (p < s_.size() && s_[p] != '\n') ++p;
        if (p >= s_.size()) {
          pos_ = p;
          at_line_start_ = false;
          return true;
        }
        NewLine(p);
        pos_ = p + 1;
        continue;
      }
      if (c == '\\' && p + 1 < s_.size() && s_[p + 1] == '\n') {
        // A continuation line at indentation: CPython treats the indentation as
        // belonging to the joined line; rare, keep the computed column.
      }
      pos_ = p;
      at_line_start_ = false;
      auto& top = indents_.back();
      if (col == top.first) {
        if (alt != top.second)
          return Fail("inconsistent use of tabs and spaces in indentation", p), false;
      } else if (col > top.first) {
        if (alt <= top.second)
          return Fail("inconsistent use of tabs and spaces in indentation", p), false;
        if (indents_.size() >= 100) return Fail("too many levels of indentation", p), false;
        indents_.push_back({col, alt});
        Emit(Tok::kIndent, line_start_, p, line_, 0);
      } else {
        while (indents_.size() > 1 && col < indents_.back().first) {
          indents_.pop_back();
          Emit(Tok::kDedent, p, p, line_, Col(p));
        }
        if (col != indents_.back().first) {
          size_t eol = s_.find('\n', p);
          return Fail("unindent does not match any outer indentation level",
                      eol == std::string_view::npos ? s_.size() : eol),
                 false;
        }
        if (alt != indents_.back().second) {
          return Fail("inconsistent use of tabs and spaces in indentation", p), false;
        }
      }
      return true;
    }
  }

  bool AtEnd() {
    if (!modes_.empty()) {
      Fail("unterminated f-string literal", pos_);
      return false;
    }
    if (!parens_.empty()) {
      const Paren& p = parens_.back();
      FailAt(std::string("'") + p.ch + "' was never closed", p.line, p.col);
      return false;
    }
    if (!toks_.empty() && toks_.back().kind != Tok::kNewline && toks_.back().kind != Tok::kDedent &&
        toks_.back().kind != Tok::kIndent) {
      EmitHere(Tok::kNewline, pos_, pos_);
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      EmitHere(Tok::kDedent, pos_, pos_);
    }
    EmitHere(Tok::kEndMarker, pos_, pos_);
    return false;
  }

  // One token (or skipped trivia) in normal mode. Returns false when done.
  bool Next() {
    for (;;) {
      if (pos_ >= s_.size()) return AtEnd();
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\f') {
        ++pos_;
      } else if (c == '\\') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
          NewLine(pos_ + 1);
          pos_ += 2;
          if (pos_ >= s_.size()) {
            Fail("unexpected EOF while parsing", pos_);
            return false;
          }
        } else {
          Fail("unexpected character after line continuation character", pos_ + 1);
          return false;
        }
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
    size_t start = pos_;
    unsigned char c = static_cast<unsigned char>(s_[pos_]);
    if (c == '\n') {
      if (parens_.empty()) {
        EmitHere(Tok::kNewline, start, start + 1);
        at_line_start_ = true;
      }
      NewLine(start);
      ++pos_;
      return true;
    }
    if (IsIdStart(c)) {
      size_t p = pos_;
      while (p < s_.size() && IsIdChar(static_cast<unsigned char>(s_[p]))) ++p;
      if (p < s_.size() && (s_[p] == '"' || s_[p] == '\'') && p - start <= 2) {
        bool raw = false, fstr = false, bytes = false, ok = true;
        for (size_t i = start; i < p; ++i) {
          char q = s_[i] | 0x20;
          if (q == 'r' && !raw) {
            raw = true;
          } else if (q == 'f' && !fstr && !bytes) {
            fstr = true;
          } else if (q == 'b' && !bytes && !fstr) {
            bytes = true;
          } else if (q == 'u' && p - start == 1) {
          } else {
            ok = false;
          }
        }
        if (ok) {
          pos_ = p;
          return fstr ? FStringStart(start, raw) : String(start);
        }
      }
      if (!ValidIdentifier(start, p)) return false;
      pos_ = p;
      EmitHere(KeywordOrName(s_.substr(start, p - start)), start, p);
      return true;
    }
    if (IsDigit(c) || (c == '.' && pos_ + 1 < s_.size() && IsDigit(s_[pos_ + 1]))) {
      return Number();
    }
    if (c == '"' || c == '\'') return String(start);
    return Operator();
  }

  bool ValidIdentifier(size_t start, size_t end) {
    for (size_t i = start; i < end;) {
      unsigned char c = static_cast<unsigned char>(s_[i]);
      if (c < 0x80) {
        ++i;
        continue;
      }
      // Decode one code point (the source is valid UTF-8) and reject the
      // common non-identifier characters CPython rejects.
      uint32_t cp;
      int n;
      if (c < 0xE0) {
        cp = c & 0x1F, n = 2;
      } else if (c < 0xF0) {
        cp = c & 0x0F, n = 3;
      } else {
        cp = c & 0x07, n = 4;
      }
      for (int k = 1; k < n; ++k) cp = (cp << 6) | (s_[i + k] & 0x3F);
      bool bad = (cp >= 0x80 && cp <= 0xA9) || cp == 0xAB || cp == 0xAC || cp == 0xAD ||
                 cp == 0xAE || cp == 0xAF || cp == 0xB0 || cp == 0xB1 || cp == 0xB4 || cp == 0xB6 ||
                 cp == 0xB8 || cp == 0xBB || cp == 0xBF || cp == 0xD7 || cp == 0xF7 ||
                 (cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x2190 && cp <= 0x23FF) ||
                 (cp >= 0x2500 && cp <= 0x27BF) || (cp >= 0x3000 && cp <= 0x3003) ||
                 (cp >= 0xE000 && cp <= 0xF8FF) || cp == 0xFEFF || (cp >= 0xFFF0 && cp <= 0xFFFF) ||
                 (cp >= 0x1F000 && cp <= 0x1FAFF);
      if (cp == 0xAA || cp == 0xB5 || cp == 0xBA) bad = false;
      if (bad) {
        Fail("invalid character '" + std::string(s_.substr(i, n)) + "' (U+" + Hex(cp) + ")", i);
        return false;
      }
      i += n;
    }
    return true;
  }

  static std::string Hex(uint32_t cp) {
    char buf[16];
    snprintf(buf, sizeof buf, "%04X", cp);
    return buf;
  }

  // Decimal digits with single underscores between them; returns false on a bad underscore.
  bool Digits(bool (*pred)(char)) {
    for (;;) {
      while (pos_ < s_.size() && pred(s_[pos_])) ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '_') {
        ++pos_;
        if (pos_ >= s_.size() || !pred(s_[pos_])) {
          Fail("invalid decimal literal", pos_ - 1);
          return false;
        }
      } else {
        return true;
      }
    }
  }

  bool EndOfNumber(size_t start, const char* kind) {
    if (pos_ < s_.size() && IsIdStart(static_cast<unsigned char>(s_[pos_]))) {
      // "1if x else y" is accepted (with a warning) for these keywords.
      static const char* const kAllowed[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
      std::string_view rest = s_.substr(pos_);
      for (const char* k : kAllowed) {
        if (rest.substr(0, strlen(k)) == k) {
          EmitHere(Tok::kNumber, start, pos_);
          return true;
        }
      }
      Fail(std::string("invalid ") + kind + " literal", pos_);
      return false;
    }
    EmitHere(Tok::kNumber, start, pos_);
    return true;
  }

  bool Number() {
    size_t start = pos_;
    auto radix = [&](bool (*pred)(char), const char* kind) {
      pos_ += 2;
      if (pos_ < s_.size() && s_[pos_] == '_') ++pos_;
      if (pos_ >= s_.size() || !pred(s_[pos_])) {
        Fail(std::string("invalid ") + kind + " literal", pos_);
        return false;
      }
      if (!Digits(pred)) return false;
      if (pos_ < s_.size() && IsDigit(s_[pos_])) {
        Fail(std::string("invalid digit '") + s_[pos_] + "' in " + kind + " literal", pos_);
        return false;
      }
      return EndOfNumber(start, kind);
    };
    if (s_[pos_] == '0' && pos_ + 1 < s_.size()) {
      char x = s_[pos_ + 1] | 0x20;
      if (x == 'x') return radix(IsHex, "hexadecimal");
      if (x == 'o') return radix([](char c) { return c >= '0' && c <= '7'; }, "octal");
      if (x == 'b') return radix([](char c) { return c == '0' || c == '1'; }, "binary");
    }
    bool is_float = false;
    bool leading_zero = s_[pos_] == '0';
    if (s_[pos_] != '.') {
      if (!Digits(IsDigit)) return false;
    }
    size_t int_end = pos_;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_float = true;
      ++pos_;
      if (pos_ < s_.size() && IsDigit(s_[pos_])) {
        if (!Digits(IsDigit)) return false;
      }
    }
    if (pos_ < s_.size() && (s_[pos_] | 0x20) == 'e') {
      size_t save = pos_;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ < s_.size() && IsDigit(s_[pos_])) {
        is_float = true;
        if (!Digits(IsDigit)) return false;
      } else {
        pos_ = save;
        Fail("invalid decimal literal", pos_);
        return false;
      }
    }
    if (pos_ < s_.size() && (s_[pos_] | 0x20) == 'j') {
      ++pos_;
      return EndOfNumber(start, "imaginary");
    }
    if (!is_float && leading_zero) {
      for (size_t i = start; i < int_end; ++i) {
        if (s_[i] != '0' && s_[i] != '_') {
          Fail(
              "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
              "octal integers",
              start);
          return false;
        }
      }
    }
    return EndOfNumber(start, "decimal");
  }

  // A complete non-f string literal; pos_ is at the opening quote.
  bool String(size_t start) {
    int line = line_, col = Col(start);
    char q = s_[pos_];
    bool triple = pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q;
    pos_ += triple ? 3 : 1;
    for (;;) {
      if (pos_ >= s_.size()) {
        FailAt(std::string(triple ? "unterminated triple-quoted string literal"
                                  : "unterminated string literal") +
                   " (detected at line " + std::to_string(line_) + ")",
               line, col);
        return false;
      }
      char c = s_[pos_];
      if (c == q) {
        if (!triple) {
          ++pos_;
          break;
        }
        if (pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q) {
          pos_ += 3;
          break;
        }
        ++pos_;
      } else if (c == '\\') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') NewLine(pos_ + 1);
        pos_ += 2;
      } else if (c == '\n') {
        if (!triple) {
          FailAt("unterminated string literal (detected at line " + std::to_string(line_) + ")",
                 line, col);
          return false;
        }
        NewLine(pos_);
        ++pos_;
      } else {
        ++pos_;
      }
    }
    Emit(Tok::kString, start, pos_, line, col);
    return true;
  }

  bool FStringStart(size_t start, bool raw) {
    char q = s_[pos_];
    bool triple = pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q;
    pos_ += triple ? 3 : 1;
    if (modes_.size() >= 150) {
      Fail("too many nested f-strings", start);
      return false;
    }
    EmitHere(Tok::kFStringStart, start, pos_);
    modes_.push_back(Mode{ModeKind::kFString, q, triple, raw, 0});
    fstring_start_line_.push_back(line_);
    return true;
  }

  // Literal text of an f-string or of a format spec, up to a field or the end.
  void LexFStringMiddle() {
    Mode& m = modes_.back();
    // The enclosing f-string (for a spec, the nearest kFString below).
    const Mode* fs = &m;
    for (size_t i = modes_.size(); i-- > 0;) {
      if (modes_[i].kind == ModeKind::kFString) {
        fs = &modes_[i];
        break;
      }
    }
    bool spec = m.kind == ModeKind::kSpec;
    char q = fs->quote;
    bool triple = fs->triple, raw = fs->raw;
    size_t start = pos_;
    int line = line_, col = Col(start);
    auto emit_middle = [&](size_t end) {
      if (end > start) Emit(Tok::kFStringMiddle, start, end, line, col);
    };
    for (;;) {
      if (pos_ >= s_.size()) {
        Fail("unterminated " + std::string(triple ? "triple-quoted " : "") + "f-string literal",
             pos_);
        return;
      }
      char c = s_[pos_];
      if (c == q && (!triple || (pos_ + 2 < s_.size() && s_[pos_ + 1] == q && s_[pos_ + 2] == q))) {
        if (spec) {
          Fail("f-string: expecting '}'", pos_);
          return;
        }
        emit_middle(pos_);
        size_t e = pos_ + (triple ? 3 : 1);
        EmitHere(Tok::kFStringEnd, pos_, e);
        pos_ = e;
        modes_.pop_back();
        fstring_start_line_.pop_back();
        return;
      }
      if (c == '\n') {
        if (!triple) {
          Fail("unterminated f-string literal (detected at line " + std::to_string(line_) + ")",
               pos_);
          return;
        }
        NewLine(pos_);
        ++pos_;
        continue;
      }
      if (c == '\\') {
        char n = pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0';
        if (raw) {
          pos_ += (n == q || n == '\\') ? 2 : 1;
        } else if (n == 'N' && pos_ + 2 < s_.size() && s_[pos_ + 2] == '{') {
          size_t p = pos_ + 3;
          while (p < s_.size() && s_[p] != '}' && s_[p] != q && s_[p] != '\n') ++p;
          pos_ = p < s_.size() && s_[p] == '}' ? p + 1 : p;
        } else if (n == '{' || n == '}') {
          ++pos_;
        } else {
          if (n == '\n') NewLine(pos_ + 1);
          pos_ += 2;
        }
        continue;
      }
      if (c == '{') {
        if (!spec && pos_ + 1 < s_.size() && s_[pos_ + 1] == '{') {
          pos_ += 2;
          continue;
        }
        emit_middle(pos_);
        EmitHere(Tok::kLBrace, pos_, pos_ + 1);
        if (parens_.size() >= 200) {
          Fail("too many nested parentheses", pos_);
          return;
        }
        parens_.push_back(Paren{'{', line_, Col(pos_)});
        ++pos_;
        modes_.push_back(
            Mode{ModeKind::kField, 0, false, false, static_cast<uint32_t>(parens_.size())});
        return;
      }
      if (c == '}') {
        if (!spec) {
          if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '}') {
            pos_ += 2;
            continue;
          }
          Fail("f-string: single '}' is not allowed", pos_);
          return;
        }
        emit_middle(pos_);
        modes_.pop_back();  // the spec
        EmitHere(Tok::kRBrace, pos_, pos_ + 1);
        ++pos_;
        modes_.pop_back();  // its field
        parens_.pop_back();
        return;
      }
      ++pos_;
    }
  }

  bool Operator() {
    size_t start = pos_;
    std::string_view r = s_.substr(pos_, 3);
    auto at = [&](size_t i) { return i < r.size() ? r[i] : '\0'; };
    char c0 = at(0), c1 = at(1), c2 = at(2);
    Tok t;
    size_t n = 1;
    switch (c0) {
      case '(':
      case '[':
      case '{': {
        t = c0 == '(' ? Tok::kLPar : c0 == '[' ? Tok::kLSqb : Tok::kLBrace;
        if (parens_.size() >= 200) {
          Fail("too many nested parentheses", pos_);
          return false;
        }
        parens_.push_back(Paren{c0, line_, Col(pos_)});
        break;
      }
      case ')':
      case ']':
      case '}': {
        t = c0 == ')' ? Tok::kRPar : c0 == ']' ? Tok::kRSqb : Tok::kRBrace;
        if (parens_.empty()) {
          Fail(std::string("unmatched '") + c0 + "'", pos_);
          return false;
        }
        char open = parens_.back().ch;
        char want = open == '(' ? ')' : open == '[' ? ']' : '}';
        if (want != c0) {
          if (!modes_.empty() && modes_.back().kind == ModeKind::kField &&
              parens_.size() == modes_.back().paren_level) {
            Fail(std::string("f-string: unmatched '") + c0 + "'", pos_);
          } else if (parens_.back().line != line_) {
            Fail(std::string("closing parenthesis '") + c0 +
                     "' does not match opening parenthesis '" + open + "' on line " +
                     std::to_string(parens_.back().line),
                 pos_);
          } else {
            Fail(std::string("closing parenthesis '") + c0 +
                     "' does not match opening parenthesis '" + open + "'",
                 pos_);
          }
          return false;
        }
        bool closes_field = !modes_.empty() && modes_.back().kind == ModeKind::kField &&
                            parens_.size() == modes_.back().paren_level;
        parens_.pop_back();
        if (closes_field) modes_.pop_back();
        break;
      }
      case ':':
        if (!modes_.empty() && modes_.back().kind == ModeKind::kField &&
            parens_.size() == modes_.back().paren_level) {
          EmitHere(Tok::kColon, start, start + 1);
          ++pos_;
          modes_.push_back(Mode{ModeKind::kSpec});
          return true;
        }
        if (c1 == '=') {
          t = Tok::kColonEqual, n = 2;
        } else {
          t = Tok::kColon;
        }
        break;
      case ',':
        t = Tok::kComma;
        break;
      case ';':
        t = Tok::kSemi;
        break;
      case '~':
        t = Tok::kTilde;
        break;
      case '.':
        if (c1 == '.' && c2 == '.') {
          t = Tok::kEllipsis, n = 3;
        } else {
          t = Tok::kDot;
        }
        break;
      case '+':
        t = c1 == '=' ? (n = 2, Tok::kPlusEqual) : Tok::kPlus;
        break;
      case '-':
        t = c1 == '=' ? (n = 2, Tok::kMinEqual) : c1 == '>' ? (n = 2, Tok::kRArrow) : Tok::kMinus;
        break;
      case '*':
        if (c1 == '*') {
          t = c2 == '=' ? (n = 3, Tok::kDoubleStarEqual) : (n = 2, Tok::kDoubleStar);
        } else {
          t = c1 == '=' ? (n = 2, Tok::kStarEqual) : Tok::kStar;
        }
        break;
      case '/':
        if (c1 == '/') {
          t = c2 == '=' ? (n = 3, Tok::kDoubleSlashEqual) : (n = 2, Tok::kDoubleSlash);
        } else {
          t = c1 == '=' ? (n = 2, Tok::kSlashEqual) : Tok::kSlash;
        }
        break;
      case '|':
        t = c1 == '=' ? (n = 2, Tok::kVBarEqual) : Tok::kVBar;
        break;
      case '&':
        t = c1 == '=' ? (n = 2, Tok::kAmperEqual) : Tok::kAmper;
        break;
      case '^':
        t = c1 == '=' ? (n = 2, Tok::kCircumflexEqual) : Tok::kCircumflex;
        break;
      case '%':
        t = c1 == '=' ? (n = 2, Tok::kPercentEqual) : Tok::kPercent;
        break;
      case '@':
        t = c1 == '=' ? (n = 2, Tok::kAtEqual) : Tok::kAt;
        break;
      case '=':
        t = c1 == '=' ? (n = 2, Tok::kEqEqual) : Tok::kEqual;
        break;
      case '!':
        t = c1 == '=' ? (n = 2, Tok::kNotEqual) : Tok::kExclamation;
        break;
      case '<':
        if (c1 == '<') {
          t = c2 == '=' ? (n = 3, Tok::kLeftShiftEqual) : (n = 2, Tok::kLeftShift);
        } else if (c1 == '=') {
          t = Tok::kLessEqual, n = 2;
        } else if (c1 == '>') {
          // "<>" is only valid under `from __future__ import barry_as_FLUFL`.
          Fail("invalid syntax", pos_);
          return false;
        } else {
          t = Tok::kLess;
        }
        break;
      case '>':
        if (c1 == '>') {
          t = c2 == '=' ? (n = 3, Tok::kRightShiftEqual) : (n = 2, Tok::kRightShift);
        } else {
          t = c1 == '=' ? (n = 2, Tok::kGreaterEqual) : Tok::kGreater;
        }
        break;
      default: {
        unsigned char uc = static_cast<unsigned char>(c0);
        if (uc < 0x20 || uc == 0x7F) {
          Fail("invalid non-printable character U+" + Hex(uc), pos_);
        } else if (uc == '$' || uc == '?' || uc == '`') {
          Fail("invalid syntax", pos_);  // an ERRORTOKEN the parser rejects
        } else {
          Fail(std::string("invalid character '") + c0 + "' (U+" + Hex(uc) + ")", pos_);
        }
        return false;
      }
    }
    pos_ += n;
    EmitHere(t, start, pos_);
    return true;
  }

  std::string_view s_;
  LexError* err_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  bool at_line_start_ = true;
  std::vector<std::pair<int, int>> indents_;
  std::vector<Paren> parens_;
  std::vector<Mode> modes_;
  std::vector<int> fstring_start_line_;
};

// Returns the length of a valid UTF-8 sequence at p, or 0.
int Utf8Len(const unsigned char* p, size_t avail) {
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;
  if (c < 0xE0) return avail >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
  if (c < 0xF0) {
    if (avail < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;
    if (c == 0xED && p[1] >= 0xA0) return 0;  // surrogates
    return 3;
  }
  if (c < 0xF5) {
    if (avail < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
      return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;
    if (c == 0xF4 && p[1] >= 0x90) return 0;
    return 4;
  }
  return 0;
}

// PEP 263: the encoding named in a coding comment on line 1 or 2, or "".
std::string CodingDeclaration(std::string_view s) {
  size_t line_begin = 0;
  for (int ln = 0; ln < 2 && line_begin < s.size(); ++ln) {
    size_t e = s.find('\n', line_begin);
    std::string_view line =
        s.substr(line_begin, e == std::string_view::npos ? s.npos : e - line_begin);
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f')) ++i;
    if (i >= line.size() || line[i] != '#') {
      if (i < line.size() && line[i] != '\r') return "";  // code line: no declaration after it
    } else {
      size_t k = line.find("coding", i);
      if (k != std::string_view::npos && k + 6 < line.size() &&
          (line[k + 6] == ':' || line[k + 6] == '=')) {
        size_t v = k + 7;
        while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
        size_t w = v;
        while (w < line.size() && (isalnum(static_cast<unsigned char>(line[w])) || line[w] == '-' ||
                                   line[w] == '_' || line[w] == '.'))
          ++w;
        if (w > v) return std::string(line.substr(v, w - v));
      }
    }
    if (e == std::string_view::npos) break;
    line_begin = e + 1;
  }
  return "";
}

}  // namespace

bool NormalizeSource(std::string_view raw, std::string* out, LexError* error) {
  if (raw.substr(0, 3) == "\xEF\xBB\xBF") raw.remove_prefix(3);
  std::string enc = CodingDeclaration(raw);
  for (char& c : enc)
    c = c == '_' ? '-' : static_cast<char>(tolower(static_cast<unsigned char>(c)));
  bool latin1 = false;
  if (!enc.empty() && enc != "utf-8" && enc.rfind("utf-8-", 0) != 0 && enc != "utf8") {
    if (enc == "latin-1" || enc == "iso-8859-1" || enc == "iso-latin-1" ||
        enc.rfind("latin-1-", 0) == 0 || enc.rfind("iso-8859-1-", 0) == 0 ||
        enc.rfind("iso-latin-1-", 0) == 0 || enc == "latin1" || enc == "iso8859-1") {
      latin1 = true;
    } else {
      // Any ASCII-compatible codec decodes pure ASCII the same way; other
      // content in other codecs is not supported.
      for (unsigned char c : raw) {
        if (c >= 0x80) {
          error->failed = true;
          error->line = 1;
          error->col = 0;
          error->message = "unsupported encoding: " + enc;
          return false;
        }
      }
    }
  }
  out->clear();
  out->reserve(raw.size() + 1);
  int line = 1;
  size_t line_start = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  for (size_t i = 0; i < raw.size();) {
    unsigned char c = p[i];
    if (c == 0) {
      error->failed = true;
      error->line = line;
      error->col = static_cast<int>(i - line_start);
      error->message = "source code cannot contain null bytes";
      return false;
    }
    if (c == '\r') {
      out->push_back('\n');
      i += (i + 1 < raw.size() && p[i + 1] == '\n') ? 2 : 1;
      ++line;
      line_start = i;
      continue;
    }
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (latin1) {
      out->push_back(static_cast<char>(0xC0 | (c >> 6)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
      ++i;
    } else {
      int n = Utf8Len(p + i, raw.size() - i);
      if (n == 0) {
        char buf[96];
        snprintf(buf, sizeof buf,
                 "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position %zu: "
                 "invalid start byte",
                 c, i - line_start);
        error->failed = true;
        error->line = line;
        error->col = static_cast<int>(i - line_start);
        error->message = buf;
        return false;
      }
      out->append(raw.data() + i, n);
      i += n;
    }
  }
  return true;
}

std::vector<Token> Tokenize(std::string_view source, LexError* error) {
  Lexer lexer(source, error);
  return lexer.Run();
}

}  // namespace tritonrl::pyast
