// Rules on the whole file, reachable or not: one walk that runs every per-node check in a fixed
// order, then the banned imports (reported even when unused).
#include <string>
#include <string_view>
#include <vector>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_binding.h"
#include "verify/analyzer_names.h"
#include "verify/analyzer_rules.h"
#include "verify/analyzer_tables.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;            // NOLINT: the AST vocabulary is used everywhere here
using namespace analyzer_tables;  // NOLINT: the tables are this file's vocabulary

// try/except off the kernel path (func.try_except_outside) and async constructs.
void CheckTryAndAsync(Analysis& a, Node* node) {
  if ((node->kind == NodeKind::kTry || node->kind == NodeKind::kTryStar) &&
      !a.on_path_try.count(node)) {
    a.Add("func.try_except_outside", node);
  }
  switch (node->kind) {
    case NodeKind::kAsyncFunctionDef:
    case NodeKind::kAwait:
    case NodeKind::kAsyncFor:
    case NodeKind::kAsyncWith:
      a.Add("func.concurrency", node, "async");
      break;
    default:
      break;
  }
}

// A class with a Tensor base, or a __torch_function__ / __torch_dispatch__ override.
void CheckTensorSubclass(Analysis& a, Node* node) {
  if (auto* cls = As<ClassDef>(node)) {
    for (ExprNode* b : cls->bases) {
      std::string q = a.bind.Resolve(b);
      if (Contains(kTensorBases, q)) a.Add("func.tensor_subclass", b, q);
    }
  }
  if (IsFunctionDef(node)) {
    Identifier name = ViewFn(node).name;
    if (name == "__torch_function__" || name == "__torch_dispatch__") {
      a.Add("func.tensor_subclass", node, std::string(name));
    }
  }
}

// Dunder and frame attributes (func.introspection; the torch overrides are func.tensor_subclass).
void CheckAttributeName(Analysis& a, Node* node) {
  auto* attr = As<Attribute>(node);
  if (attr == nullptr) return;
  if (IsDunder(attr->attr) && !Contains(kAllowedDunders, attr->attr)) {
    if (attr->attr == "__torch_function__" || attr->attr == "__torch_dispatch__") {
      a.Add("func.tensor_subclass", node, std::string(attr->attr));
    } else {
      a.Add("func.introspection", node, std::string(attr->attr));
    }
  } else if (Contains(kFrameAttrs, attr->attr)) {
    a.Add("func.introspection", node, std::string(attr->attr));
  }
}

// A builtin with a rule of its own (exec, open, globals, ...) not shadowed by the file, and
// __builtins__.
void CheckBuiltinName(Analysis& a, Node* node) {
  auto* name = As<Name>(node);
  if (name == nullptr || name->ctx != ExprContext::kLoad) return;
  for (const BuiltinRule& b : kBuiltinRules) {
    if (b.name == name->id && !a.bind.functions.count(name->id) &&
        !a.bind.imports.count(name->id)) {
      a.Add(b.rule, node, std::string(name->id));
    }
  }
  if (name->id == "__builtins__") a.Add("func.introspection", node, "__builtins__");
}

// getattr/setattr/delattr/hasattr with a computed or dunder name (func.dynamic_attr), or
// setattr/delattr on an imported value (func.monkeypatch).
void CheckAttrBuiltinCall(Analysis& a, Node* node) {
  auto* call = As<Call>(node);
  if (call == nullptr) return;
  auto* fname = As<Name>(call->func);
  if (fname == nullptr || !Contains(kAttrBuiltins, fname->id)) return;
  const ConstantValue* s = call->args.size() >= 2 ? StrConstant(call->args[1]) : nullptr;
  if (s == nullptr || IsDunder(s->text)) {
    a.Add("func.dynamic_attr", node, std::string(fname->id));
  } else if ((fname->id == "setattr" || fname->id == "delattr") &&
             !a.bind.Resolve(call->args[0]).empty()) {
    a.Add("func.monkeypatch", node, std::string(fname->id));
  }
}

// Attributes written or deleted on an imported value: torch flags (func.global_flags), anything
// else (func.monkeypatch).
void CheckStoreTargets(Analysis& a, Node* node) {
  auto check_targets = [&](ExprNode* t) {
    WalkAll(t, [&](Node* sub) {
      auto* attr = As<Attribute>(sub);
      if (attr == nullptr || attr->ctx == ExprContext::kLoad) return;
      std::string q = a.bind.Resolve(sub);
      if (StartsWith(q, "torch.backends") || StartsWith(q, "torch.set_")) {
        a.Add("func.global_flags", sub, q);
      } else if (!a.bind.Resolve(attr->value).empty()) {
        a.Add("func.monkeypatch", sub, q);
      }
    });
  };
  if (auto* assign = As<Assign>(node)) {
    for (ExprNode* t : assign->targets) check_targets(t);
  } else if (auto* aug = As<AugAssign>(node)) {
    check_targets(aug->target);
  } else if (auto* ann = As<AnnAssign>(node)) {
    check_targets(ann->target);
  } else if (auto* del = As<Delete>(node)) {
    for (ExprNode* t : del->targets) check_targets(t);
  }
}

// A whole reference (not a prefix of a longer attribute chain) to a banned name, or to a module
// outside the allowlist (inside the reference copies, only below triton).
void CheckQualifiedRef(Analysis& a, Node* node, Node* parent) {
  if (!IsLoadRef(node)) return;
  if (parent != nullptr && parent->kind == NodeKind::kAttribute) return;
  std::string q = a.bind.Resolve(node);
  if (q.empty()) return;
  std::string_view rule = BannedRule(q);
  if (!rule.empty()) {
    a.Add(rule, node, q);
  } else if ((!a.bind.skip_nodes.count(node) || RootedAt(q, "triton")) &&
             !ModuleAllowed(a.allow, q)) {
    a.Add("func.module_not_allowed", node, q);
  }
}

// Imports of modules whose import alone has effects (kImportRules), used or not.
void CheckBannedImports(Analysis& a) {
  WalkAll(a.mod, [&](Node* node) {
    std::vector<std::string> names;
    if (auto* imp = As<Import>(node)) {
      for (Alias* alias : imp->names) names.push_back(Canonical(alias->name));
    } else if (auto* from = As<ImportFrom>(node)) {
      if (from->module.empty()) return;
      for (Alias* alias : from->names) {
        names.push_back(Canonical(std::string(from->module) + "." + std::string(alias->name)));
      }
    } else {
      return;
    }
    for (const std::string& q : names) {
      std::string_view rule = BannedRule(q);
      if (!rule.empty() && Contains(kImportRules, rule)) a.Add(rule, node, q);
    }
  });
}

}  // namespace

void CheckFileWide(Analysis& a) {
  auto visit = [&](Node* node, Node* parent) {
    CheckTryAndAsync(a, node);
    CheckTensorSubclass(a, node);
    CheckAttributeName(a, node);
    CheckBuiltinName(a, node);
    CheckAttrBuiltinCall(a, node);
    CheckStoreTargets(a, node);
    CheckQualifiedRef(a, node, parent);
  };
  WalkWithParent(a.mod, nullptr, visit);
  CheckBannedImports(a);
}

}  // namespace tritonrl::verify::analyzer
