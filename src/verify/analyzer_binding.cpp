#include "verify/analyzer_binding.h"

#include "verify/analyzer_ast.h"
#include "verify/analyzer_tables.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;            // NOLINT: the AST vocabulary is used everywhere here
using namespace analyzer_tables;  // NOLINT: the tables are this file's vocabulary

void AddModuleVars(Node* target, Bindings* b) {
  WalkAll(target, [&](Node* n) {
    if (auto* name = As<Name>(n)) b->module_vars.insert(name->id);
  });
}

void AddKernel(std::string_view name, Node* fn, Bindings* b) {
  if (b->kernel_nodes.insert(fn).second) b->kernel_defs.emplace_back(ViewFn(fn).name, fn);
  if (!name.empty()) b->kernels[name] = fn;
}

// Imports, the reference model imported from the task module, and every name bound anywhere.
void BindNames(Module* mod, Bindings* b) {
  WalkAll(mod, [&](Node* n) {
    if (n->kind == NodeKind::kImport || n->kind == NodeKind::kImportFrom) {
      BindImport(n, &b->imports);
      if (auto* from = As<ImportFrom>(n)) {
        // The reference model imported from the task module, under any name.
        std::string_view root = from->module.substr(0, from->module.find('.'));
        for (Alias* a : from->names) {
          if (a->name == "Model" && root != "torch" && root != "triton") {
            b->reference_names.insert(a->asname.empty() ? a->name : a->asname);
          }
        }
      }
    }
    if (auto* name = As<Name>(n); name != nullptr && name->ctx != ExprContext::kLoad) {
      b->bound_names.insert(name->id);
    } else if (auto* arg = As<Arg>(n)) {
      b->bound_names.insert(arg->arg);
    } else if (IsFunctionDef(n)) {
      b->bound_names.insert(ViewFn(n).name);
    } else if (auto* cls = As<ClassDef>(n)) {
      b->bound_names.insert(cls->name);
    } else if (auto* h = As<ExceptHandler>(n); h != nullptr && !h->name.empty()) {
      b->bound_names.insert(h->name);
    }
  });
  for (const auto& [name, q] : b->imports) b->bound_names.insert(name);
}

// Module-level functions (defs and lambdas), classes and assignments.
void BindTopLevel(Module* mod, Bindings* b) {
  for (StmtNode* stmt : mod->body) {
    if (IsFunctionDef(stmt)) {
      b->functions[ViewFn(stmt).name] = stmt;
    } else if (auto* cls = As<ClassDef>(stmt)) {
      b->classes[cls->name] = cls;
    } else if (auto* assign = As<Assign>(stmt)) {
      if (assign->value != nullptr && assign->value->kind == NodeKind::kLambda) {
        for (ExprNode* t : assign->targets) {
          if (auto* name = As<Name>(t)) b->functions[name->id] = assign->value;
        }
      }
      for (ExprNode* t : assign->targets) {
        AddModuleVars(t, b);
        if (auto* name = As<Name>(t)) b->module_assigns[name->id].push_back(assign->value);
      }
    } else if (auto* ann = As<AnnAssign>(stmt)) {
      AddModuleVars(ann->target, b);
      auto* name = As<Name>(ann->target);
      if (name != nullptr && ann->value != nullptr) {
        b->module_assigns[name->id].push_back(ann->value);
      }
    }
  }
  if (b->classes.count("Model")) b->reference_names.insert("Model");
}

// Kernels: decorated functions at module level and in class bodies, k = triton.jit(fn), then
// kernels in nested scopes (a factory function, __init__, a class inside a class), known by their
// def name wherever it is read (issue 34's honest forms).
void FindKernels(Module* mod, Bindings* b) {
  auto scan = [&](Span<StmtNode*> body, bool module_level) {
    for (StmtNode* stmt : body) {
      if (IsFunctionDef(stmt) && b->IsKernelDef(stmt)) {
        AddKernel(module_level ? ViewFn(stmt).name : Identifier(), stmt, b);
      } else if (auto* assign = As<Assign>(stmt)) {
        if (Node* fn = b->KernelFromCall(assign->value)) {
          for (ExprNode* t : assign->targets) {
            auto* name = As<Name>(t);
            AddKernel(module_level && name != nullptr ? name->id : Identifier(), fn, b);
          }
        }
      }
    }
  };
  scan(mod->body, true);
  for (const auto& [cname, cls] : b->classes) scan(cls->body, false);
  WalkAll(mod, [&](Node* n) {
    if (auto* cls = As<ClassDef>(n)) b->file_class_names.insert(cls->name);
    if (IsFunctionDef(n) && !b->kernel_nodes.count(n) && b->IsKernelDef(n)) {
      AddKernel(ViewFn(n).name, n, b);
    }
  });
}

// Module-level aliases of imported values, kernels and the reference model (aliases of aliases).
void FoldAliases(Module* mod, Bindings* b) {
  for (int round = 0; round < 4; ++round) {
    for (StmtNode* stmt : mod->body) {
      auto* assign = As<Assign>(stmt);
      if (assign == nullptr || assign->targets.size() != 1 || assign->value == nullptr) continue;
      auto* target = As<Name>(assign->targets[0]);
      if (target == nullptr) continue;
      std::string q = b->Resolve(assign->value);
      if (!q.empty()) {
        b->module_values[target->id] = std::move(q);
      } else if (auto* v = As<Name>(assign->value)) {
        auto k = b->kernels.find(v->id);
        if (k != b->kernels.end()) b->kernels[target->id] = k->second;
        if (b->reference_names.count(v->id)) b->reference_names.insert(target->id);
      }
    }
  }
}

