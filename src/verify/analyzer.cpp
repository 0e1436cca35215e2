// The rule engine's entry point. One Analysis per call: it owns every table it builds, so
// concurrent calls share nothing but the read-only allowlist. bench/verify/pyverify.py is the same
// algorithm over Python's `ast` (tests/python/test_verify_parity.py keeps the two in step).
//
// Where things live: analyzer_tables.h (name tables and word lists), analyzer_ast.h (syntax
// shapes), analyzer_binding.* (what names denote), analyzer_names.* (verdicts on a qualified
// name), analyzer_lookup.* (scopes, class chains, call targets), analyzer_launch.* (kernel values
// and launches), analyzer_reach.* (reachability), analyzer_context.h (the shared state) and
// analyzer_rules.h with one analyzer_rules_<family>.cpp per rule family.
#include "verify/analyzer.h"

#include <utility>

#include "verify/analyzer_context.h"
#include "verify/analyzer_rules.h"

namespace tritonrl::verify {
RawFinding FindingAt(std::string_view rule, const pyast::Node* node, std::string detail) {
  RawFinding f;
  f.rule = rule;
  f.detail = std::move(detail);
  if (node != nullptr && node->kind != pyast::NodeKind::kModule && node->pos.lineno > 0) {
    f.line = node->pos.lineno;
    f.col = node->pos.col_offset + 1;
  }
  return f;
}

namespace analyzer {

void Analysis::Add(std::string_view rule, const pyast::Node* node, std::string detail) {
  findings.push_back(FindingAt(rule, node, std::move(detail)));
}

}  // namespace analyzer

std::vector<RawFinding> AnalyzeModule(pyast::Module* module, const Allowlist& allow) {
  analyzer::Analysis a(module, allow);  // binds the file's names
  // The passes, in this order: each reads what the ones before it recorded (reachability state,
  // the try statements on the kernel path), and the findings keep their order.
  analyzer::CheckModelNew(a);
  analyzer::CheckReachableCode(a);
  analyzer::CheckFileWide(a);
  analyzer::CheckKernelShapes(a);
  return std::move(a.findings);
}

}  // namespace tritonrl::verify
