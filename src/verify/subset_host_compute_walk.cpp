// The host-compute rule's statement walk (the rule is defined in subset_host_compute_checker.h).
// Statements decide what degrees alone cannot: which names a binding makes varying, which loops
// are bookkeeping and which run a varying number of times, and what a branch on a varying test
// binds. Adding up a varying value in a loop whose trip count (or guard, or selection) varies
// builds a product one step at a time, so those additions are reported here too.
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "verify/subset_host_compute_checker.h"

namespace tritonrl::verify::host_compute {
namespace {

constexpr std::string_view kRepeatedAddition =
    "adds a loop-varying value a loop-varying number of times (a product or quotient built from "
    "repeated addition)";

// A name, attribute or subscript that a statement stores to (the targets BindTarget binds one by
// one; a tuple or starred target is walked into).
bool IsStoreTarget(const Node* x) {
  if (auto* name = As<Name>(x)) return name->ctx == ExprContext::kStore;
  if (auto* a = As<Attribute>(x)) return a->ctx == ExprContext::kStore;
  if (auto* sub = As<Subscript>(x)) return sub->ctx == ExprContext::kStore;
  return false;
}

}  // namespace

void HostComputeChecker::WalkScope(HostScope* s, bool report) {
  Ctx c{s, report};
  if (!report) BindDefaults(s);
  if (auto* lam = As<Lambda>(s->node)) {
    if (Deg(c, lam->body) && !report) NoteReturnVaries(s);
    return;
  }
  for (StmtNode* st : BodyOf(s->node)) {
    if (s->node == mod_ && IsMainGuardStmt(st)) continue;
    Stmt(c, st);
  }
}

// A default is evaluated where the def or lambda is: def point(k=i) inside a loop varies.
void HostComputeChecker::BindDefaults(HostScope* s) {
  Arguments* a =
      IsScopeNode(s->node) && s->node->kind != NodeKind::kClassDef ? ViewFn(s->node).args : nullptr;
  if (a == nullptr || s->parent == nullptr) return;
  Ctx outer{s->parent, false};
  std::vector<Arg*> positional(a->posonlyargs.begin(), a->posonlyargs.end());
  positional.insert(positional.end(), a->args.begin(), a->args.end());
  size_t first = positional.size() - std::min<size_t>(positional.size(), a->defaults.size());
  for (size_t i = 0; i < a->defaults.size() && first + i < positional.size(); ++i) {
    if (Deg(outer, a->defaults[i]) && s->varying.insert(positional[first + i]->arg).second) {
      changed_ = true;
    }
  }
  for (size_t i = 0; i < a->kw_defaults.size() && i < a->kwonlyargs.size(); ++i) {
    if (a->kw_defaults[i] != nullptr && Deg(outer, a->kw_defaults[i]) &&
        s->varying.insert(a->kwonlyargs[i]->arg).second) {
      changed_ = true;
    }
  }
}

// What a function returns varies: so does its name as a value (def cur(): return i).
// Only what reaches in from outside makes two calls return different values (a thunk of the
// caller's loop variable); a function's own loops give one value per call with the same inputs.
void HostComputeChecker::NoteReturnVaries(HostScope* s) {
  if (s->returns_varying) return;
  bool outside = false;
  ForEachOwnNode(s, [&](Node* n) {
    auto* name = As<Name>(n);
    if (name == nullptr || name->ctx != ExprContext::kLoad) return;
    HostScope* where = Lookup(s, name->id);
    if (where != nullptr && where != s && NameVarying(s, name->id)) outside = true;
  });
  if (!outside) return;
  s->returns_varying = true;
  changed_ = true;
  if (IsFunctionDef(s->node) && s->parent != nullptr && s->owner == nullptr) {
    SetVarying(s->parent, s->name);
  }
}

void HostComputeChecker::Stmts(const Ctx& c, Span<StmtNode*> body) {
  for (StmtNode* st : body) Stmt(c, st);
}

void HostComputeChecker::Stmt(const Ctx& c, StmtNode* n) {
  if (Skipped(n)) return;
  if (IsScopeNode(n)) {
    DefinitionExprs(c, n);  // nested defs and classes are their own scopes
    return;
  }
  switch (n->kind) {
    case NodeKind::kAssign: {
      auto* a = As<Assign>(n);
      if (a->targets.size() == 1 && AddsToItself(c, a->targets[0], a->value) &&
          AddsUpAProduct(c, a->value)) {
        Report(c, n, std::string(kRepeatedAddition));
      }
      for (ExprNode* t : a->targets) {
        if (t->kind == NodeKind::kSubscript) Deg(c, As<Subscript>(t)->slice);
        BindAssign(c, t, a->value);
      }
      return;
    }
    case NodeKind::kAnnAssign: {
      auto* a = As<AnnAssign>(n);
      Deg(c, a->annotation);  // evaluated at module and class level
      if (a->value != nullptr) BindAssign(c, a->target, a->value);
      return;
    }
    case NodeKind::kAugAssign: {
      auto* a = As<AugAssign>(n);
      bool added = Deg(c, a->value);
      if (added && AddsUpAProduct(c, a->value) &&
          (a->op == OperatorKind::kAdd || a->op == OperatorKind::kSub)) {
        Report(c, n, std::string(kRepeatedAddition));
      }
      bool v = BinDeg(c, n, a->op, Deg(c, a->target), added);
      if (!c.report) BindTarget(c.scope, a->target, v);
      return;
    }
    case NodeKind::kFor: {
      auto* f = As<For>(n);
      bool it = Deg(c, f->iter);
      int size = SmallSize(c.scope, f->iter);
      bool small = size > 0 && c.small_product * size <= kSmallLoop;
      if (!c.report) BindTarget(c.scope, f->target, it || !small, small);
      Ctx inner = c;
      inner.in_loop = true;
      inner.varying_trips = c.varying_trips || it || BreaksOnVarying(c, f->body);
      std::unordered_set<std::string> written;
      if (small) {
        inner.small_product *= size;
        written = SmallLoopWrites(c, f);
        inner.small_written = &written;
      } else if (!c.report) {
        MarkCarried(c.scope, n);
      }
      Stmts(inner, f->body);
      Stmts(c, f->orelse);
      return;
    }
    case NodeKind::kWhile: {
      auto* w = As<While>(n);
      if (!c.report) MarkCarried(c.scope, n);
      Deg(c, w->test);
      Ctx inner = c;
      inner.in_loop = true;
      inner.varying_trips =
          c.varying_trips || TestVariesOutside(c, w) || BreaksOnVarying(c, w->body);
      Stmts(inner, w->body);
      Stmts(c, w->orelse);
      return;
    }
    case NodeKind::kIf: {
      auto* i = As<If>(n);
      // What a branch on a varying test binds varies with it, constants too (if i & 32:
      // b = 32 else: b = 0 rebuilds i from its bits).
      bool test = Deg(c, i->test);
      if (test && !c.report) {
        BindBranchTargets(c.scope, i->body);
        BindBranchTargets(c.scope, i->orelse);
      }
      // In a loop, a varying guard sets how many iterations a body statement runs: for j in
      // range(128): if j < d: acc += a is a product as much as range(d) is.
      Ctx inner = c;
      inner.varying_trips = c.varying_trips || (test && c.in_loop);
      Stmts(inner, i->body);
      Stmts(inner, i->orelse);
      return;
    }
    case NodeKind::kWith: {
      auto* w = As<With>(n);
      for (WithItem* item : w->items) {
        bool v = Deg(c, item->context_expr);
        if (!c.report) BindTarget(c.scope, item->optional_vars, v);
      }
      Stmts(c, w->body);
      return;
    }
    case NodeKind::kTry:
      TryStmt(c, As<Try>(n));
      return;
    case NodeKind::kTryStar:
      TryStmt(c, As<TryStar>(n));
      return;
    case NodeKind::kReturn:
      if (Deg(c, As<Return>(n)->value) && !c.report) NoteReturnVaries(c.scope);
      return;
    case NodeKind::kExpr:
      Deg(c, As<Expr>(n)->value);
      return;
    default:
      // raise, assert, del and the rest: every expression they evaluate (a raised value
      // carries a table as well as a return does).
      ForEachChild(n, [&](Node* ch) {
        if (IsExpr(ch->kind)) Deg(c, static_cast<ExprNode*>(ch));
      });
      return;
  }
}

// An update of a name, attribute or container from its own value that also reads another
// varying value: x = x + v, x = add(x, v), box[0] = box[0] + v.
bool HostComputeChecker::AddsToItself(const Ctx& c, ExprNode* target, ExprNode* value) {
  Key key = TargetKey(target);
  if (key.empty()) return false;
  bool self = false, other = false;
  analyzer::WalkAll(value, [&](Node* x) {
    Key k;
    bool varying = false;
    if (auto* nm = As<Name>(x); nm != nullptr && nm->ctx == ExprContext::kLoad) {
      k = Key(nm->id);
      varying = NameVarying(c.scope, nm->id);
    } else if (auto* a = As<Attribute>(x); a != nullptr && a->ctx == ExprContext::kLoad) {
      k = "." + std::string(a->attr);
      varying = attr_varying_.count(std::string(a->attr)) > 0;
    }
    if (k.empty()) return;
    if (k == key) {
      self = true;
    } else if (varying) {
      other = true;
    }
  });
  return self && other;
}

// A while test that reads a varying name or attribute the loop body does not write: the trip
// count is a function of that value (while a >= b: a -= b counts a // b).
// A name the body writes only from its own value (off += c, off = off + c) is the loop's
// counter; one it rebinds from anything else (d = dd) is a bound set by that value.
bool HostComputeChecker::TestVariesOutside(const Ctx& c, While* w) {
  std::unordered_set<std::string> written, rebound;
  std::unordered_set<const Node*> targets;  // of the assignments read below
  for (StmtNode* st : w->body) {
    analyzer::WalkAll(st, [&](Node* x) {
      if (auto* aug = As<AugAssign>(x)) {
        targets.insert(aug->target);
        written.insert(TargetKey(aug->target));
      } else if (auto* as = As<Assign>(x)) {
        for (ExprNode* t : as->targets) {
          targets.insert(t);
          Key k = TargetKey(t);
          bool self = false;
          analyzer::WalkAll(as->value, [&](Node* v) {
            bool keyed = v->kind == NodeKind::kName || v->kind == NodeKind::kAttribute;
            if (keyed && TargetKey(v) == k) self = true;
          });
          (self ? written : rebound).insert(k);
        }
      } else if (auto* nm = As<Name>(x);
                 nm != nullptr && nm->ctx == ExprContext::kStore && !targets.count(x)) {
        rebound.insert(TargetKey(nm));  // a for target, a walrus, a with target
      }
    });
  }
  for (const Key& k : rebound) written.erase(k);
  bool outside = false;
  analyzer::WalkAll(w->test, [&](Node* x) {
    if (auto* nm = As<Name>(x); nm != nullptr && nm->ctx == ExprContext::kLoad) {
      if (!written.count(TargetKey(nm)) && NameVarying(c.scope, nm->id)) outside = true;
    } else if (auto* a = As<Attribute>(x); a != nullptr && a->ctx == ExprContext::kLoad) {
      if (!written.count(TargetKey(a)) && attr_varying_.count(std::string(a->attr))) {
        outside = true;
      }
    }
  });
  return outside;
}

// Whether adding `added` here builds a product: the loop's trip count varies, or the value
// selects by a varying test inside a loop.
bool HostComputeChecker::AddsUpAProduct(const Ctx& c, ExprNode* added) {
  return c.varying_trips || (c.in_loop && SelectsByVarying(c, added));
}

// Whether an added value selects by a varying test: a conditional expression, a boolean
// operator or a comparison on varying values, min/max of two varying values, or a display or
// varying container indexed by a varying value. Added up in a loop, a selection is a guard:
// acc += a if j < d else 0 over j counts a * d.
bool HostComputeChecker::SelectsByVarying(const Ctx& c, ExprNode* e) {
  bool found = false;
  analyzer::WalkAll(e, [&](Node* x) {
    if (found || IsScopeNode(x)) return;
    if (auto* ie = As<IfExp>(x)) {
      found = Deg(c, ie->test);
    } else if (x->kind == NodeKind::kBoolOp || x->kind == NodeKind::kCompare) {
      found = Deg(c, static_cast<ExprNode*>(x));
    } else if (auto* call = As<Call>(x)) {
      std::string_view f = NameOf(call->func);
      if ((f == "min" || f == "max") && IsBuiltinName(c.scope, f)) {
        int varying = 0;
        for (ExprNode* a : call->args) varying += Deg(c, a) ? 1 : 0;
        found = varying >= 2;
      }
    } else if (auto* sub = As<Subscript>(x)) {
      // A Python table (a display, or a container name that varies), not a tensor.
      bool table = sub->value->kind == NodeKind::kTuple || sub->value->kind == NodeKind::kList ||
                   (Deg(c, sub->value) && RootsInContainer(c.scope, sub->value));
      found = table && sub->slice->kind != NodeKind::kSlice && Deg(c, sub->slice);
    }
  });
  return found;
}

// A loop body that leaves the loop (break, return) under a varying test runs a varying number
// of times (while True: if c >= d: break). Nested loops have their own breaks.
bool HostComputeChecker::BreaksOnVarying(const Ctx& c, Span<StmtNode*> body) {
  bool found = false;
  auto leaves = [&](auto&& self, Node* x) -> bool {
    if (x == nullptr || x->kind == NodeKind::kFor || x->kind == NodeKind::kWhile ||
        IsScopeNode(x)) {
      return false;
    }
    if (x->kind == NodeKind::kBreak || x->kind == NodeKind::kReturn) return true;
    bool any = false;
    ForEachChild(x, [&](Node* ch) { any = any || self(self, ch); });
    return any;
  };
  auto visit = [&](auto&& self, Node* x) -> void {
    if (found || x == nullptr || x->kind == NodeKind::kFor || x->kind == NodeKind::kWhile ||
        IsScopeNode(x)) {
      return;
    }
    if (auto* i = As<If>(x)) {
      bool out = false;
      for (StmtNode* st : i->body) out = out || leaves(leaves, st);
      for (StmtNode* st : i->orelse) out = out || leaves(leaves, st);
      if (out && Deg(c, i->test)) found = true;
    }
    ForEachChild(x, [&](Node* ch) { self(self, ch); });
  };
  for (StmtNode* st : body) visit(visit, st);
  return found;
}

template <typename TryNode>
void HostComputeChecker::TryStmt(const Ctx& c, TryNode* t) {
  Stmts(c, t->body);
  for (ExceptHandler* h : t->handlers) {
    Deg(c, h->type);
    // An exception carries what was raised (raise IndexError(i)): its name varies.
    if (!h->name.empty() && !c.report) SetVarying(c.scope, h->name);
    Stmts(c, h->body);
  }
  Stmts(c, t->orelse);
  Stmts(c, t->finalbody);
}

// A def or class statement evaluates its decorators, defaults, annotations and bases where it
// stands (def f(t=[<table>]) computes the table once, at the def).
void HostComputeChecker::DefinitionExprs(const Ctx& c, Node* n) {
  ForEachDefinitionExpr(n, [&](ExprNode* e) { Deg(c, e); });
}

// What binding t to a value makes varying when the value varies: a name (in a class body, the
// attribute too), an attribute, or the container a subscript stores into, which a varying index
// makes vary as well. `small` marks the variables of a bookkeeping loop.
void HostComputeChecker::BindTarget(HostScope* s, ExprNode* t, bool varying, bool small) {
  if (t == nullptr) return;
  if (auto* name = As<Name>(t)) {
    if (varying) SetVarying(s, name->id);
    if (varying && s->node->kind == NodeKind::kClassDef) SetAttrVarying(name->id);
    if (small) {
      HostScope* where = Lookup(s, name->id);
      if (where != nullptr) where->small_targets.insert(name->id);
    }
  } else if (auto* tup = As<Tuple>(t)) {
    for (ExprNode* e : tup->elts) BindTarget(s, e, varying, small);
  } else if (auto* lst = As<List>(t)) {
    for (ExprNode* e : lst->elts) BindTarget(s, e, varying, small);
  } else if (auto* st = As<Starred>(t)) {
    BindTarget(s, st->value, varying, small);
  } else if (auto* attr = As<Attribute>(t)) {
    if (varying) SetAttrVarying(attr->attr);
  } else if (auto* sub = As<Subscript>(t)) {
    Ctx c{s, false};
    bool v = varying || Deg(c, sub->slice);
    if (v) NoteVaryingWrite(s, sub->value);
  }
}

// `a, b = x, y` binds element by element.
void HostComputeChecker::BindAssign(const Ctx& c, ExprNode* target, ExprNode* value) {
  auto* tt = As<Tuple>(target);
  auto* vt = As<Tuple>(value);
  if (tt != nullptr && vt != nullptr && tt->elts.size() == vt->elts.size()) {
    for (uint32_t i = 0; i < tt->elts.size(); ++i) BindAssign(c, tt->elts[i], vt->elts[i]);
    return;
  }
  bool v = Deg(c, value);
  if (!c.report) BindTarget(c.scope, target, v);
}

// Every name, attribute and container a branch body stores to varies (nested scopes aside).
void HostComputeChecker::BindBranchTargets(HostScope* s, Span<StmtNode*> body) {
  for (StmtNode* st : body) {
    auto visit = [&](auto&& self, Node* x) -> void {
      if (x == nullptr || Skipped(x)) return;
      if (IsScopeNode(x)) {
        if (IsFunctionDef(x)) SetVarying(s, ViewFn(x).name);  // def f under the branch
        return;
      }
      if (IsStoreTarget(x)) {
        BindTarget(s, static_cast<ExprNode*>(x), true);
      } else if (auto* r = As<Return>(x); r != nullptr && r->value != nullptr) {
        NoteReturnVaries(s);
      }
      ForEachChild(x, [&](Node* ch) { self(self, ch); });
    };
    visit(visit, st);
  }
}

}  // namespace tritonrl::verify::host_compute
