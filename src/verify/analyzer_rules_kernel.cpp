// Kernel shapes: a kernel that only copies or fills memory (func.copy_only_kernel, a warning):
// every tl.store writes a loaded, constant or converted value, and nothing else does work.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_rules.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;  // NOLINT: the AST vocabulary is used everywhere here

using Defs = std::unordered_map<std::string_view, std::vector<Node*>>;

// v is a constant, tl.load/zeros/full/zeros_like, x.to(...) of one, or a name every definition of
// which is one (an augmented assignment is work).
bool IsCopyValue(const Bindings& b, const Node* v, const Defs& defs, const Scope& scope,
                 int depth) {
  if (depth > 8) return false;
  if (v->kind == NodeKind::kConstant) return true;
  if (auto* call = As<Call>(v)) {
    std::string q = b.Resolve(call->func, &scope);
    if (q == "triton.language.load" || q == "triton.language.zeros" ||
        q == "triton.language.full" || q == "triton.language.zeros_like") {
      return true;
    }
    if (auto* attr = As<Attribute>(call->func); attr != nullptr && attr->attr == "to") {
      return IsCopyValue(b, attr->value, defs, scope, depth + 1);
    }
    return false;
  }
  if (auto* name = As<Name>(v)) {
    auto it = defs.find(name->id);
    if (it == defs.end()) return false;
    for (const Node* d : it->second) {
      if (d->kind == NodeKind::kAugAssign || !IsCopyValue(b, d, defs, scope, depth + 1)) {
        return false;
      }
    }
    return true;
  }
  return false;
}

// One kernel: true when it stores and every store is a copy value, with no dot, atomic or call of
// another kernel.
bool IsCopyOnly(const Bindings& b, Node* fn, const Scope& scope) {
  Defs defs;
  std::vector<Node*> stores;
  bool other_work = false;
  WalkAll(fn, [&](Node* n) {
    if (auto* assign = As<Assign>(n)) {
      if (assign->targets.size() == 1) {
        if (auto* t = As<Name>(assign->targets[0])) defs[t->id].push_back(assign->value);
      }
    } else if (auto* aug = As<AugAssign>(n)) {
      if (auto* t = As<Name>(aug->target)) defs[t->id].push_back(n);
    } else if (auto* call = As<Call>(n)) {
      std::string q = b.Resolve(call->func, &scope);
      if (q == "triton.language.store" && call->args.size() >= 2) {
        stores.push_back(call->args[1]);
      } else if (StartsWith(q, "triton.language.atomic") || q == "triton.language.dot") {
        other_work = true;
      } else if (auto* fname = As<Name>(call->func);
                 fname != nullptr && b.kernels.count(fname->id)) {
        other_work = true;
      }
    }
  });
  if (stores.empty() || other_work) return false;
  bool all_copy = true;
  for (Node* v : stores) all_copy = all_copy && IsCopyValue(b, v, defs, scope, 0);
  return all_copy;
}

}  // namespace

void CheckKernelShapes(Analysis& a) {
  for (const auto& [name, fn] : a.bind.kernel_defs) {
    if (IsCopyOnly(a.bind, fn, a.look.LocalScope(fn))) {
      a.Add("func.copy_only_kernel", fn, std::string(name));
    }
  }
}

}  // namespace tritonrl::verify::analyzer
