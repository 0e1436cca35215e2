#include "pyast/dump.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "pyast/unicode_names.h"

namespace tritonrl::pyast {
namespace {

void AppendHex(std::string& out, const char* prefix, uint32_t v, int width) {
  char buf[16];
  snprintf(buf, sizeof buf, "%s%0*x", prefix, width, v);
  out += buf;
}

// Python's repr(str): quotes, escapes, printable non-ASCII kept.
void StrRepr(std::string_view s, std::string& out) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char q = has_single && !has_double ? '"' : '\'';
  out.push_back(q);
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      if (c == static_cast<unsigned char>(q) || c == '\\') {
        out.push_back('\\');
        out.push_back(static_cast<char>(c));
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c < 0x20 || c == 0x7F) {
        AppendHex(out, "\\x", c, 2);
      } else {
        out.push_back(static_cast<char>(c));
      }
      continue;
    }
    int n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = c < 0xE0 ? (c & 0x1F) : c < 0xF0 ? (c & 0x0F) : (c & 0x07);
    if (i + n > s.size()) n = static_cast<int>(s.size() - i);
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    if (IsPrintable(cp)) {
      out.append(s.substr(i, n));
    } else if (cp <= 0xFF) {
      AppendHex(out, "\\x", cp, 2);
    } else if (cp <= 0xFFFF) {
      AppendHex(out, "\\u", cp, 4);
    } else {
      AppendHex(out, "\\U", cp, 8);
    }
    i += n;
  }
  out.push_back(q);
}

void BytesRepr(std::string_view s, std::string& out) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char q = has_single && !has_double ? '"' : '\'';
  out.push_back('b');
  out.push_back(q);
  for (unsigned char c : s) {
    if (c == static_cast<unsigned char>(q) || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7F) {
      AppendHex(out, "\\x", c, 2);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back(q);
}

// repr(float) (add_dot_0) or the float part of repr(complex) (no ".0").
void FloatRepr(double v, bool add_dot_0, std::string& out) {
  if (std::isinf(v)) {
    out += v > 0 ? "inf" : "-inf";
    return;
  }
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  bool neg = false;
  if (!sci.empty() && sci[0] == '-') {
    neg = true;
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp10 = std::atoi(std::string(sci.substr(e + 1)).c_str());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int decpt = exp10 + 1;  // value = 0.DIGITS * 10^decpt
  if (neg) out.push_back('-');
  if (digits == "0") {
    out += add_dot_0 ? "0.0" : "0";
    return;
  }
  if (decpt <= -4 || decpt > 16) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    int x = decpt - 1;
    char eb[16];
    snprintf(eb, sizeof eb, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
    out += eb;
    return;
  }
  if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else if (static_cast<size_t>(decpt) >= digits.size()) {
    out += digits;
    out.append(decpt - digits.size(), '0');
    if (add_dot_0) out += ".0";
  } else {
    out.append(digits, 0, decpt);
    out.push_back('.');
    out.append(digits, decpt, std::string::npos);
  }
}

class Dumper {
 public:
  Dumper(std::string& out, bool attrs) : out_(out), attrs_(attrs) {}

  void Node_(const Node* n) {
    if (n == nullptr) {
      out_ += "None";
      return;
    }
    bool saved = first_;
    out_ += KindName(n->kind);
    out_.push_back('(');
    first_ = true;
    VisitFields(const_cast<Node*>(n), *this);
    // TypeIgnore nodes only come with type_comments=True, so this list is always empty.
    if (n->kind == NodeKind::kModule) out_ += ", type_ignores=[]";
    if (attrs_ && HasPosition(n->kind)) {
      out_ += first_ ? "" : ", ";
      out_ += "lineno=" + std::to_string(n->pos.lineno) +
              ", col_offset=" + std::to_string(n->pos.col_offset) +
              ", end_lineno=" + std::to_string(n->pos.end_lineno) +
              ", end_col_offset=" + std::to_string(n->pos.end_col_offset);
    }
    out_.push_back(')');
    first_ = saved;
  }

  // Field callbacks (name=value, skipping absent optional fields).
  template <typename T>
  void operator()(const char* name, T* child) {
    if (child == nullptr) return;
    Sep(name);
    Node_(child);
  }
  template <typename T>
  void operator()(const char* name, const Span<T*>& list) {
    Sep(name);
    out_.push_back('[');
    for (uint32_t i = 0; i < list.size(); ++i) {
      if (i) out_ += ", ";
      Node_(list[i]);
    }
    out_.push_back(']');
  }
  void operator()(const char* name, const Span<Identifier>& list) {
    Sep(name);
    out_.push_back('[');
    for (uint32_t i = 0; i < list.size(); ++i) {
      if (i) out_ += ", ";
      StrRepr(list[i], out_);
    }
    out_.push_back(']');
  }
  void operator()(const char* name, const Span<CmpOpKind>& list) {
    Sep(name);
    out_.push_back('[');
    for (uint32_t i = 0; i < list.size(); ++i) {
      if (i) out_ += ", ";
      out_ += OpName(list[i]);
      out_ += "()";
    }
    out_.push_back(']');
  }
  void operator()(const char* name, Identifier id) {
    if (id.data() == nullptr || (id.empty())) return;
    Sep(name);
    StrRepr(id, out_);
  }
  void operator()(const char* name, int v) {
    Sep(name);
    out_ += std::to_string(v);
  }
  void operator()(const char* name, const ConstantValue& v) {
    Sep(name);
    AppendConstantRepr(v, out_);
  }
  template <typename E>
  std::enable_if_t<std::is_enum_v<E>> operator()(const char* name, E v) {
    Sep(name);
    out_ += OpName(v);
    out_ += "()";
  }

 private:
  void Sep(const char* name) {
    if (!first_) out_ += ", ";
    first_ = false;
    out_ += std::strcmp(name, "str_kind") == 0 ? "kind" : name;
    out_.push_back('=');
  }
  std::string& out_;
  bool attrs_;
  bool first_ = true;
};

}  // namespace

void AppendConstantRepr(const ConstantValue& v, std::string& out) {
  switch (v.kind) {
    case ConstantKind::kNone:
      out += "None";
      break;
    case ConstantKind::kTrue:
      out += "True";
      break;
    case ConstantKind::kFalse:
      out += "False";
      break;
    case ConstantKind::kEllipsis:
      out += "Ellipsis";
      break;
    case ConstantKind::kInt:
      out += v.text;
      break;
    case ConstantKind::kFloat:
      FloatRepr(v.number, true, out);
      break;
    case ConstantKind::kComplex:
      FloatRepr(v.number, false, out);
      out.push_back('j');
      break;
    case ConstantKind::kStr:
      StrRepr(v.text, out);
      break;
    case ConstantKind::kBytes:
      BytesRepr(v.text, out);
      break;
  }
}

bool HasPosition(NodeKind kind) {
  switch (kind) {
    case NodeKind::kModule:
    case NodeKind::kComprehension:
    case NodeKind::kArguments:
    case NodeKind::kWithItem:
    case NodeKind::kMatchCase:
      return false;
    default:
      return true;
  }
}

void DumpTo(const Node* node, std::string& out, bool include_attributes) {
  Dumper d(out, include_attributes);
  d.Node_(node);
}

std::string Dump(const Node* node, bool include_attributes) {
  std::string out;
  DumpTo(node, out, include_attributes);
  return out;
}

}  // namespace tritonrl::pyast
