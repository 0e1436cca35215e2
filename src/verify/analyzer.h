// The rule engine over a parsed module (internal to the verify module; verify.h is the API).
#pragma once

#include <string>
#include <vector>

#include "pyast/ast.h"
#include "verify/allowlist.h"

namespace tritonrl::verify {

struct RawFinding {
  std::string rule;
  std::string detail;
  int line = 0;  // 0: the whole file
  int col = 0;
};

// Runs every rule; the caller applies the policy, de-duplicates and sorts.
std::vector<RawFinding> AnalyzeModule(pyast::Module* module, const Allowlist& allow);

}  // namespace tritonrl::verify
