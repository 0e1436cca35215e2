// The candidate subset: a positive model of the Python a candidate may write (docs/rules.md, "The
// candidate subset"), decided on the syntax tree before anything runs. Where the functionality
// rules (analyzer.h) name what is forbidden, these rules accept only what the subset names:
// listed imports and module members, listed builtins, plain classes and nn.Modules that override
// nothing the evaluator calls, no reflection, no frames or closures, no formatting outside error
// messages. Internal to the verify module; thread-safe (no state outside the call).
#pragma once

#include <vector>

#include "pyast/ast.h"
#include "verify/analyzer.h"

namespace tritonrl::verify {

// Findings of the subset rules (`func.subset_*`), for the caller to decide like AnalyzeModule's.
std::vector<RawFinding> CheckCandidateSubset(pyast::Module* module);

// The free-name rule alone (subset_names.cpp): a name no scope binds must be an allowed builtin,
// and no module or class body may rebind a builtin or an interpreter-injected name.
void CheckSubsetNames(pyast::Module* module, std::vector<RawFinding>* findings);

// The host-compute rule alone (subset_host_compute.cpp): values that change from one loop
// iteration to the next are combined only by bookkeeping, and a recurrence only adds.
void CheckHostCompute(pyast::Module* module, std::vector<RawFinding>* findings);

// `if __name__ == "__main__":`, which never runs when the evaluator imports the file: the subset
// rules skip its body.
bool IsMainGuardStmt(const pyast::Node* node);

}  // namespace tritonrl::verify
