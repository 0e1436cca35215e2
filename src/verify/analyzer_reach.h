// Reachability: which functions run, from forward or at import time. Traverse follows calls,
// methods, classes, lambdas and the callables held in self attributes that reachable code reads,
// entering each function once per analysis (Analysis::reach); it records the non-kernel functions
// for the rules on reachable code, gathers launch facts when asked, and checks the torch
// references in held values as it meets them (CheckCompute), so those findings come in walk order.
// A kernel body is not a function to check here, but the Python functions it calls are reached.
// Internal to the analyzer_*.cpp files.
#pragma once

#include <vector>

#include "pyast/ast.h"
#include "verify/analyzer_context.h"
#include "verify/analyzer_launch.h"
#include "verify/analyzer_lookup.h"

namespace tritonrl::verify::analyzer {

// Walks everything reachable from `work`, appending to a.reach.fns; adds launch facts when `facts`
// is not null.
void Traverse(Analysis& a, std::vector<FnRef> work, LaunchFacts* facts);

// The import-time roots (module and class bodies, decorators, default arguments; not the main
// guard's block), kernel bodies and launch hooks: checks them for compute, then traverses from the
// functions they reach or hand to Triton.
void ReachFromImportTime(Analysis& a);

}  // namespace tritonrl::verify::analyzer
