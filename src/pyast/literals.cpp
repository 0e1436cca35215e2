#include "pyast/literals.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "pyast/unicode_names.h"

namespace tritonrl::pyast {

StringPrefix ParsePrefix(std::string_view t) {
  StringPrefix p;
  size_t i = 0;
  for (; i < t.size() && t[i] != '\'' && t[i] != '"'; ++i) {
    switch (t[i] | 0x20) {
      case 'r':
        p.raw = true;
        break;
      case 'b':
        p.bytes = true;
        break;
      case 'u':
        p.u = true;
        break;
      case 'f':
        p.f = true;
        break;
      default:
        break;
    }
  }
  p.length = i;
  return p;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

namespace {

int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string CodecError(bool bytes, size_t from, size_t to, const char* what) {
  return std::string("(unicode error) '") + (bytes ? "unicodeescape" : "unicodeescape") +
         "' codec can't decode bytes in position " + std::to_string(from) + "-" +
         std::to_string(to) + ": " + what;
}

// Decodes escapes in body (non-raw). braces: "{{"/"}}" collapse (f-strings).
bool DecodeBody(std::string_view b, bool bytes, bool braces, std::string* out, std::string* error) {
  for (size_t i = 0; i < b.size();) {
    char c = b[i];
    if (braces && (c == '{' || c == '}') && i + 1 < b.size() && b[i + 1] == c) {
      out->push_back(c);
      i += 2;
      continue;
    }
    if (c != '\\') {
      if (bytes && static_cast<unsigned char>(c) >= 0x80) {
        *error = "bytes can only contain ASCII literal characters";
        return false;
      }
      out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= b.size()) {
      if (braces) {  // "\" just before a replacement field
        out->push_back('\\');
        ++i;
        continue;
      }
      *error = CodecError(bytes, i, i, "\\ at end of string");
      return false;
    }
    char e = b[i + 1];
    size_t start = i;
    i += 2;
    switch (e) {
      case '\n':
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '\'':
        out->push_back('\'');
        break;
      case '"':
        out->push_back('"');
        break;
      case 'a':
        out->push_back('\a');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'v':
        out->push_back('\v');
        break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        uint32_t v = e - '0';
        for (int k = 0; k < 2 && i < b.size() && b[i] >= '0' && b[i] <= '7'; ++k, ++i) {
          v = v * 8 + (b[i] - '0');
        }
        if (bytes) {
          out->push_back(static_cast<char>(v & 0xFF));
        } else {
          AppendUtf8(v, out);
        }
        break;
      }
      case 'x': {
        int h1 = i < b.size() ? HexVal(b[i]) : -1;
        int h2 = i + 1 < b.size() ? HexVal(b[i + 1]) : -1;
        if (h1 < 0 || h2 < 0) {
          *error = bytes
                       ? "(value error) invalid \\x escape at position " + std::to_string(start)
                       : CodecError(bytes, start, start + 1 + (h1 >= 0), "truncated \\xXX escape");
          return false;
        }
        uint32_t v = static_cast<uint32_t>(h1 * 16 + h2);
        i += 2;
        if (bytes) {
          out->push_back(static_cast<char>(v));
        } else {
          AppendUtf8(v, out);
        }
        break;
      }
      case 'u':
      case 'U':
        if (!bytes) {
          int n = e == 'u' ? 4 : 8;
          uint32_t v = 0;
          for (int k = 0; k < n; ++k) {
            int h = i + k < b.size() ? HexVal(b[i + k]) : -1;
            if (h < 0) {
              *error = CodecError(
                  bytes, start, start + 1 + k,
                  e == 'u' ? "truncated \\uXXXX escape" : "truncated \\UXXXXXXXX escape");
              return false;
            }
            v = v * 16 + static_cast<uint32_t>(h);
          }
          if (v > 0x10FFFF) {
            *error = CodecError(bytes, start, start + 9, "illegal Unicode character");
            return false;
          }
          i += n;
          AppendUtf8(v, out);
          break;
        }
        out->push_back('\\');
        out->push_back(e);
        break;
      case 'N':
        if (!bytes) {
          uint32_t cp = 0;
          size_t close = i < b.size() && b[i] == '{' ? b.find('}', i) : std::string_view::npos;
          if (close == std::string_view::npos ||
              !LookupUnicodeName(b.substr(i + 1, close - i - 1), &cp)) {
            *error = CodecError(bytes, start, close == std::string_view::npos ? start + 1 : close,
                                close == std::string_view::npos ? "malformed \\N character escape"
                                                                : "unknown Unicode character name");
            return false;
          }
          AppendUtf8(cp, out);
          i = close + 1;
          break;
        }
        out->push_back('\\');
        out->push_back(e);
        break;
      default:
        // Invalid escapes are kept verbatim (a warning in CPython).
        out->push_back('\\');
        if (bytes && static_cast<unsigned char>(e) >= 0x80) {
          *error = "bytes can only contain ASCII literal characters";
          return false;
        }
        out->push_back(e);
        break;
    }
  }
  return true;
}

}  // namespace

bool DecodeStringLiteral(std::string_view t, const StringPrefix& pre, std::string* out,
                         std::string* error) {
  std::string_view rest = t.substr(pre.length);
  char q = rest[0];
  size_t ql = rest.size() >= 6 && rest[1] == q && rest[2] == q ? 3 : 1;
  std::string_view body = rest.substr(ql, rest.size() - 2 * ql);
  if (pre.raw) {
    if (pre.bytes) {
      for (char c : body) {
        if (static_cast<unsigned char>(c) >= 0x80) {
          *error = "bytes can only contain ASCII literal characters";
          return false;
        }
      }
    }
    out->append(body);
    return true;
  }
  return DecodeBody(body, pre.bytes, false, out, error);
}

bool DecodeFStringMiddle(std::string_view text, bool raw, std::string* out, std::string* error) {
  if (raw) {
    for (size_t i = 0; i < text.size(); ++i) {
      out->push_back(text[i]);
      if ((text[i] == '{' || text[i] == '}') && i + 1 < text.size() && text[i + 1] == text[i]) ++i;
    }
    return true;
  }
  return DecodeBody(text, false, true, out, error);
}

namespace {

// Decimal text of a number given as digits in base 2, 8 or 16.
std::string RadixToDecimal(std::string_view digits, int base) {
  std::vector<uint32_t> limbs;  // base 1e9, little endian
  for (char c : digits) {
    int d = HexVal(c);
    uint64_t carry = static_cast<uint64_t>(d);
    for (uint32_t& l : limbs) {
      uint64_t v = static_cast<uint64_t>(l) * base + carry;
      l = static_cast<uint32_t>(v % 1000000000);
      carry = v / 1000000000;
    }
    while (carry) {
      limbs.push_back(static_cast<uint32_t>(carry % 1000000000));
      carry /= 1000000000;
    }
  }
  if (limbs.empty()) return "0";
  std::string s = std::to_string(limbs.back());
  char buf[16];
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    snprintf(buf, sizeof buf, "%09u", limbs[i]);
    s += buf;
  }
  return s;
}

}  // namespace

bool DecodeNumber(std::string_view text, Arena& arena, ConstantValue* out) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c != '_') clean.push_back(c);
  }
  if (clean.empty()) return false;
  if (clean.size() > 2 && clean[0] == '0' && std::strchr("xXoObB", clean[1])) {
    int base = (clean[1] | 0x20) == 'x' ? 16 : (clean[1] | 0x20) == 'o' ? 8 : 2;
    out->kind = ConstantKind::kInt;
    out->text = arena.CopyString(RadixToDecimal(std::string_view(clean).substr(2), base));
    return true;
  }
  char last = clean.back();
  if (last == 'j' || last == 'J') {
    clean.pop_back();
    out->kind = ConstantKind::kComplex;
    out->number = std::strtod(clean.c_str(), nullptr);
    return true;
  }
  if (clean.find_first_of(".eE") != std::string::npos) {
    out->kind = ConstantKind::kFloat;
    out->number = std::strtod(clean.c_str(), nullptr);
    return true;
  }
  size_t nz = clean.find_first_not_of('0');
  out->kind = ConstantKind::kInt;
  out->text = nz == std::string::npos ? std::string_view("0") : arena.CopyString(clean.substr(nz));
  return true;
}

}  // namespace tritonrl::pyast
