#include "verify/analyzer_launch.h"

#include <string_view>
#include <vector>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_tables.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;            // NOLINT: the AST vocabulary is used everywhere here
using namespace analyzer_tables;  // NOLINT: the tables are this file's vocabulary

// Owner.Nested.k, self.Nested.k: an attribute chain rooted at self, cls or a class of the file.
bool RootedAtFileClass(const Bindings& b, const Node* n) {
  while (auto* attr = As<Attribute>(n)) n = attr->value;
  auto* name = As<Name>(n);
  return name != nullptr &&
         (name->id == "self" || name->id == "cls" || b.file_class_names.count(name->id));
}

// make_kernel(): a call of a module function that returns a kernel value (a kernel factory).
bool ReturnsKernel(Lookups& look, const Node* v, int depth) {
  const Bindings& b = look.bind();
  auto* call = As<Call>(v);
  auto* fn_name = call != nullptr ? As<Name>(call->func) : nullptr;
  auto f = fn_name != nullptr ? b.functions.find(fn_name->id) : b.functions.end();
  if (f == b.functions.end() || !IsFunctionDef(f->second) || b.IsKernelNode(f->second)) {
    return false;
  }
  bool found = false;
  WalkAll(f->second, [&](Node* n) {
    auto* ret = As<Return>(n);
    if (ret != nullptr && IsKernelValue(look, ret->value, nullptr, nullptr, depth + 1)) {
      found = true;
    }
  });
  return found;
}

// self.k / Cls.k / Owner.Nested.k: a class-body kernel or an attribute holding a kernel value.
bool IsKernelAttr(Lookups& look, const Attribute* attr, ClassDef* owner, int depth) {
  const Bindings& b = look.bind();
  if (b.kernels.count(attr->attr) && RootedAtFileClass(b, attr->value)) return true;
  auto* base = As<Name>(attr->value);
  if (base == nullptr) return false;
  ClassDef* cls = nullptr;
  if ((base->id == "self" || base->id == "cls") && owner != nullptr) {
    cls = owner;
  } else {
    cls = b.LocalClass(base);
  }
  if (cls == nullptr) return false;
  if (Node* m = look.Method(cls, attr->attr)) return b.IsKernelNode(m);
  if (const auto* vals = look.SelfAttr(cls, attr->attr)) {
    for (ExprNode* val : *vals) {
      if (IsKernelValue(look, val, cls, nullptr, depth + 1)) return true;
    }
  }
  return false;
}

// zip(...), enumerate(...) and the like over a kernel value: the loop's tuple target holds one.
bool IteratesKernels(Lookups& look, const Node* v, ClassDef* owner,
                     const NameSetView& local_kernels) {
  auto* call = As<Call>(v);
  auto* fn = call != nullptr ? As<Name>(call->func) : nullptr;
  if (fn == nullptr || !Contains(kKernelIterators, fn->id)) return false;
  for (ExprNode* a : call->args) {
    if (IsKernelValue(look, a, owner, &local_kernels)) return true;
  }
  return false;
}

// functools.partial(k[grid], ...): calling it is a launch.
bool IsPartialOfLauncher(Lookups& look, const Node* v, ClassDef* owner,
                         const NameSetView& local_kernels) {
  auto* call = As<Call>(v);
  return call != nullptr && look.bind().Resolve(call->func) == "functools.partial" &&
         !call->args.empty() && call->args[0]->kind == NodeKind::kSubscript &&
         IsKernelValue(look, call->args[0], owner, &local_kernels);
}

// p[grid](...) with p a parameter, o.k[grid](...) with o a parameter or a local (an object
// handed a kernel, like a dataclass field), or self.k[grid](...) with self.k set from a
// parameter (a helper class handed the kernel in its constructor).
bool HoldsParam(Lookups& look, const Node* v, ClassDef* owner, const NameSetView& params) {
  const Bindings& b = look.bind();
  if (auto* p = As<Name>(v)) return params.count(p->id) > 0;
  auto* attr = As<Attribute>(v);
  auto* base = attr != nullptr ? As<Name>(attr->value) : nullptr;
  if (base != nullptr && base->id != "self" && base->id != "cls" && !b.imports.count(base->id) &&
      !b.module_vars.count(base->id) && !b.file_class_names.count(base->id)) {
    return true;
  }
  if (base == nullptr || base->id != "self") return false;
  if (const auto* vals = look.SelfAttr(owner, attr->attr)) {
    for (ExprNode* val : *vals) {
      auto* name = As<Name>(val);
      if (name != nullptr && !b.kernels.count(name->id) && !b.module_vars.count(name->id) &&
          !b.imports.count(name->id)) {
        return true;
      }
    }
  }
  return false;
}

