// The torch allowlist shared with the runtime ATen audit (allowlist.json beside this header).
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

#include "base/status.h"

namespace tritonrl::verify {

struct Allowlist {
  std::unordered_set<std::string> torch_functions;         // "torch.empty", "torch.float32", ...
  std::unordered_set<std::string> tensor_methods;          // "view", "contiguous", ...
  std::unordered_set<std::string> tensor_compute_methods;  // "sum", "softmax", ...
  std::unordered_set<std::string> modules;                 // "torch", "math", ...
  std::unordered_set<std::string> aten_ops;                // "aten::empty", ...
};

// Parses the JSON format of allowlist.json; names the missing or malformed key on error.
Result<Allowlist> ParseAllowlist(std::string_view json_text);

// The allowlist compiled into the binary from src/verify/allowlist.json (parsed once, immutable).
const Allowlist& BuiltinAllowlist();
// Its JSON text, e.g. to hand to the runtime audit.
std::string_view BuiltinAllowlistJson();

}  // namespace tritonrl::verify