// Module-level copies of the task file's definitions (kReferenceCopies), node by node.
void MarkReferenceCopies(Module* mod, Bindings* b) {
  for (StmtNode* stmt : mod->body) {
    Identifier name;
    if (auto* cls = As<ClassDef>(stmt)) name = cls->name;
    if (IsFunctionDef(stmt)) name = ViewFn(stmt).name;
    if (!name.empty() && Contains(kReferenceCopies, name)) {
      WalkAll(stmt, [&](Node* n) { b->skip_nodes.insert(n); });
    }
  }
}

}  // namespace

std::string Step(std::string base, std::string_view attr) {
  static const auto* const kByAttr = [] {
    auto* m = new std::unordered_map<std::string_view, std::string_view>();
    for (const Reexport& r : kReexports) m->emplace(r.attr, r.module);
    return m;
  }();
  base += '.';
  base += attr;
  auto it = kByAttr->find(attr);
  if (it != kByAttr->end() && !Contains(kGenuineSubmodules, base)) return std::string(it->second);
  return base;
}

std::string Canonical(std::string_view dotted) {
  size_t dot = dotted.find('.');
  std::string q(dotted.substr(0, dot));
  while (dot != std::string_view::npos) {
    size_t next = dotted.find('.', dot + 1);
    q = Step(std::move(q), dotted.substr(dot + 1, next - dot - 1));
    dot = next;
  }
  return q;
}

void BindImport(Node* stmt, Scope* table) {
  if (auto* imp = As<Import>(stmt)) {
    for (Alias* a : imp->names) {
      if (!a->asname.empty()) {
        (*table)[a->asname] = Canonical(a->name);
      } else {
        std::string_view root = a->name.substr(0, a->name.find('.'));
        (*table)[root] = std::string(root);
      }
    }
  } else if (auto* from = As<ImportFrom>(stmt)) {
    if (from->level != 0 || from->module.empty()) return;
    for (Alias* a : from->names) {
      if (a->name == "*") continue;
      std::string q(from->module);
      q += '.';
      q += a->name;
      (*table)[a->asname.empty() ? a->name : a->asname] = Canonical(q);
    }
  }
}

std::string Bindings::Resolve(const Node* node, const Scope* scope) const {
  if (auto* name = As<Name>(node)) {
    if (scope != nullptr) {
      auto it = scope->find(name->id);
      if (it != scope->end()) return it->second;
    }
    auto it = imports.find(name->id);
    if (it != imports.end()) return it->second;
    auto mv = module_values.find(name->id);
    if (mv != module_values.end()) return mv->second;
    if (!bound_names.count(name->id)) {
      for (const Injected& g : kInterpreterGlobals) {
        if (g.name == name->id) return std::string(g.qualified);
      }
    }
    return {};
  }
  if (auto* attr = As<Attribute>(node)) {
    std::string base = Resolve(attr->value, scope);
    return base.empty() ? base : Step(std::move(base), attr->attr);
  }
  auto [receiver, literal] = ConstGetattr(node);
  if (receiver != nullptr) {
    std::string base = Resolve(receiver, scope);
    return base.empty() ? base : Step(std::move(base), literal);
  }
  return {};
}

Node* Bindings::KernelFromCall(const Node* v) const {
  auto* call = As<Call>(v);
  if (call == nullptr || call->args.empty()) return nullptr;
  const Node* callee = call->func;
  if (auto* inner = As<Call>(callee)) callee = inner->func;  // autotune(configs=...)(fn)
  if (!Contains(kTritonDecorators, Resolve(callee))) return nullptr;
  if (auto* name = As<Name>(call->args[0])) {
    auto f = functions.find(name->id);
    if (f != functions.end() && IsFunctionDef(f->second)) return f->second;
  }
  return KernelFromCall(call->args[0]);
}

bool Bindings::IsKernelDef(Node* fn) const {
  for (ExprNode* d : ViewFn(fn).decorators) {
    const Node* target = d;
    if (auto* call = As<Call>(d)) target = call->func;
    if (Contains(kTritonDecorators, Resolve(target))) return true;
  }
  return false;
}

bool Bindings::IsReferenceRef(const Node* n, const Scope* scope) const {
  if (auto* name = As<Name>(n)) {
    if (name->ctx != ExprContext::kLoad) return false;
    if (reference_names.count(name->id)) return true;
  } else if (auto* attr = As<Attribute>(n)) {
    if (attr->attr != "Model" || attr->ctx != ExprContext::kLoad) return false;  // cheap first
  } else if (ConstGetattr(n).second != "Model") {
    return false;
  }
  if (n->kind == NodeKind::kName && !imports.count(As<Name>(n)->id)) return false;
  std::string q = Resolve(n, scope);
  return q.size() > 6 && q.substr(q.size() - 6) == ".Model" && !RootedAt(q, "torch") &&
         !RootedAt(q, "triton");
}

ClassDef* Bindings::LocalClass(const Node* n) const {
  auto* name = As<Name>(n);
  if (name == nullptr || reference_names.count(name->id)) return nullptr;
  auto it = classes.find(name->id);
  return it == classes.end() ? nullptr : it->second;
}

void BindModule(Module* mod, Bindings* out) {
  BindNames(mod, out);
  BindTopLevel(mod, out);
  FindKernels(mod, out);
  FoldAliases(mod, out);
  MarkReferenceCopies(mod, out);
}

}  // namespace tritonrl::verify::analyzer
