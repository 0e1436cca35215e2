// One analysis of one module: the state the rule families share, and the findings they append.
// The names are bound when it is built; after that the passes (analyzer.cpp, in order) read the
// bindings, fill the lookup caches and the reachability state, and append findings, whose order is
// part of the result (the caller de-duplicates on it). One per AnalyzeModule call, one thread; it
// shares nothing but the read-only allowlist. Internal to the analyzer_*.cpp files.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "pyast/ast.h"
#include "verify/allowlist.h"
#include "verify/analyzer.h"
#include "verify/analyzer_binding.h"
#include "verify/analyzer_lookup.h"

namespace tritonrl::verify::analyzer {

// What reachability has walked so far (analyzer_reach.h): both of its walks, forward's and the
// import-time one, share it, so the second skips what the first reached.
struct ReachState {
  std::unordered_set<const pyast::Node*> seen;       // functions entered
  std::vector<FnRef> fns;                            // non-kernel functions reached, in order
  std::unordered_set<const pyast::Node*> held_seen;  // held values checked
};

struct Analysis {
  Analysis(pyast::Module* module, const Allowlist& allowlist)
      : mod(module), allow(allowlist), look(bind) {
    BindModule(module, &bind);
  }
  Analysis(const Analysis&) = delete;
  Analysis& operator=(const Analysis&) = delete;

  // Appends a finding at node's position (none for the module or a node without one).
  void Add(std::string_view rule, const pyast::Node* node, std::string detail = "");

  pyast::Module* mod;
  const Allowlist& allow;
  Bindings bind;
  Lookups look;
  ReachState reach;
  std::unordered_set<const pyast::Node*> on_path_try;  // try statements on the kernel path
  std::vector<RawFinding> findings;
};

}  // namespace tritonrl::verify::analyzer
