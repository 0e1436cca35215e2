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

// A finding at node's position (line 0, the whole file, for the module or a node without one).
RawFinding FindingAt(std::string_view rule, const pyast::Node* node, std::string detail);

// Runs every rule; the caller applies the policy, de-duplicates and sorts.
std::vector<RawFinding> AnalyzeModule(pyast::Module* module, const Allowlist& allow);

}  // namespace tritonrl::verify
