// The torch allowlist shared with the runtime ATen audit (allowlist.json beside this header).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "base/status.h"

namespace tritonrl::verify {

// A set of names that string_views can be looked up in without building a std::string.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using NameSet = std::unordered_set<std::string, NameHash, std::equal_to<>>;

struct Allowlist {
  NameSet torch_functions;         // "torch.empty", "torch.float32", ...
  NameSet tensor_methods;          // "view", "contiguous", ...
  NameSet tensor_compute_methods;  // "sum", "softmax", ...
  NameSet modules;                 // "torch", "math", ...
  NameSet triton_names;  // "triton.jit", "triton.language", ...: all of triton a file may use
  NameSet aten_ops;      // "aten::empty", ...
};

// Parses the JSON format of allowlist.json; names the missing or malformed key on error.
Result<Allowlist> ParseAllowlist(std::string_view json_text);

// The allowlist compiled into the binary from src/verify/allowlist.json (parsed once, immutable).
const Allowlist& BuiltinAllowlist();
// Its JSON text, e.g. to hand to the runtime audit.
std::string_view BuiltinAllowlistJson();

}  // namespace tritonrl::verify
