// The host-compute rule's entry point and its first phase: scopes and calls. The rule itself is
// defined in subset_host_compute_checker.h. Whether a value varies depends on where its name is
// bound and on which calls reach a function (a parameter varies only through the calls, callbacks,
// grids and recursion that hand it values), so before any degree is asked this phase registers
// the host scopes, indexes what each binds (values, containers, aliases, escapes), resolves a
// call to the file functions it may run, and finds grids, callbacks and recursion. CallDeg then
// asks PropagateArgs, NoteGridMeta and NoteGeneratedInit here to carry varying arguments into the
// parameters (and fields) of what a call runs.
#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "verify/subset_host_compute_checker.h"

namespace tritonrl::verify {
namespace host_compute {
namespace {

// The class of the method s is (or is inside), else null.
ClassDef* OwnerOf(HostScope* s) {
  for (; s != nullptr; s = s->parent) {
    if (s->owner != nullptr) return s->owner;
  }
  return nullptr;
}

}  // namespace

void HostComputeChecker::Run() {
  scopes_.push_back(HostScope{});
  scopes_.back().node = mod_;
  for (StmtNode* s : mod_->body) {
    if (!IsMainGuardStmt(s)) Collect(s, &scopes_.front(), nullptr);
  }
  for (HostScope& s : scopes_) Index(&s);
  for (auto [s, a, b] : pending_aliases_) {
    HostScope* wa = Lookup(s, a);
    HostScope* wb = Lookup(s, b);
    aliases_[{wa != nullptr ? wa : &scopes_.front(), a}].push_back(b);
    aliases_[{wb != nullptr ? wb : &scopes_.front(), b}].push_back(a);
  }
  for (auto [s, root] : pending_mutations_) {
    HostScope* where = Lookup(s, root);
    unsmall_.insert({where != nullptr ? where : &scopes_.front(), root});
  }
  for (auto [s, id] : pending_escapes_) {
    HostScope* where = Lookup(s, id);
    if (where != nullptr && IsContainerName(where, id)) escaped_.insert({where, id});
  }
  FindGridsAndCallbacks();
  MarkRecursion();
  MarkFunctionState();
  // Fixed only turns varying, so this settles; the bound keeps odd files cheap.
  for (int round = 0; round < 32; ++round) {
    changed_ = false;
    for (HostScope& s : scopes_) WalkScope(&s, /*report=*/false);
    if (!changed_) break;
  }
  for (HostScope& s : scopes_) WalkScope(&s, /*report=*/true);
  CheckRecurrences();
}

// Registers the scopes below n; `lexical` is where their names resolve, `owner` the class whose
// body holds a def (a method).
void HostComputeChecker::Collect(Node* n, HostScope* lexical, ClassDef* owner) {
  if (n == nullptr || Skipped(n)) return;
  if (!IsScopeNode(n)) {
    ForEachChild(n, [&](Node* c) { Collect(c, lexical, nullptr); });
    return;
  }
  HostScope s;
  s.node = n;
  s.parent = lexical;
  s.owner = owner;
  if (auto* cls = As<ClassDef>(n)) {
    s.name = cls->name;
    ForEachDefinitionExpr(n, [&](ExprNode* e) { Collect(e, lexical, nullptr); });
    scopes_.push_back(std::move(s));
    HostScope* self = &scopes_.back();
    // Methods resolve names where the class is defined, not in the class body.
    for (StmtNode* b : cls->body) {
      if (IsFunctionDef(b)) {
        Collect(b, lexical, cls);
      } else {
        Collect(b, self, nullptr);
      }
    }
    return;
  }
  FnView fn = ViewFn(n);
  s.name = fn.name;
  analyzer::ForEachParam(fn.args, [&](Identifier p) { s.params.push_back(p); });
  if (fn.args != nullptr && fn.args->vararg != nullptr) s.packed.insert(fn.args->vararg->arg);
  if (fn.args != nullptr && fn.args->kwarg != nullptr) s.packed.insert(fn.args->kwarg->arg);
  ForEachDefinitionExpr(n, [&](ExprNode* e) { Collect(e, lexical, nullptr); });
  scopes_.push_back(std::move(s));
  HostScope* self = &scopes_.back();
  if (auto* lam = As<Lambda>(n)) {
    Collect(lam->body, self, nullptr);
  } else {
    for (StmtNode* b : fn.body) Collect(b, self, nullptr);
  }
}

void HostComputeChecker::Index(HostScope* s) {
  scope_of_[s->node] = s;
  for (Identifier p : s->params) s->locals.insert(p);
  if (auto* cls = As<ClassDef>(s->node)) {
    classes_.insert(cls->name);
    class_scopes_[cls->name].push_back(s);
  }
  if (IsFunctionDef(s->node)) {
    if (s->owner != nullptr) {
      methods_[s->name].push_back(s);
      if (s->name == "__init__") inits_[s->owner->name].push_back(s);
    } else {
      defs_[s->name].push_back(s);
    }
  }
  // A name or attribute counts as a small display only if every binding is `x = (display)`.
  std::map<std::string_view, int> stores, plain;
  ForEachOwnNode(s, [&](Node* n) {
    if (auto* name = As<Name>(n); name != nullptr && name->ctx == ExprContext::kStore) {
      s->locals.insert(name->id);
      ++stores[name->id];
    } else if (IsFunctionDef(n)) {
      s->locals.insert(ViewFn(n).name);
    } else if (auto* cls = As<ClassDef>(n)) {
      s->locals.insert(cls->name);
    } else if (auto* h = As<ExceptHandler>(n); h != nullptr && !h->name.empty()) {
      s->locals.insert(h->name);
    } else if (auto* assign = As<Assign>(n); assign != nullptr && assign->targets.size() == 1) {
      if (auto* t = As<Name>(assign->targets[0])) {
        values_[{s, t->id}].push_back(assign->value);
        ++plain[t->id];
        if (auto* v = As<Name>(assign->value)) pending_aliases_.push_back({s, t->id, v->id});
        // A class body's names are its attributes (self.points reads them).
        if (s->node->kind == NodeKind::kClassDef) {
          attr_values_[t->id].push_back(assign->value);
          ++attr_stores_[t->id];
        }
      } else if (auto* a = As<Attribute>(assign->targets[0])) {
        attr_values_[a->attr].push_back(assign->value);
      }
    }
    if (s->node->kind == NodeKind::kClassDef) {
      if (auto* name = As<Name>(n);
          name != nullptr && name->ctx == ExprContext::kStore && !plain.count(name->id)) {
        ++attr_stores_[name->id];
      }
    }
    if (auto* a = As<Attribute>(n); a != nullptr && a->ctx == ExprContext::kStore) {
      ++attr_stores_[a->attr];
    }
    if (auto* sub = As<Subscript>(n); sub != nullptr && sub->ctx == ExprContext::kStore) {
      MarkMutated(s, sub->value);
    }
    if (auto* call = As<Call>(n)) {
      auto* attr = As<Attribute>(call->func);
      if (attr != nullptr && Contains(kMutators, attr->attr)) MarkMutated(s, attr->value);
    }
  });
  for (const auto& [id, n] : stores) {
    if (plain[id] != n) unsmall_.insert({s, id});
  }
  NoteEscapes(s);
}

// A display bound to a name or attribute stays small only while nothing else holds it: a load
// that is not an iteration, a subscript or a len() may alias it (more = points;
// more.extend(range(64)) grows points).
void HostComputeChecker::NoteEscapes(HostScope* s) {
  std::unordered_set<const Node*> benign, receivers;
  ForEachOwnNode(s, [&](Node* n) {
    if (auto* f = As<For>(n)) benign.insert(f->iter);
    if (auto* g = As<Comprehension>(n)) benign.insert(g->iter);
    if (auto* sub = As<Subscript>(n)) benign.insert(sub->value);
    if (auto* call = As<Call>(n)) {
      std::string_view f = NameOf(call->func);
      if (f == "zip" || f == "enumerate" || f == "reversed" || f == "len" || f == "sorted") {
        for (ExprNode* a : call->args) benign.insert(a);
      }
    }
  });
  ForEachOwnNode(s, [&](Node* n) {
    if (auto* a = As<Attribute>(n)) receivers.insert(a->value);
  });
  ForEachOwnNode(s, [&](Node* n) {
    if (benign.count(n)) return;
    if (auto* name = As<Name>(n); name != nullptr && name->ctx == ExprContext::kLoad) {
      if (!receivers.count(n)) pending_escapes_.push_back({s, name->id});
      pending_mutations_.push_back({s, name->id});
    } else if (auto* a = As<Attribute>(n); a != nullptr && a->ctx == ExprContext::kLoad) {
      mutated_attrs_.insert(a->attr);
    }
  });
}

void HostComputeChecker::MarkMutated(HostScope* s, Node* receiver) {
  std::string_view root = RootName(receiver);
  if (std::find(s->params.begin(), s->params.end(), root) != s->params.end()) {
    s->stored_params.insert(root);
  }
  if (auto* a = As<Attribute>(receiver)) {
    mutated_attrs_.insert(a->attr);
  } else if (!root.empty()) {
    pending_mutations_.push_back({s, root});  // resolved once every scope's names are known
  }
}

HostComputeChecker::Callees HostComputeChecker::Resolve(HostScope* s, Call* call) {
  Callees c;
  if (auto* name = As<Name>(call->func)) {
    auto d = defs_.find(name->id);
    if (d != defs_.end()) c.fns = d->second;
    auto i = inits_.find(name->id);
    if (i != inits_.end()) {
      c.fns.insert(c.fns.end(), i->second.begin(), i->second.end());
      c.drop_receiver = true;
    }
    HostScope* where = Lookup(s, name->id);
    c.resolved = !c.fns.empty() || where == nullptr;
    if (where != nullptr && c.fns.empty() && !where->params.empty() && where->owner != nullptr &&
        where->params[0] == name->id) {
      // self(...) runs the owner's forward (an nn.Module) or __call__ (a plain class).
      for (std::string_view entry : {"forward", "__call__"}) {
        for (HostScope* m : methods_[entry]) {
          if (m->owner == where->owner) c.fns.push_back(m);
        }
      }
      c.drop_receiver = true;
      c.resolved = true;
    }
    return c;
  }
  if (auto* attr = As<Attribute>(call->func)) {
    c.resolved = true;
    if (!bind_.Resolve(call->func).empty()) return c;  // torch, triton, math, ...
    auto m = methods_.find(attr->attr);
    if (m == methods_.end()) {
      // self.point(...) with self.point = PointModule(): the object's forward or __call__.
      if (attr_stores_.count(attr->attr)) c.resolved = false;
      return c;
    }
    // A method of what a call returned is the file's only if the call made a file object.
    if (auto* made = As<Call>(attr->value)) {
      std::string_view cls = NameOf(made->func);
      if (cls != "super" && !inits_.count(cls) && !classes_.count(cls)) return c;
    }
    // super().m(...) runs a base class's m, never the caller's own class's.
    auto* sup = As<Call>(attr->value);
    bool up = sup != nullptr && NameOf(sup->func) == "super";
    ClassDef* own = OwnerOf(s);
    for (HostScope* f : m->second) {
      if (!up || f->owner != own) c.fns.push_back(f);
    }
    c.drop_receiver = bind_.LocalClass(attr->value) == nullptr;
    return c;
  }
  c.resolved = call->func->kind == NodeKind::kSubscript;  // a launch, k[grid](...)
  return c;
}

// Grid callables run with Triton's meta values; every other function used as a value (a lambda,
// a def handed to reduce or partial, a bound method) is a callback whose parameters vary.
void HostComputeChecker::FindGridsAndCallbacks() {
  std::unordered_set<std::string_view> grid_names;
  std::unordered_set<const Node*> grid_nodes;
  std::unordered_set<const Node*>& callee_nodes = callee_;
  std::unordered_set<std::string_view> called_names;
  auto scan = [&](Node* n) {
    if (auto* call = As<Call>(n)) {
      callee_nodes.insert(call->func);
      if (auto* f = As<Name>(call->func)) called_names.insert(f->id);
      if (auto* sub = As<Subscript>(call->func)) grid_nodes.insert(sub->slice);
    }
    // k[grid] for a kernel k of the file, also where it is not called at once (a partial).
    if (auto* sub = As<Subscript>(n)) {
      auto* k = As<Name>(sub->value);
      if (k != nullptr && bind_.kernels.count(k->id)) grid_nodes.insert(sub->slice);
    }
  };
  std::function<void(Node*)> walk = [&](Node* n) {
    if (n == nullptr || Skipped(n)) return;
    scan(n);
    ForEachChild(n, [&](Node* c) { walk(c); });
  };
  for (StmtNode* st : mod_->body) {
    if (!IsMainGuardStmt(st)) walk(st);
  }
  // A grid is a lambda, a def or a partial of one that the file never calls itself.
  for (const Node* g : grid_nodes) {
    if (auto* name = As<Name>(const_cast<Node*>(g));
        name != nullptr && !called_names.count(name->id)) {
      grid_names.insert(name->id);
    }
  }
  // Lambdas bound to a grid name are grids too.
  for (HostScope& s : scopes_) {
    ForEachOwnNode(&s, [&](Node* n) {
      auto* assign = As<Assign>(n);
      if (assign == nullptr || assign->targets.size() != 1) return;
      if (!grid_names.count(NameOf(assign->targets[0]))) return;
      ExprNode* v = assign->value;
      if (auto* call = As<Call>(v); call != nullptr &&
                                    bind_.Resolve(call->func) == "functools.partial" &&
                                    !call->args.empty()) {
        v = call->args[0];
        if (auto* fn = As<Name>(v); fn != nullptr && !called_names.count(fn->id))
          grid_names.insert(fn->id);
      }
      if (v->kind == NodeKind::kLambda) {
        grid_nodes.insert(v);
        lambda_grid_names_.push_back({NameOf(assign->targets[0]), v});
      }
    });
  }
  for (HostScope& s : scopes_) {
    if (grid_nodes.count(s.node) || (IsFunctionDef(s.node) && grid_names.count(s.name))) {
      s.grid = true;
      if (IsFunctionDef(s.node)) grid_scopes_[s.name].push_back(&s);
    } else if (s.node->kind == NodeKind::kLambda) {
      s.params_varying = true;
    }
    ForEachOwnNode(&s, [&](Node* n) {
      if (callee_nodes.count(n) || grid_nodes.count(n)) return;
      if (auto* name = As<Name>(n); name != nullptr && name->ctx == ExprContext::kLoad) {
        auto d = defs_.find(name->id);
        if (d != defs_.end()) {
          for (HostScope* f : d->second) f->params_varying = true;
        }
      } else if (auto* attr = As<Attribute>(n);
                 attr != nullptr && attr->ctx == ExprContext::kLoad) {
        auto m = methods_.find(attr->attr);
        if (m != methods_.end() && bind_.Resolve(attr).empty()) {
          for (HostScope* f : m->second) {
            if (!f->grid) f->params_varying = true;
          }
        }
      }
    });
  }
  for (auto [name, node] : lambda_grid_names_) grid_scopes_[name].push_back(scope_of_[node]);
}

// A function that can reach itself through calls runs once per level: its parameters vary.
void HostComputeChecker::MarkRecursion() {
  std::unordered_map<HostScope*, std::vector<HostScope*>> edges;
  for (HostScope& s : scopes_) {
    ForEachOwnNode(&s, [&](Node* n) {
      if (auto* call = As<Call>(n)) {
        for (HostScope* f : Resolve(&s, call).fns) edges[&s].push_back(f);
      }
      if (IsScopeNode(n) && n != s.node) {
        auto it = scope_of_.find(n);
        if (it != scope_of_.end()) edges[&s].push_back(it->second);  // a nested def runs inside
      }
    });
  }
  for (HostScope& s : scopes_) {
    if (!IsFunctionDef(s.node)) continue;
    std::unordered_set<HostScope*> seen;
    std::vector<HostScope*> stack(edges[&s].begin(), edges[&s].end());
    while (!stack.empty()) {
      HostScope* f = stack.back();
      stack.pop_back();
      if (f == &s) {
        s.params_varying = true;
        s.in_recurrence = true;  // each level's arguments are the next value
        break;
      }
      if (!seen.insert(f).second) continue;
      for (HostScope* g : edges[f]) stack.push_back(g);
    }
  }
}

// A file class without __init__ (a dataclass) stores its arguments in fields the source never
// assigns: each class-body name is an attribute that varies, and __post_init__ (or any method)
// reads it as self.<field>.
void HostComputeChecker::NoteGeneratedInit(Call* call) {
  std::string_view cls = NameOf(call->func);
  if (cls.empty() || inits_.count(cls)) return;
  auto it = class_scopes_.find(cls);
  if (it == class_scopes_.end()) return;
  for (HostScope* body : it->second) {
    for (StmtNode* st : As<ClassDef>(body->node)->body) {
      if (auto* f = As<AnnAssign>(st)) SetAttrVarying(NameOf(f->target));
    }
    for (HostScope* m : methods_["__post_init__"]) {
      if (m->owner == As<ClassDef>(body->node)) MarkAllParams(m);
    }
  }
}

// Triton hands a grid callable every launch argument in `meta`: a grid of a launch with
// varying arguments varies too (meta["POINT"] of k[lambda meta: ...](..., POINT=i)).
void HostComputeChecker::NoteGridMeta(Call* call) {
  ExprNode* grid = As<Subscript>(call->func)->slice;
  std::vector<HostScope*> grids;
  if (grid->kind == NodeKind::kLambda) grids.push_back(scope_of_[grid]);
  if (auto* name = As<Name>(grid)) {
    auto g = grid_scopes_.find(name->id);
    if (g != grid_scopes_.end()) grids = g->second;
  }
  for (HostScope* g : grids) {
    for (Identifier p : g->params) {
      if (g->varying.insert(p).second) changed_ = true;
    }
  }
}

// A call of a file function: its parameters vary where an argument does (or mentions a
// bookkeeping loop's variable); a container it writes through a parameter varies in the caller.
void HostComputeChecker::PropagateArgs(const Ctx& c, Call* call, const Callees& to,
                                       const std::vector<bool>& arg_flow,
                                       const std::vector<bool>& kw_flow) {
  for (HostScope* f : to.fns) {
    size_t skip = to.drop_receiver && f->owner != nullptr && !IsStatic(f) ? 1 : 0;
    for (size_t i = 0; i < call->args.size() && i + skip < f->params.size(); ++i) {
      std::string_view p = f->params[i + skip];
      auto* arg = As<Name>(call->args[i]);
      if (arg != nullptr && f->stored_params.count(p) && f->varying.count(p)) {
        SetContainerVarying(c.scope, arg->id);
      }
    }
    for (size_t i = 0; i < call->args.size(); ++i) {
      if (!arg_flow[i]) continue;
      if (call->args[i]->kind == NodeKind::kStarred || i + skip >= f->params.size()) {
        MarkAllParams(f);
      } else {
        MarkParam(f, f->params[i + skip]);
      }
    }
    for (size_t i = 0; i < call->keywords.size(); ++i) {
      Keyword* k = call->keywords[i];
      if (!kw_flow[i]) continue;
      if (k->arg.empty()) {
        MarkAllParams(f);
      } else {
        MarkParam(f, k->arg);
      }
    }
  }
}

bool HostComputeChecker::IsStatic(HostScope* f) {
  for (ExprNode* d : ViewFn(f->node).decorators) {
    if (NameOf(d) == "staticmethod") return true;
  }
  return false;
}

void HostComputeChecker::MarkParam(HostScope* f, std::string_view p) {
  if (f->grid) return;
  if (f->varying.insert(p).second) changed_ = true;
}

void HostComputeChecker::MarkAllParams(HostScope* f) {
  for (size_t i = f->owner != nullptr && !IsStatic(f) ? 1 : 0; i < f->params.size(); ++i) {
    MarkParam(f, f->params[i]);
  }
}

}  // namespace host_compute

void CheckHostCompute(pyast::Module* module, std::vector<RawFinding>* findings) {
  host_compute::HostComputeChecker(module, findings).Run();
}

}  // namespace tritonrl::verify