// Names of fn's body that hold kernel values (`local_kernels`) or launchers (`launchers`), from
// assignments and loops; two rounds, so an alias may precede its source in walk order.
void TrackLocalKernels(Lookups& look, Node* fn, ClassDef* owner, NameSetView* local_kernels,
                       NameSetView* launchers) {
  for (int round = 0; round < 2; ++round) {
    WalkAll(fn, [&](Node* n) {
      const Node* target = nullptr;
      const Node* value = nullptr;
      if (auto* assign = As<Assign>(n); assign != nullptr && assign->targets.size() == 1) {
        target = assign->targets[0];
        value = assign->value;
      } else if (auto* loop = As<For>(n)) {  // for k in (k1, k2): k[grid](...)
        target = loop->target;
        value = loop->iter;
      }
      if (target != nullptr && target->kind == NodeKind::kTuple && n->kind == NodeKind::kFor &&
          (IsKernelValue(look, value, owner, local_kernels) ||
           IteratesKernels(look, value, owner, *local_kernels))) {
        // for kernel, grid in ((k1, g1), (k2, g2)), or in zip(self.plan, spans): ...
        WalkAll(const_cast<Node*>(target), [&](Node* part) {
          if (auto* part_name = As<Name>(part)) local_kernels->insert(part_name->id);
        });
      }
      auto* name = As<Name>(target);
      if (name == nullptr) return;
      if (n->kind == NodeKind::kAssign && IsPartialOfLauncher(look, value, owner, *local_kernels)) {
        launchers->insert(name->id);  // go = functools.partial(k[grid], ...)
      }
      if (!IsKernelValue(look, value, owner, local_kernels)) return;
      local_kernels->insert(name->id);
      if (value->kind == NodeKind::kSubscript && n->kind == NodeKind::kAssign) {
        launchers->insert(name->id);
      }
    });
  }
}

}  // namespace

bool IsKernelValue(Lookups& look, const Node* v, ClassDef* owner, const NameSetView* locals,
                   int depth) {
  if (v == nullptr || depth > 6) return false;
  const Bindings& b = look.bind();
  if (auto* name = As<Name>(v)) {
    if (b.kernels.count(name->id) || (locals != nullptr && locals->count(name->id))) return true;
    auto it = b.module_assigns.find(name->id);
    if (it == b.module_assigns.end()) return false;
    for (ExprNode* val : it->second) {
      if (val->kind != NodeKind::kName && IsKernelValue(look, val, nullptr, nullptr, depth + 1)) {
        return true;
      }
    }
    return false;
  }
  if (auto* attr = As<Attribute>(v)) return IsKernelAttr(look, attr, owner, depth);
  if (auto* e = As<IfExp>(v)) {
    return IsKernelValue(look, e->body, owner, locals, depth + 1) ||
           IsKernelValue(look, e->orelse, owner, locals, depth + 1);
  }
  if (auto* sub = As<Subscript>(v))
    return IsKernelValue(look, sub->value, owner, locals, depth + 1);
  if (auto* d = As<Dict>(v)) {
    for (ExprNode* x : d->values) {
      if (IsKernelValue(look, x, owner, locals, depth + 1)) return true;
    }
    return false;
  }
  Span<ExprNode*> elts;
  if (auto* l = As<List>(v)) elts = l->elts;
  if (auto* t = As<Tuple>(v)) elts = t->elts;
  for (ExprNode* x : elts) {
    if (IsKernelValue(look, x, owner, locals, depth + 1)) return true;
  }
  return b.KernelFromCall(v) != nullptr || ReturnsKernel(look, v, depth);
}

void FindLaunches(Lookups& look, Node* fn, ClassDef* owner, LaunchFacts* facts) {
  NameSetView local_kernels;
  NameSetView launchers;
  NameSetView params;
  ForEachParam(ViewFn(fn).args, [&](Identifier p) { params.insert(p); });
  TrackLocalKernels(look, fn, owner, &local_kernels, &launchers);
  WalkAll(fn, [&](Node* n) {
    auto* call = As<Call>(n);
    if (call == nullptr) return;
    if (auto* sub = As<Subscript>(call->func)) {
      if (IsKernelValue(look, sub->value, owner, &local_kernels)) facts->direct = true;
      if (HoldsParam(look, sub->value, owner, params)) facts->through_param = true;
    } else if (auto* name = As<Name>(call->func); name != nullptr && launchers.count(name->id)) {
      facts->direct = true;
    } else if (auto* attr = As<Attribute>(call->func);
               attr != nullptr && attr->attr == "run" &&
               IsKernelValue(look, attr->value, owner, &local_kernels)) {
      for (Keyword* k : call->keywords) {
        if (k->arg == "grid") facts->direct = true;
      }
    }
    for (ExprNode* a : call->args) {
      if (IsKernelValue(look, a, owner, &local_kernels)) facts->kernel_passed = true;
    }
    for (Keyword* k : call->keywords) {
      if (IsKernelValue(look, k->value, owner, &local_kernels)) facts->kernel_passed = true;
    }
  });
}

}  // namespace tritonrl::verify::analyzer
