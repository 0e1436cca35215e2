#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "pyast/unicode_names.h"

namespace tritonrl::pyast {
namespace {

struct Range {
  uint32_t lo, hi;
};
constexpr Range kNonPrintable[] = {
#include "pyast/unicode_printable.inc"
};

struct NameEntry {
  const char* name;
  uint32_t cp;
};
#ifdef TRITONRL_PYAST_UNICODE_NAMES
constexpr NameEntry kNames[] = {
#include "unicode_names.inc"
};
#else
constexpr NameEntry kNames[] = {{"", 0}};
#endif

constexpr Range kCjk[] = {{0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0x20000, 0x2A6DF},
                          {0x2A700, 0x2B739}, {0x2B740, 0x2B81D}, {0x2B820, 0x2CEA1},
                          {0x2CEB0, 0x2EBE0}, {0x30000, 0x3134A}, {0x31350, 0x323AF}};

}  // namespace

bool IsPrintable(uint32_t cp) {
  if (cp >= 0x20 && cp < 0x7F) return true;
  const Range* end = kNonPrintable + sizeof(kNonPrintable) / sizeof(kNonPrintable[0]);
  const Range* it =
      std::upper_bound(kNonPrintable, end, cp, [](uint32_t v, const Range& r) { return v < r.lo; });
  if (it == kNonPrintable) return true;
  --it;
  return !(cp >= it->lo && cp <= it->hi);
}

bool LookupUnicodeName(std::string_view name, uint32_t* cp) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
  constexpr std::string_view kCjkPrefix = "CJK UNIFIED IDEOGRAPH-";
  if (upper.rfind(kCjkPrefix, 0) == 0) {
    std::string_view hex = std::string_view(upper).substr(kCjkPrefix.size());
    if (hex.size() < 4 || hex.size() > 5) return false;
    uint32_t v = 0;
    for (char c : hex) {
      if (!isxdigit(static_cast<unsigned char>(c))) return false;
      v = v * 16 +
          static_cast<uint32_t>(isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'A' + 10);
    }
    for (const Range& r : kCjk) {
      if (v >= r.lo && v <= r.hi) {
        *cp = v;
        return true;
      }
    }
    return false;
  }
  const NameEntry* end = kNames + sizeof(kNames) / sizeof(kNames[0]);
  const NameEntry* it = std::lower_bound(
      kNames, end, upper, [](const NameEntry& e, const std::string& n) { return e.name < n; });
  if (it != end && it->name == upper && !upper.empty()) {
    *cp = it->cp;
    return true;
  }
  return false;
}

}  // namespace tritonrl::pyast
