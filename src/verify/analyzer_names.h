// Verdicts on one resolved qualified name (Bindings::Resolve's result): the rule that bans it, and
// whether the allowlist lets it through as a torch function or as a module. Pure functions of the
// name, the tables and the read-only allowlist. Internal to the analyzer_*.cpp files.
#pragma once

#include <string_view>

#include "verify/allowlist.h"

namespace tritonrl::verify::analyzer {

// The rule banning q or one of its dotted prefixes (torch.cuda.Stream bans torch.cuda.Stream.x);
// prefixes ending in '_' (torch.set_) match any continuation. Empty when none does.
std::string_view BannedRule(std::string_view q);

// A torch.* name outside the allowlist; a direct member of an allowed class or value
// (torch.Size.numel, torch.float32.itemsize) is allowed unless it computes.
bool TorchBanned(const Allowlist& allow, std::string_view q);

// Modules by subtree; below triton only the names a kernel author needs (triton_names).
bool ModuleAllowed(const Allowlist& allow, std::string_view q);

}  // namespace tritonrl::verify::analyzer
