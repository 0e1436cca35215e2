// State and control on reachable functions: global statements and writes to module or class
// state, instance attributes written outside __init__, try/except on the kernel path, the
// reference model reached; then torch compute over the same function.
#include <string>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_rules.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;  // NOLINT: the AST vocabulary is used everywhere here

// One assignment or deletion target of fn: self.x outside __init__ (func.instance_state), a name
// declared global, or an element or attribute of a class, module variable or global
// (func.global_state).
void CheckStoreTarget(Analysis& a, Node* t, Node* fn, const NameSetView& local_names,
                      const NameSetView& globals_declared) {
  Node* base = t;
  while (base->kind == NodeKind::kSubscript || base->kind == NodeKind::kAttribute) {
    if (auto* attr = As<Attribute>(base)) {
      auto* self = As<Name>(attr->value);
      if (self != nullptr && self->id == "self") {
        if (ViewFn(fn).name != "__init__") {
          a.Add("func.instance_state", t, "self." + std::string(attr->attr));
        }
        return;
      }
      base = attr->value;
    } else {
      base = As<Subscript>(base)->value;
    }
  }
  auto* name = As<Name>(base);
  if (name == nullptr) return;
  if (t == base) {
    if (globals_declared.count(name->id)) a.Add("func.global_state", t, std::string(name->id));
    return;
  }
  if (a.bind.classes.count(name->id) ||
      (a.bind.module_vars.count(name->id) && !local_names.count(name->id)) ||
      globals_declared.count(name->id)) {
    a.Add("func.global_state", t, std::string(name->id));
  }
}

}  // namespace

void CheckReachableFn(Analysis& a, Node* fn, ClassDef* owner) {
  const Scope& scope = a.look.LocalScope(fn);
  NameSetView local_names;
  NameSetView globals_declared;
  WalkAll(fn, [&](Node* n) {
    if (auto* name = As<Name>(n); name != nullptr && name->ctx == ExprContext::kStore) {
      local_names.insert(name->id);
    } else if (auto* arg = As<Arg>(n)) {
      local_names.insert(arg->arg);
    }
  });
  auto store = [&](Node* t) { CheckStoreTarget(a, t, fn, local_names, globals_declared); };
  WalkAll(fn, [&](Node* n) {
    if (auto* g = As<Global>(n)) {
      for (Identifier id : g->names) globals_declared.insert(id);
      a.Add("func.global_state", n, "global statement");
    }
    if (n->kind == NodeKind::kTry || n->kind == NodeKind::kTryStar) {
      a.Add("func.try_except", n);
      a.on_path_try.insert(n);
    }
    if (auto* assign = As<Assign>(n)) {
      for (ExprNode* t : assign->targets) store(t);
    } else if (auto* aug = As<AugAssign>(n)) {
      store(aug->target);
    } else if (auto* ann = As<AnnAssign>(n)) {
      store(ann->target);
    } else if (auto* del = As<Delete>(n)) {
      for (ExprNode* t : del->targets) store(t);
    }
    if (a.bind.IsReferenceRef(n, &scope)) a.Add("func.reference_model", n, "forward reaches Model");
  });
  CheckCompute(a, fn, fn, owner, scope, /*kernel=*/false, /*calls=*/true);
}

}  // namespace tritonrl::verify::analyzer
