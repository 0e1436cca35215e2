// Unicode properties pyast needs: printability (for repr) and character
// names (for \N{...} escapes).
#pragma once

#include <cstdint>
#include <string_view>

namespace tritonrl::pyast {

// Python's str.isprintable() for one code point (Unicode 15.0, as CPython 3.12).
bool IsPrintable(uint32_t cp);

// \N{name} lookup: case-insensitive, algorithmic CJK/Hangul names included.
// Returns false for an unknown name (or when built without the name table).
bool LookupUnicodeName(std::string_view name, uint32_t* cp);

}  // namespace tritonrl::pyast
