#include "verify/analyzer_names.h"

#include <unordered_map>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_tables.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace analyzer_tables;  // NOLINT: the tables are this file's vocabulary

// q or one of its dotted prefixes is in the set.
bool InNameSet(const NameSet& set, std::string_view q) {
  size_t end = q.size();
  while (true) {
    if (set.count(q.substr(0, end))) return true;
    size_t dot = q.rfind('.', end - 1);
    if (dot == std::string_view::npos || dot == 0) return false;
    end = dot;
  }
}

}  // namespace

std::string_view BannedRule(std::string_view q) {
  static const auto* const kByPrefix = [] {
    auto* m = new std::unordered_map<std::string_view, std::string_view>();
    for (const Prefix& p : kBannedPrefixes) m->emplace(p.prefix, p.rule);
    return m;
  }();
  for (size_t end = q.find('.');; end = q.find('.', end + 1)) {
    auto it = kByPrefix->find(q.substr(0, end));
    if (it != kByPrefix->end()) return it->second;
    if (end == std::string_view::npos) break;
  }
  for (const Prefix& p : kBannedPrefixes) {
    if (p.prefix.back() == '_' && StartsWith(q, p.prefix)) return p.rule;
  }
  return {};
}

bool TorchBanned(const Allowlist& allow, std::string_view q) {
  if (allow.torch_functions.count(q)) return false;
  // A direct member of an allowed class or value (torch.Size.numel, torch.float32.itemsize) is
  // allowed unless it computes: torch.Tensor.add(a, b) is a + b.
  size_t dot = q.rfind('.');
  if (dot == std::string_view::npos) return true;
  std::string_view prefix = q.substr(0, dot);
  std::string_view member = q.substr(dot + 1);
  if (!allow.torch_functions.count(prefix)) return true;
  if (allow.tensor_methods.count(member)) return false;
  if (Contains(kTensorClasses, prefix)) return true;
  return allow.tensor_compute_methods.count(member) > 0 ||
         Contains(kCollidingComputeMethods, member);
}

bool ModuleAllowed(const Allowlist& allow, std::string_view q) {
  if (RootedAt(q, "triton")) return q == "triton" || InNameSet(allow.triton_names, q);
  return InNameSet(allow.modules, q);
}

}  // namespace tritonrl::verify::analyzer
