// The host-compute rule (func.subset_host_compute; docs/rules.md, "Host computation on loop
// values"). A table of the task's function computed in plain Python reaches a kernel through
// launch arguments, the grid or tensors, and no count at run time can tell its ints from offsets.
// What a table needs is a loop and real arithmetic on the loop's values, so the rule is on those:
//
// - A value is *varying* when it changes from one iteration to the next: the variable of a loop
//   over range(), a while loop or a computed iterable, a comprehension variable, a name updated in
//   such a loop, a parameter of a recursive function or of one used as a value (a callback), and
//   whatever is computed from these. A loop over a display of at most kSmallLoop values (or over
//   `.shape`) is bookkeeping: its variables are fixed, but varying in the functions they reach.
// - Varying values may be combined only by bookkeeping: + and -, comparisons, min/max/abs/int/
//   float/round, indexing, products and quotients with fixed values, torch, tensor methods and
//   kernel launches (audited at run time). A math function, pow, sum, a product or a quotient of
//   two varying values, a power, a division by a varying value, a reduce or a partial on them is
//   out.
// - A recurrence (a name, attribute or container that a loop updates from its previous value, and
//   the parameters of a function called in one) may only add and subtract: each update reads one
//   updated value with slope -1, 0 or 1, so a loop cannot build a geometric sequence (an exp table)
//   by products with a fixed ratio, or a Fibonacci-like one by adding two of them.
//
// Kernel bodies, the reference copies and the main guard are not host code here. Internal to the
// verify module; no state outside the call.
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_binding.h"
#include "verify/subset.h"

namespace tritonrl::verify {
namespace {

using namespace pyast;  // NOLINT: the AST's node names read as the grammar they mirror
using analyzer::Bindings;
using analyzer::FnView;
using analyzer::IsFunctionDef;
using analyzer::ViewFn;

constexpr std::string_view kRule = "func.subset_host_compute";
constexpr std::string_view kRepeatedAddition =
    "adds a loop-varying value a loop-varying number of times (a product or quotient built from "
    "repeated addition)";
// Iterations a loop over a display may have (nesting multiplied) and still count as bookkeeping:
// the same bound as the Python numbers a forward call may put into tensors (hooks.HostValues).
constexpr int kSmallLoop = 16;
constexpr int kShapeLoop = 8;  // a tensor has at most this many dims in any task

// Builtins that only move, bound or count values: any argument may vary.
constexpr std::string_view kBookkeepingBuiltins[] = {
    "abs",        "all",    "any",   "bool",  "dict", "enumerate", "float",  "frozenset", "int",
    "isinstance", "len",    "list",  "max",   "min",  "object",    "range",  "reversed",  "set",
    "slice",      "sorted", "super", "tuple", "zip",  "getattr",   "hasattr"};
// math members that are piecewise affine (or tests): any argument may vary.
constexpr std::string_view kMathBookkeeping[] = {"math.ceil",  "math.floor",    "math.trunc",
                                                 "math.fabs",  "math.isfinite", "math.isinf",
                                                 "math.isnan", "math.copysign"};
// A builtin exception class: constructing one only carries its arguments (its message).
bool IsExceptionName(std::string_view f) {
  for (std::string_view tail : {"Error", "Exception", "Warning"}) {
    if (f.size() >= tail.size() && f.substr(f.size() - tail.size()) == tail) return true;
  }
  return false;
}

// Methods of Python numbers that compute (bit_length is a floor of log2): a tensor has none.
constexpr std::string_view kNumberMethods[] = {"bit_length", "bit_count",  "as_integer_ratio",
                                               "to_bytes",   "is_integer", "hex"};
// Mutating methods of the containers a candidate may build (list, dict, set, deque,
// OrderedDict): a call is a write of the receiver.
constexpr std::string_view kMutators[] = {"move_to_end",
                                          "append",
                                          "extend",
                                          "insert",
                                          "pop",
                                          "remove",
                                          "clear",
                                          "sort",
                                          "reverse",
                                          "update",
                                          "setdefault",
                                          "popitem",
                                          "add",
                                          "discard",
                                          "appendleft",
                                          "extendleft",
                                          "popleft",
                                          "rotate",
                                          "difference_update",
                                          "intersection_update",
                                          "symmetric_difference_update"};

using analyzer::Contains;

// A host scope: the module, a class body, a def or a lambda.
struct HostScope {
  Node* node = nullptr;
  HostScope* parent = nullptr;  // lexical lookup (class bodies do not enclose their methods)
  ClassDef* owner = nullptr;    // the class whose body holds this def (a method)
  std::string_view name;
  std::vector<std::string_view> params;  // in order
  std::unordered_set<std::string_view> locals;
  std::unordered_set<std::string_view> varying;
  std::unordered_set<std::string_view> small_targets;  // variables of bookkeeping loops
  bool params_varying = false;   // recursive, a callback, or reached by unknown calls
  bool grid = false;             // a launch grid or heuristic: Triton calls it with meta values
  bool in_recurrence = false;    // called with arguments a recurrence updates
  bool returns_varying = false;  // a return (or a lambda body) varies: a thunk of i is i
  std::unordered_set<std::string_view> packed;         // *args, **kwargs: fresh in each call
  std::unordered_set<std::string_view> stored_params;  // written through: box[0] = v
};

// Which keys a slope map may carry: a name, or ".attr" for an attribute of any object.
using Key = std::string;
// How an expression depends on the values a recurrence updates: key -> bitmask of slopes
// (bit 0: -1, bit 1: 0, bit 2: +1). `bad` when it is not such a dependence.
struct Slopes {
  std::map<Key, unsigned> by_key;
  bool bad = false;
};

// A slope map is a recurrence's bookkeeping when it reads at most one updated value, with a slope
// of -1, 0 or +1 (bits 0..2 of the mask; bits 3 and 4 hold +2 and -2, which are out).
constexpr unsigned kSlopeMinus = 1u << 0, kSlopeZero = 1u << 1, kSlopePlus = 1u << 2;

unsigned NegateMask(unsigned m) {
  unsigned r = m & kSlopeZero;
  if (m & kSlopeMinus) r |= kSlopePlus;
  if (m & kSlopePlus) r |= kSlopeMinus;
  if (m & ~(kSlopeMinus | kSlopeZero | kSlopePlus)) r |= 1u << 3;
  return r;
}

// Sum of two slope masks; a result of +-2 sets bit 3 (out).
unsigned AddMask(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int x = -1; x <= 1; ++x) {
    if (!(a & (1u << (x + 1)))) continue;
    for (int y = -1; y <= 1; ++y) {
      if (!(b & (1u << (y + 1)))) continue;
      int s = x + y;
      r |= (s < -1 || s > 1) ? (1u << 3) : (1u << (s + 1));
    }
  }
  return r | ((a | b) & (1u << 3));
}

Slopes Combine(const Slopes& a, const Slopes& b, bool subtract) {
  Slopes r;
  r.bad = a.bad || b.bad;
  r.by_key = a.by_key;
  for (const auto& [k, m] : b.by_key) {
    unsigned mb = subtract ? NegateMask(m) : m;
    auto it = r.by_key.find(k);
    r.by_key[k] = it == r.by_key.end() ? AddMask(kSlopeZero, mb) : AddMask(it->second, mb);
  }
  for (auto& [k, m] : r.by_key) {
    if (!b.by_key.count(k)) m = AddMask(m, kSlopeZero);
  }
  return r;
}

Slopes Union(const Slopes& a, const Slopes& b) {
  Slopes r = a;
  r.bad = a.bad || b.bad;
  for (const auto& [k, m] : b.by_key) r.by_key[k] |= m;
  return r;
}

bool Valid(const Slopes& s) {
  if (s.bad || s.by_key.size() > 1) return false;
  for (const auto& [k, m] : s.by_key) {
    if (m & ~(kSlopeMinus | kSlopeZero | kSlopePlus)) return false;
  }
  return true;
}

// One write a loop (or a function) makes: the key it updates and what it is computed from.
struct Write {
  Key key;
  Node* node = nullptr;         // the statement, for the finding's position
  ExprNode* value = nullptr;    // Assign/AnnAssign value, AugAssign value
  std::vector<ExprNode*> also;  // mutator arguments, a subscript store's index
  bool aug = false;
  bool mutation = false;  // a subscript store or a mutating call: the caller's container changes
  OperatorKind op = OperatorKind::kAdd;
  int order = 0;  // textual position (reads before writes within a statement)
};

std::string_view RootName(const Node* n) {
  while (n != nullptr) {
    if (auto* name = As<Name>(n)) return name->id;
    if (auto* sub = As<Subscript>(n)) {
      n = sub->value;
    } else if (auto* attr = As<Attribute>(n)) {
      n = attr->value;
    } else {
      return {};
    }
  }
  return {};
}

// The key a write target updates: a name, ".attr" for `x.attr` (any receiver), or the root name
// of a subscript store (`lst[i] = v` writes lst; `self.tab[i] = v` writes .tab).
Key TargetKey(const Node* t) {
  if (auto* name = As<Name>(t)) return Key(name->id);
  if (auto* attr = As<Attribute>(t)) return "." + std::string(attr->attr);
  if (auto* sub = As<Subscript>(t)) return TargetKey(sub->value);
  return {};
}

class HostComputeChecker {
 public:
  HostComputeChecker(Module* mod, std::vector<RawFinding>* out) : mod_(mod), out_(out) {
    analyzer::BindModule(mod, &bind_);
  }

  void Run() {
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

 private:
  // ---- scopes -------------------------------------------------------------------------------
  // Kernel bodies are not host code. The reference copies are read like the rest: a def named
  // get_init_inputs runs when forward calls it.
  bool Skipped(Node* n) const {
    return bind_.kernel_nodes.count(n) > 0 || (IsFunctionDef(n) && bind_.IsKernelDef(n));
  }
  static bool IsScopeNode(const Node* n) {
    return IsFunctionDef(n) || n->kind == NodeKind::kLambda || n->kind == NodeKind::kClassDef;
  }

  // Registers the scopes below n; `lexical` is where their names resolve, `owner` the class whose
  // body holds a def (a method).
  void Collect(Node* n, HostScope* lexical, ClassDef* owner) {
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

  // The expressions a def, lambda or class statement evaluates where it stands.
  template <typename Fn>
  static void ForEachDefinitionExpr(Node* n, Fn&& fn) {
    if (auto* cls = As<ClassDef>(n)) {
      for (ExprNode* b : cls->bases) fn(b);
      for (Keyword* k : cls->keywords) fn(k->value);
      for (ExprNode* d : cls->decorator_list) fn(d);
      return;
    }
    FnView view = ViewFn(n);
    for (ExprNode* d : view.decorators) fn(d);
    if (auto* f = As<FunctionDef>(n); f != nullptr && f->returns != nullptr) fn(f->returns);
    if (Arguments* a = view.args) {
      for (ExprNode* d : a->defaults) fn(d);
      for (ExprNode* d : a->kw_defaults) {
        if (d != nullptr) fn(d);
      }
      analyzer::WalkAll(a, [&](Node* x) {
        if (auto* arg = As<Arg>(x); arg != nullptr && arg->annotation != nullptr)
          fn(arg->annotation);
      });
    }
  }

  // The statements a scope runs itself (nested scopes are their own).
  static Span<StmtNode*> BodyOf(Node* n) {
    if (auto* m = As<Module>(n)) return m->body;
    if (auto* c = As<ClassDef>(n)) return c->body;
    return ViewFn(n).body;
  }

  // Calls fn on every node the scope evaluates itself, in textual order.
  template <typename Fn>
  void ForEachOwnNode(HostScope* s, Fn&& fn) {
    auto visit = [&](auto&& self, Node* n) -> void {
      if (n == nullptr || Skipped(n)) return;
      if (IsScopeNode(n)) {
        fn(n);  // the def or lambda as a value of this scope
        // Its decorators, defaults, annotations and bases are evaluated here.
        ForEachDefinitionExpr(n, [&](ExprNode* e) { self(self, e); });
        return;
      }
      fn(n);
      ForEachChild(n, [&](Node* c) { self(self, c); });
    };
    if (auto* lam = As<Lambda>(s->node)) {
      visit(visit, lam->body);
      return;
    }
    for (StmtNode* st : BodyOf(s->node)) {
      if (s->node == mod_ && IsMainGuardStmt(st)) continue;
      visit(visit, st);
    }
  }

  void Index(HostScope* s) {
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
  void NoteEscapes(HostScope* s) {
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

  void MarkMutated(HostScope* s, Node* receiver) {
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

  static std::string_view NameOf(const Node* n) {
    auto* name = As<Name>(n);
    return name != nullptr ? name->id : std::string_view{};
  }

  // The scope that binds `id` as seen from s (null: a module import, builtin or free name).
  HostScope* Lookup(HostScope* s, std::string_view id) const {
    for (; s != nullptr; s = s->parent) {
      if (s->locals.count(id)) return s;
    }
    return nullptr;
  }

  // The class of the method s is (or is inside), else null.
  static ClassDef* OwnerOf(HostScope* s) {
    for (; s != nullptr; s = s->parent) {
      if (s->owner != nullptr) return s->owner;
    }
    return nullptr;
  }

  bool IsBuiltinName(HostScope* s, std::string_view id) const {
    return Lookup(s, id) == nullptr && !bind_.imports.count(id) && !bind_.module_values.count(id);
  }

  // ---- who calls whom -----------------------------------------------------------------------
  struct Callees {
    std::vector<HostScope*> fns;
    bool drop_receiver = false;
    bool resolved = false;  // a file function, an import, a builtin, a launch or a method
  };

  Callees Resolve(HostScope* s, Call* call) {
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
  void FindGridsAndCallbacks() {
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
  void MarkRecursion() {
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

  // ---- degrees: fixed or varying ------------------------------------------------------------
  struct Ctx {
    HostScope* scope;
    bool report;
    int small_product = 1;  // iterations of the enclosing bookkeeping loops
    bool in_loop = false;   // inside a for or while body of this scope
    // Names (".attr" for attributes) the enclosing bookkeeping loops' bodies write: a value
    // computed from the loop's variable (j = i) is the loop's as much as i is.
    const std::unordered_set<std::string>* small_written = nullptr;
    // Inside a loop whose trip count is set by a value that varies outside it (range(v), a
    // while test on such a value): adding a varying value there is a product (or, subtracting,
    // a quotient), however each step looks.
    bool varying_trips = false;
  };

  void Report(const Ctx& c, const Node* n, std::string detail) {
    if (!c.report || !reported_.insert(n).second) return;
    out_->push_back(FindingAt(kRule, n, std::move(detail)));
  }

  void SetVarying(HostScope* s, std::string_view id) {
    HostScope* where = Lookup(s, id);
    if (where == nullptr) where = &scopes_.front();
    if (where->varying.insert(id).second) changed_ = true;
  }
  void SetAttrVarying(std::string_view attr) {
    if (attr.empty()) return;
    if (attr_varying_.insert(std::string(attr)).second) changed_ = true;
  }

  bool NameVarying(HostScope* s, std::string_view id) const {
    HostScope* where = Lookup(s, id);
    if (where == nullptr) return false;
    if (where->varying.count(id)) return true;
    // Parameters: of a callback or recursive function, or varying at some call site.
    if (where->params_varying && !where->grid &&
        std::find(where->params.begin(), where->params.end(), id) != where->params.end()) {
      return !(where->owner != nullptr && !where->params.empty() && where->params[0] == id);
    }
    return false;
  }

  // A loop over at most kSmallLoop values spelled in the source (or over a tensor's dims): the
  // number of iterations, else 0.
  int SmallSize(HostScope* s, ExprNode* it, int depth = 0) {
    if (depth > 4) return 0;
    if (it->kind == NodeKind::kList || it->kind == NodeKind::kTuple || it->kind == NodeKind::kSet) {
      Span<ExprNode*> elts = it->kind == NodeKind::kList    ? As<List>(it)->elts
                             : it->kind == NodeKind::kTuple ? As<Tuple>(it)->elts
                                                            : As<Set>(it)->elts;
      for (ExprNode* e : elts) {
        if (e->kind == NodeKind::kStarred) return 0;
      }
      return elts.size() <= kSmallLoop ? std::max<int>(1, elts.size()) : 0;
    }
    if (auto* attr = As<Attribute>(it)) {
      if (attr->attr == "shape") {
        return attr_stores_.count("shape") || methods_.count("shape") ? 0 : kShapeLoop;
      }
      auto v = attr_values_.find(attr->attr);
      if (v == attr_values_.end() || mutated_attrs_.count(attr->attr) ||
          attr_stores_[attr->attr] != static_cast<int>(v->second.size())) {
        return 0;
      }
      return AllSmall(s, v->second, depth);
    }
    if (auto* name = As<Name>(it)) {
      HostScope* where = Lookup(s, name->id);
      if (where == nullptr) where = &scopes_.front();
      auto v = values_.find({where, name->id});
      if (v == values_.end() || unsmall_.count({where, name->id})) return 0;
      return AllSmall(s, v->second, depth);
    }
    auto* call = As<Call>(it);
    if (call == nullptr) return 0;
    if (auto* attr = As<Attribute>(call->func)) {
      bool dims = (attr->attr == "size" || attr->attr == "stride") && call->args.empty() &&
                  !methods_.count(attr->attr) && !attr_stores_.count(attr->attr);
      return dims ? kShapeLoop : 0;
    }
    auto* fn = As<Name>(call->func);
    if (fn == nullptr || !IsBuiltinName(s, fn->id)) return 0;
    if (fn->id == "range") return RangeSize(call);
    if (fn->id == "zip") {
      int n = 0;
      for (ExprNode* a : call->args) {
        int k = SmallSize(s, a, depth + 1);
        if (k == 0) return 0;
        n = n == 0 ? k : std::min(n, k);
      }
      return n;
    }
    if ((fn->id == "enumerate" || fn->id == "reversed" || fn->id == "sorted" || fn->id == "list" ||
         fn->id == "tuple") &&
        call->args.size() == 1) {
      return SmallSize(s, call->args[0], depth + 1);
    }
    return 0;
  }

  int AllSmall(HostScope* s, const std::vector<ExprNode*>& values, int depth) {
    int n = 0;
    for (ExprNode* v : values) {
      int k = SmallSize(s, v, depth + 1);
      if (k == 0) return 0;
      n = std::max(n, k);
    }
    return n;
  }

  static int RangeSize(Call* call) {
    long long a[3] = {0, 0, 1};
    size_t n = call->args.size();
    if (n < 1 || n > 3) return 0;
    for (size_t i = 0; i < n; ++i) {
      auto* c = As<Constant>(call->args[i]);
      if (c == nullptr || c->value.kind != ConstantKind::kInt || c->value.text.size() > 6) return 0;
      long long v = std::stoll(std::string(c->value.text));
      if (n == 1) {
        a[1] = v;
      } else {
        a[i] = v;
      }
    }
    if (a[2] <= 0 || a[1] <= a[0]) return 1;
    long long len = (a[1] - a[0] + a[2] - 1) / a[2];
    return len <= kSmallLoop ? static_cast<int>(len) : 0;
  }

  // Whether e mentions a variable of a bookkeeping loop: fixed where the loop is, but a function
  // handed one runs once per value, so its parameter varies there.
  bool MentionsSmall(const Ctx& c, Node* e) {
    bool found = false;
    auto written = [&](const std::string& key) {
      return c.small_written != nullptr && c.small_written->count(key) > 0;
    };
    analyzer::WalkAll(e, [&](Node* n) {
      if (auto* name = As<Name>(n)) {
        HostScope* where = Lookup(c.scope, name->id);
        if (where != nullptr && where->small_targets.count(name->id)) found = true;
        if (written(std::string(name->id))) found = true;
      } else if (auto* a = As<Attribute>(n); a != nullptr && written("." + std::string(a->attr))) {
        found = true;
      }
    });
    return found;
  }

  // What a bookkeeping loop's body writes: names, ".attr" keys and the containers stored into.
  std::unordered_set<std::string> SmallLoopWrites(const Ctx& c, For* loop) {
    std::unordered_set<std::string> out;
    if (c.small_written != nullptr) out = *c.small_written;
    analyzer::WalkAll(loop, [&](Node* n) {
      if (auto* name = As<Name>(n); name != nullptr && name->ctx == ExprContext::kStore) {
        out.insert(std::string(name->id));
      } else if (auto* a = As<Attribute>(n); a != nullptr && a->ctx == ExprContext::kStore) {
        out.insert("." + std::string(a->attr));
      } else if (auto* sub = As<Subscript>(n); sub != nullptr && sub->ctx == ExprContext::kStore) {
        if (auto* inner = As<Attribute>(sub->value)) out.insert("." + std::string(inner->attr));
        out.insert(std::string(RootName(sub->value)));
      } else if (auto* call = As<Call>(n)) {
        auto* m = As<Attribute>(call->func);
        if (m != nullptr && Contains(kMutators, m->attr)) {
          if (auto* inner = As<Attribute>(m->value)) out.insert("." + std::string(inner->attr));
          out.insert(std::string(RootName(m->value)));
        }
      }
    });
    out.erase("");
    return out;
  }

  bool Deg(const Ctx& c, ExprNode* e) {
    if (e == nullptr) return false;
    switch (e->kind) {
      case NodeKind::kConstant:
        return false;
      case NodeKind::kJoinedStr: {
        // Its fields are evaluated (and round-trip through text: int(f"{v}") is v).
        bool any = false;
        for (ExprNode* part : As<JoinedStr>(e)->values) {
          if (auto* fv = As<FormattedValue>(part)) {
            any = Deg(c, fv->value) || any;
            any = Deg(c, fv->format_spec) || any;
          }
        }
        return any;
      }
      case NodeKind::kLambda: {
        DefinitionExprs(c, e);
        auto it = scope_of_.find(e);
        return it != scope_of_.end() && it->second->returns_varying;
      }
      case NodeKind::kName:
        return NameVarying(c.scope, As<Name>(e)->id) || ValueOfBanned(c, e);
      case NodeKind::kAttribute: {
        auto* a = As<Attribute>(e);
        if (!bind_.Resolve(e).empty()) return ValueOfBanned(c, e);
        bool v = Deg(c, a->value);
        return v || attr_varying_.count(std::string(a->attr)) > 0;
      }
      case NodeKind::kSubscript: {
        auto* sub = As<Subscript>(e);
        bool v = Deg(c, sub->value);
        bool at = Deg(c, sub->slice);
        // T[x][d] into a Python table indexed by two loop values is a lookup of a function of
        // both (a times table makes every product a lookup).
        if (at && IndexedByVarying(c, sub->value) && RootsInContainer(c.scope, sub->value)) {
          Report(c, e, "a Python table indexed by two loop-varying values");
        }
        return at || v;
      }
      case NodeKind::kSlice: {
        auto* sl = As<Slice>(e);
        bool a = Deg(c, sl->lower), b = Deg(c, sl->upper), d = Deg(c, sl->step);
        // A slice's length is a quotient by its step.
        if (d) Report(c, e, "a slice step that is loop-varying (its length is a quotient)");
        return a || b || d;
      }
      case NodeKind::kStarred:
        return Deg(c, As<Starred>(e)->value);
      case NodeKind::kNamedExpr: {
        auto* ne = As<NamedExpr>(e);
        bool v = Deg(c, ne->value);
        if (v && !c.report) SetVarying(c.scope, NameOf(ne->target));
        return v;
      }
      case NodeKind::kBinOp: {
        auto* b = As<BinOp>(e);
        return BinDeg(c, e, b->op, Deg(c, b->left), Deg(c, b->right));
      }
      case NodeKind::kUnaryOp:
        return Deg(c, As<UnaryOp>(e)->operand);
      case NodeKind::kCall:
        return CallDeg(c, As<Call>(e));
      case NodeKind::kListComp:
        return CompDeg(c, As<ListComp>(e)->generators, {As<ListComp>(e)->elt});
      case NodeKind::kSetComp:
        return CompDeg(c, As<SetComp>(e)->generators, {As<SetComp>(e)->elt});
      case NodeKind::kGeneratorExp:
        return CompDeg(c, As<GeneratorExp>(e)->generators, {As<GeneratorExp>(e)->elt});
      case NodeKind::kDictComp:
        return CompDeg(c, As<DictComp>(e)->generators,
                       {As<DictComp>(e)->key, As<DictComp>(e)->value});
      default: {
        // Displays, comparisons, boolean operators, conditional expressions: any part.
        bool any = false;
        ForEachChild(e, [&](Node* ch) {
          if (IsExpr(ch->kind) && Deg(c, static_cast<ExprNode*>(ch))) any = true;
        });
        return any;
      }
    }
  }

  // math functions, pow, sum and divmod as values: called later from a name or a container, no
  // rule would see their arguments.
  bool ValueOfBanned(const Ctx& c, ExprNode* e) {
    std::string q = bind_.Resolve(e);
    bool banned = false;
    if (auto* name = As<Name>(e); name != nullptr && IsBuiltinName(c.scope, name->id)) {
      banned = name->id == "pow" || name->id == "sum" || name->id == "divmod";
    } else if (analyzer::StartsWith(q, "math.")) {
      banned = !Contains(kMathBookkeeping, q) && q != "math.pi" && q != "math.e" &&
               q != "math.tau" && q != "math.inf" && q != "math.nan";
    } else if (q == "operator.mul" || q == "operator.truediv" || q == "operator.floordiv" ||
               q == "operator.mod" || q == "operator.and_" || q == "operator.or_" ||
               q == "operator.xor") {
      banned = true;
    }
    if (banned && !callee_.count(e)) {
      Report(c, e, "`" + (q.empty() ? std::string(NameOf(e)) : q) + "` used as a value");
    }
    return false;
  }

  bool BinDeg(const Ctx& c, Node* at, OperatorKind op, bool l, bool r) {
    switch (op) {
      case OperatorKind::kAdd:
      case OperatorKind::kSub:
        return l || r;
      case OperatorKind::kMult:
      case OperatorKind::kMatMult:
      case OperatorKind::kBitAnd:
      case OperatorKind::kBitOr:
      case OperatorKind::kBitXor:
        if (l && r) Report(c, at, "product of two loop-varying values");
        return l || r;
      case OperatorKind::kDiv:
      case OperatorKind::kFloorDiv:
      case OperatorKind::kMod:
      case OperatorKind::kLShift:
      case OperatorKind::kRShift:
        if (r) Report(c, at, "division or shift by a loop-varying value");
        return l || r;
      case OperatorKind::kPow:
        if (l || r) Report(c, at, "power of a loop-varying value");
        return l || r;
    }
    return l || r;
  }

  bool CompDeg(const Ctx& c, Span<Comprehension*> gens, std::initializer_list<ExprNode*> elts) {
    bool any = false;
    int product = c.small_product;
    int varying_iters = 0;
    for (Comprehension* g : gens) {
      bool it = Deg(c, g->iter);
      // Two generators over loop-varying iterables: the element count is a product.
      if (it && ++varying_iters == 2) {
        Report(c, g->iter, "nested generators over loop-varying iterables (a product of counts)");
      }
      int n = SmallSize(c.scope, g->iter);
      bool small = n > 0 && product * n <= kSmallLoop;
      if (small) product *= n;
      if (!c.report) BindTarget(c.scope, g->target, it || !small, small);
      any = any || it;
      for (ExprNode* cond : g->ifs) Deg(c, cond);
    }
    Ctx inner = c;
    inner.small_product = product;
    for (ExprNode* e : elts) any = Deg(inner, e) || any;
    return any;
  }

  bool CallDeg(const Ctx& c, Call* call) {
    bool callee = Deg(c, call->func);
    // Each argument's degree once (a nested call's arguments are not walked again), and whether
    // it hands a callee a varying value: varying, or a launch plan's variable.
    std::vector<bool> args, arg_flow, kw_flow;
    bool any = false, any_flow = false;
    for (ExprNode* a : call->args) {
      args.push_back(Deg(c, a));
      arg_flow.push_back(args.back() || MentionsSmall(c, a));
      any = any || args.back();
      any_flow = any_flow || arg_flow.back();
    }
    for (Keyword* k : call->keywords) {
      bool v = Deg(c, k->value);
      kw_flow.push_back(v || MentionsSmall(c, k->value));
      any = any || v;
      any_flow = any_flow || kw_flow.back();
    }
    Callees to = Resolve(c.scope, call);
    if (auto* lam = As<Lambda>(call->func)) to.fns.push_back(scope_of_[lam]);
    if (!c.report) PropagateArgs(c, call, to, arg_flow, kw_flow);
    if (!c.report) NoteMutation(c, call, any);
    if (!c.report && any_flow) NoteGeneratedInit(call);
    if (!c.report && any_flow && call->func->kind == NodeKind::kSubscript) NoteGridMeta(call);
    // Real functions of a launch plan's values (math.sqrt(scale) in `for block, scale in ...`)
    // count as the loop's: k statements per iteration would otherwise make 16k table entries.
    bool computed = any;
    for (bool f : arg_flow) computed = computed || f;
    std::string q = bind_.Resolve(call->func);
    auto* fname = As<Name>(call->func);
    bool builtin = fname != nullptr && IsBuiltinName(c.scope, fname->id);
    auto arg = [&](size_t i) { return i < args.size() && args[i]; };
    if (builtin) {
      std::string_view f = fname->id;
      if (f == "getattr" && call->args.size() >= 2) {
        // getattr(o, "k") reads o.k: the attribute's degree, as o.k would have.
        auto* name = As<Constant>(call->args[1]);
        if (name != nullptr && name->value.kind == ConstantKind::kStr &&
            attr_varying_.count(std::string(name->value.text))) {
          return true;
        }
      }
      if (f == "len" && !call->args.empty() && arg(0) && BuildsACollection(call->args[0])) {
        // The size of a collection built from loop values is a count: a filter's passes, a
        // slice of a repeated list, a chain of them (len(chain(*[[0] * u] * 256)[:v]) is u * v).
        Report(c, call, "len() of a collection built from loop-varying values (a count)");
      }
      if (f == "pow" || f == "sum") {
        if (computed) Report(c, call, std::string(f) + "() of a loop-varying value");
      } else if (f == "divmod" || f == "round") {
        if (arg(1)) Report(c, call, std::string(f) + "() by a loop-varying value");
      } else if (f == "range" && arg(2)) {
        Report(c, call, "range() with a loop-varying step (its length is a quotient)");
      } else if (!Contains(kBookkeepingBuiltins, f) && !IsExceptionName(f)) {
        if (computed) Report(c, call, std::string(f) + "() of a loop-varying value");
      }
      return any;
    }
    if (auto* m = As<Attribute>(call->func);
        m != nullptr && q.empty() && Contains(kNumberMethods, m->attr) && Deg(c, m->value)) {
      Report(c, call, "." + std::string(m->attr) + "() of a loop-varying number");
    }
    if (!q.empty()) {
      if (q == "triton.cdiv" && arg(1)) Report(c, call, "triton.cdiv by a loop-varying value");
      if (q == "itertools.product" || q == "itertools.combinations" ||
          q == "itertools.permutations") {
        int varying = 0;
        for (bool a : args) varying += a ? 1 : 0;
        // Its length is a product of the iterables' lengths (or a binomial of one).
        bool product = q == "itertools.product";
        if (varying >= 2 || (varying == 1 && (!product || !call->keywords.empty()))) {
          Report(c, call, q + " over loop-varying lengths (its length is a product)");
        }
      }
      if (analyzer::StartsWith(q, "math.") && !Contains(kMathBookkeeping, q) && computed) {
        Report(c, call, q + " of a loop-varying value");
      }
      if ((q == "functools.reduce" || q == "functools.partial") && any) {
        Report(c, call, q + " over loop-varying values");
      }
      if (analyzer::StartsWith(q, "operator.")) {
        OperatorKind op = OperatorKind::kAdd;
        if (q == "operator.mul") op = OperatorKind::kMult;
        if (q == "operator.truediv") op = OperatorKind::kDiv;
        if (q == "operator.floordiv") op = OperatorKind::kFloorDiv;
        if (q == "operator.mod") op = OperatorKind::kMod;
        if (q == "operator.and_" || q == "operator.or_" || q == "operator.xor") {
          op = OperatorKind::kBitAnd;
        }
        return BinDeg(c, call, op, arg(0), arg(1));
      }
      return any;
    }
    if (!to.resolved && any && !c.report) {
      // An unknown callable (a module in a list, a bound method in a variable): the forward or
      // __call__ of every file class but the model itself may be what runs.
      for (std::string_view entry : {"forward", "__call__"}) {
        for (HostScope* m : methods_[entry]) {
          if (m->owner->name != "ModelNew" && !m->params_varying) {
            m->params_varying = true;
            changed_ = true;
          }
        }
      }
    }
    bool returns = false;
    for (HostScope* f : to.fns) returns = returns || f->returns_varying;
    return any || callee || returns;
  }

  // A file class without __init__ (a dataclass) stores its arguments in fields the source never
  // assigns: each class-body name is an attribute that varies, and __post_init__ (or any method)
  // reads it as self.<field>.
  void NoteGeneratedInit(Call* call) {
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
  void NoteGridMeta(Call* call) {
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
  void PropagateArgs(const Ctx& c, Call* call, const Callees& to, const std::vector<bool>& arg_flow,
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

  static bool IsStatic(HostScope* f) {
    for (ExprNode* d : ViewFn(f->node).decorators) {
      if (NameOf(d) == "staticmethod") return true;
    }
    return false;
  }
  void MarkParam(HostScope* f, std::string_view p) {
    if (f->grid) return;
    if (f->varying.insert(p).second) changed_ = true;
  }
  void MarkAllParams(HostScope* f) {
    for (size_t i = f->owner != nullptr && !IsStatic(f) ? 1 : 0; i < f->params.size(); ++i) {
      MarkParam(f, f->params[i]);
    }
  }

  // lst.append(v), d.update(...), self.tab.extend(...): the container holds what was put in.
  void NoteMutation(const Ctx& c, Call* call, bool any) {
    auto* attr = As<Attribute>(call->func);
    if (attr == nullptr || !Contains(kMutators, attr->attr) || !any) return;
    NoteWildWrite(c.scope, attr->value);
    if (auto* inner = As<Attribute>(attr->value)) {
      SetAttrVarying(inner->attr);
    } else if (std::string_view root = RootName(attr->value); !root.empty()) {
      SetContainerVarying(c.scope, root);
    }
  }

  // A name whose every binding is a fresh Python container: a display, a comprehension, [v] * n
  // or a container constructor.
  bool IsContainerName(HostScope* where, std::string_view id) {
    auto v = values_.find({where, id});
    if (v == values_.end() || v->second.empty()) return false;
    for (ExprNode* e : v->second) {
      if (!IsContainerValue(where, e)) return false;
    }
    return true;
  }
  bool IsContainerValue(HostScope* s, ExprNode* e) {
    switch (e->kind) {
      case NodeKind::kList:
      case NodeKind::kTuple:
      case NodeKind::kSet:
      case NodeKind::kDict:
      case NodeKind::kListComp:
      case NodeKind::kSetComp:
      case NodeKind::kDictComp:
        return true;
      case NodeKind::kBinOp:
        return IsContainerValue(s, As<BinOp>(e)->left);
      case NodeKind::kCall: {
        auto* call = As<Call>(e);
        std::string q = bind_.Resolve(call->func);
        std::string_view f = NameOf(call->func);
        return q == "collections.OrderedDict" || q == "collections.deque" ||
               ((f == "list" || f == "dict" || f == "set") && IsBuiltinName(s, f));
      }
      default:
        return false;
    }
  }

  // A varying write whose container the rule cannot name (through an attribute, an element of
  // another container, or a name bound to anything but a fresh container: ref = same(box)) may
  // reach any container held elsewhere: each of those varies.
  void NoteWildWrite(HostScope* s, ExprNode* receiver) {
    if (auto* name = As<Name>(receiver)) {
      HostScope* where = Lookup(s, name->id);
      if (where != nullptr && IsContainerName(where, name->id)) return;
    }
    for (auto [where, id] : escaped_) SetContainerVarying(where, id);
  }

  // A container written with a varying value varies, under every name that holds it (ref = box;
  // ref[0] = i makes box[0] vary).
  void SetContainerVarying(HostScope* s, std::string_view id) {
    std::vector<std::string_view> todo{id};
    std::set<std::string_view> seen;
    while (!todo.empty()) {
      std::string_view n = todo.back();
      todo.pop_back();
      if (!seen.insert(n).second) continue;
      SetVarying(s, n);
      HostScope* where = Lookup(s, n);
      auto a = aliases_.find({where != nullptr ? where : &scopes_.front(), n});
      if (a != aliases_.end()) todo.insert(todo.end(), a->second.begin(), a->second.end());
    }
  }

  // ---- bindings ---------------------------------------------------------------------------------
  void BindTarget(HostScope* s, ExprNode* t, bool varying, bool small = false) {
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
      if (!v) return;
      NoteWildWrite(s, sub->value);
      if (auto* inner = As<Attribute>(sub->value)) {
        SetAttrVarying(inner->attr);
      } else if (std::string_view root = RootName(sub->value); !root.empty()) {
        SetContainerVarying(s, root);
      }
    }
  }

  // `a, b = x, y` binds element by element.
  void BindAssign(const Ctx& c, ExprNode* target, ExprNode* value) {
    auto* tt = As<Tuple>(target);
    auto* vt = As<Tuple>(value);
    if (tt != nullptr && vt != nullptr && tt->elts.size() == vt->elts.size()) {
      for (uint32_t i = 0; i < tt->elts.size(); ++i) BindAssign(c, tt->elts[i], vt->elts[i]);
      return;
    }
    bool v = Deg(c, value);
    if (!c.report) BindTarget(c.scope, target, v);
  }

  // ---- the walk ---------------------------------------------------------------------------------
  void WalkScope(HostScope* s, bool report) {
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
  void BindDefaults(HostScope* s) {
    Arguments* a = IsScopeNode(s->node) && s->node->kind != NodeKind::kClassDef
                       ? ViewFn(s->node).args
                       : nullptr;
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
  void NoteReturnVaries(HostScope* s) {
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

  void Stmts(const Ctx& c, Span<StmtNode*> body) {
    for (StmtNode* st : body) Stmt(c, st);
  }

  void Stmt(const Ctx& c, StmtNode* n) {
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
  bool AddsToItself(const Ctx& c, ExprNode* target, ExprNode* value) {
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
  bool TestVariesOutside(const Ctx& c, While* w) {
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
              if (auto* nm = As<Name>(v); nm != nullptr && Key(nm->id) == k) self = true;
              if (auto* a = As<Attribute>(v); a != nullptr && "." + std::string(a->attr) == k)
                self = true;
            });
            (self ? written : rebound).insert(k);
          }
        } else if (auto* nm = As<Name>(x);
                   nm != nullptr && nm->ctx == ExprContext::kStore && !targets.count(x)) {
          rebound.insert(std::string(nm->id));  // a for target, a walrus, a with target
        }
      });
    }
    for (const Key& k : rebound) written.erase(k);
    bool outside = false;
    analyzer::WalkAll(w->test, [&](Node* x) {
      if (auto* nm = As<Name>(x); nm != nullptr && nm->ctx == ExprContext::kLoad) {
        if (!written.count(std::string(nm->id)) && NameVarying(c.scope, nm->id)) outside = true;
      } else if (auto* a = As<Attribute>(x); a != nullptr && a->ctx == ExprContext::kLoad) {
        if (!written.count("." + std::string(a->attr)) &&
            attr_varying_.count(std::string(a->attr))) {
          outside = true;
        }
      }
    });
    return outside;
  }

  // Whether adding `added` here builds a product: the loop's trip count varies, or the value
  // selects by a varying test inside a loop.
  bool AddsUpAProduct(const Ctx& c, ExprNode* added) {
    return c.varying_trips || (c.in_loop && SelectsByVarying(c, added));
  }

  // Whether an added value selects by a varying test: a conditional expression, a boolean
  // operator or a comparison on varying values, min/max of two varying values, or a display or
  // varying container indexed by a varying value. Added up in a loop, a selection is a guard:
  // acc += a if j < d else 0 over j counts a * d.
  bool SelectsByVarying(const Ctx& c, ExprNode* e) {
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

  // An expression that builds a collection (not a name or attribute that holds one).
  static bool BuildsACollection(ExprNode* e) {
    switch (e->kind) {
      case NodeKind::kListComp:
      case NodeKind::kSetComp:
      case NodeKind::kDictComp:
      case NodeKind::kGeneratorExp:
      case NodeKind::kBinOp:
      case NodeKind::kCall:
      case NodeKind::kList:
      case NodeKind::kTuple:
      case NodeKind::kSet:
        return true;
      case NodeKind::kSubscript:
        return As<Subscript>(e)->slice->kind == NodeKind::kSlice &&
               As<Subscript>(e)->value->kind != NodeKind::kName &&
               As<Subscript>(e)->value->kind != NodeKind::kAttribute;
      default:
        return false;
    }
  }

  // A loop body that leaves the loop (break, return) under a varying test runs a varying number
  // of times (while True: if c >= d: break). Nested loops have their own breaks.
  bool BreaksOnVarying(const Ctx& c, Span<StmtNode*> body) {
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

  // Whether a subscript chain's index varies (the inner T[x] of T[x][d]).
  bool IndexedByVarying(const Ctx& c, ExprNode* e) {
    auto* sub = As<Subscript>(e);
    if (sub == nullptr) return false;
    return Deg(c, sub->slice) || IndexedByVarying(c, sub->value);
  }
  // Whether a subscript chain starts at a Python container (not a tensor: x[b][h] is a view).
  bool RootsInContainer(HostScope* s, ExprNode* e) {
    while (auto* sub = As<Subscript>(e)) e = sub->value;
    if (IsContainerValue(s, e)) return true;
    auto* name = As<Name>(e);
    if (name == nullptr) return false;
    HostScope* where = Lookup(s, name->id);
    return where != nullptr && IsContainerName(where, name->id);
  }

  template <typename TryNode>
  void TryStmt(const Ctx& c, TryNode* t) {
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
  void DefinitionExprs(const Ctx& c, Node* n) {
    ForEachDefinitionExpr(n, [&](ExprNode* e) { Deg(c, e); });
  }

  // Every name, attribute and container a branch body stores to varies (nested scopes aside).
  void BindBranchTargets(HostScope* s, Span<StmtNode*> body) {
    for (StmtNode* st : body) {
      auto visit = [&](auto&& self, Node* x) -> void {
        if (x == nullptr || Skipped(x)) return;
        if (IsScopeNode(x)) {
          if (IsFunctionDef(x)) SetVarying(s, ViewFn(x).name);  // def f under the branch
          return;
        }
        if (auto* name = As<Name>(x); name != nullptr && name->ctx == ExprContext::kStore) {
          BindTarget(s, name, true);
        } else if (auto* a = As<Attribute>(x); a != nullptr && a->ctx == ExprContext::kStore) {
          BindTarget(s, a, true);
        } else if (auto* sub = As<Subscript>(x);
                   sub != nullptr && sub->ctx == ExprContext::kStore) {
          BindTarget(s, sub, true);
        } else if (auto* r = As<Return>(x); r != nullptr && r->value != nullptr) {
          NoteReturnVaries(s);
        }
        ForEachChild(x, [&](Node* ch) { self(self, ch); });
      };
      visit(visit, st);
    }
  }

  // ---- recurrences ----------------------------------------------------------------------------
  // The writes a loop body (or a function body) makes, in textual order; reads of a statement
  // come before its writes. Nested defs are their own scopes.
  void CollectWrites(const Ctx& c, Span<StmtNode*> body, std::vector<Write>* writes,
                     std::vector<std::pair<Key, int>>* reads, int* order) {
    for (StmtNode* st : body) CollectWrite(c, st, writes, reads, order);
  }

  // The reads of n, with the attributes the file functions it calls read.
  void NoteReads(const Ctx& c, Node* n, std::vector<std::pair<Key, int>>* reads, int order) {
    analyzer::WalkAll(n, [&](Node* x) {
      if (auto* name = As<Name>(x); name != nullptr && name->ctx == ExprContext::kLoad) {
        reads->push_back({Key(name->id), order});
      } else if (auto* a = As<Attribute>(x);
                 a != nullptr && a->ctx == ExprContext::kLoad && bind_.Resolve(a).empty()) {
        reads->push_back({"." + std::string(a->attr), order});
      } else if (auto* call = As<Call>(x)) {
        for (HostScope* f : Resolve(c.scope, call).fns) {
          for (const Key& k : AttrKeys(f, false)) reads->push_back({k, order});
        }
      }
    });
  }

  // The attributes the file functions called in n write (self.step() updating self.v).
  void NoteCallWrites(const Ctx& c, Node* n, Node* at, std::vector<Write>* writes, int order) {
    analyzer::WalkAll(n, [&](Node* x) {
      auto* call = As<Call>(x);
      if (call == nullptr) return;
      for (HostScope* f : Resolve(c.scope, call).fns) {
        for (const Key& k : AttrKeys(f, true)) {
          Write w;
          w.key = k;
          w.node = at;
          w.value = call;
          w.order = order;
          writes->push_back(std::move(w));
        }
      }
    });
  }

  void AddWrites(ExprNode* target, ExprNode* value, Node* at, std::vector<Write>* writes,
                 int order) {
    auto* tt = As<Tuple>(target);
    auto* vt = As<Tuple>(value);
    if (tt != nullptr && vt != nullptr && tt->elts.size() == vt->elts.size()) {
      for (uint32_t i = 0; i < tt->elts.size(); ++i)
        AddWrites(tt->elts[i], vt->elts[i], at, writes, order);
      return;
    }
    if (tt != nullptr) {
      for (ExprNode* e : tt->elts) AddWrites(e, value, at, writes, order);
      return;
    }
    Write w;
    w.key = TargetKey(target);
    if (w.key.empty()) return;
    w.node = at;
    w.value = value;
    if (auto* sub = As<Subscript>(target)) {
      w.also.push_back(sub->slice);
      w.mutation = true;
    }
    w.order = order;
    writes->push_back(std::move(w));
  }

  template <typename TryNode>
  void TryWrites(const Ctx& c, TryNode* t, std::vector<Write>* writes,
                 std::vector<std::pair<Key, int>>* reads, int* order) {
    CollectWrites(c, t->body, writes, reads, order);
    for (ExceptHandler* h : t->handlers) CollectWrites(c, h->body, writes, reads, order);
    CollectWrites(c, t->orelse, writes, reads, order);
    CollectWrites(c, t->finalbody, writes, reads, order);
  }

  void CollectWrite(const Ctx& c, StmtNode* st, std::vector<Write>* writes,
                    std::vector<std::pair<Key, int>>* reads, int* order) {
    if (Skipped(st) || IsScopeNode(st)) return;
    int here = ++*order;
    switch (st->kind) {
      case NodeKind::kAssign: {
        auto* a = As<Assign>(st);
        NoteReads(c, a->value, reads, here);
        NoteCallWrites(c, a->value, st, writes, here);
        NoteMutatorWrites(a->value, st, writes, here);
        for (ExprNode* t : a->targets) AddWrites(t, a->value, st, writes, here);
        return;
      }
      case NodeKind::kAnnAssign: {
        auto* a = As<AnnAssign>(st);
        if (a->value == nullptr) return;
        NoteReads(c, a->value, reads, here);
        NoteCallWrites(c, a->value, st, writes, here);
        NoteMutatorWrites(a->value, st, writes, here);
        AddWrites(a->target, a->value, st, writes, here);
        return;
      }
      case NodeKind::kAugAssign: {
        auto* a = As<AugAssign>(st);
        NoteReads(c, a->value, reads, here);
        NoteCallWrites(c, a->value, st, writes, here);
        NoteMutatorWrites(a->value, st, writes, here);
        reads->push_back({TargetKey(a->target), here});
        Write w;
        w.key = TargetKey(a->target);
        w.node = st;
        w.value = a->value;
        w.aug = true;
        w.op = a->op;
        w.order = here;
        if (!w.key.empty()) writes->push_back(std::move(w));
        return;
      }
      case NodeKind::kFor: {
        auto* f = As<For>(st);
        NoteReads(c, f->iter, reads, here);
        AddWrites(f->target, f->iter, st, writes, here);  // each element of the iterable
        CollectWrites(c, f->body, writes, reads, order);
        CollectWrites(c, f->orelse, writes, reads, order);
        return;
      }
      case NodeKind::kWhile: {
        auto* w = As<While>(st);
        NoteReads(c, w->test, reads, here);
        CollectWrites(c, w->body, writes, reads, order);
        CollectWrites(c, w->orelse, writes, reads, order);
        return;
      }
      case NodeKind::kIf: {
        auto* i = As<If>(st);
        NoteReads(c, i->test, reads, here);
        CollectWrites(c, i->body, writes, reads, order);
        CollectWrites(c, i->orelse, writes, reads, order);
        return;
      }
      case NodeKind::kWith: {
        auto* w = As<With>(st);
        for (WithItem* item : w->items) NoteReads(c, item->context_expr, reads, here);
        CollectWrites(c, w->body, writes, reads, order);
        return;
      }
      case NodeKind::kTry:
        TryWrites(c, As<Try>(st), writes, reads, order);
        return;
      case NodeKind::kTryStar:
        TryWrites(c, As<TryStar>(st), writes, reads, order);
        return;
      default:
        break;
    }
    // Any other statement: its reads, and what its calls and del write.
    NoteReads(c, st, reads, here);
    NoteCallWrites(c, st, st, writes, here);
    NoteMutatorWrites(st, st, writes, here);
    if (auto* d = As<Delete>(st)) {
      for (ExprNode* t : d->targets) {
        Write w;
        w.key = TargetKey(t);
        if (w.key.empty()) continue;
        w.node = st;
        w.order = here;
        w.mutation = true;
        writes->push_back(std::move(w));
      }
    }
  }

  // The containers the mutating calls in n write (pts.pop(0) in `k = pts.pop(0)` too).
  void NoteMutatorWrites(Node* n, Node* at, std::vector<Write>* writes, int order) {
    analyzer::WalkAll(n, [&](Node* x) {
      auto* call = As<Call>(x);
      auto* attr = call != nullptr ? As<Attribute>(call->func) : nullptr;
      if (attr == nullptr || !Contains(kMutators, attr->attr)) return;
      Write w;
      w.key = TargetKey(attr->value);
      if (w.key.empty()) return;
      w.node = at;
      for (ExprNode* a : call->args) w.also.push_back(a);
      w.order = order;
      w.mutation = true;
      writes->push_back(std::move(w));
    });
  }

  // Keys a loop updates from their previous iteration's value: read at or before a write.
  static std::unordered_set<Key> Carried(const std::vector<Write>& writes,
                                         const std::vector<std::pair<Key, int>>& reads) {
    std::unordered_map<Key, int> last_write;
    for (const Write& w : writes) last_write[w.key] = std::max(last_write[w.key], w.order);
    std::unordered_set<Key> carried;
    for (const auto& [k, order] : reads) {
      auto it = last_write.find(k);
      if (it != last_write.end() && order <= it->second) carried.insert(k);
    }
    return carried;
  }

  void LoopWrites(const Ctx& c, Node* loop, std::vector<Write>* writes,
                  std::vector<std::pair<Key, int>>* reads) {
    int order = 0;
    if (auto* w = As<While>(loop)) {
      NoteReads(c, w->test, reads, ++order);
      CollectWrites(c, w->body, writes, reads, &order);
    } else if (auto* f = As<For>(loop)) {
      ++order;
      CollectWrites(c, f->body, writes, reads, &order);
    }
  }

  // A name or attribute a large loop carries from one iteration to the next varies.
  void MarkCarried(HostScope* s, Node* loop) {
    Ctx c{s, false};
    std::vector<Write> writes;
    std::vector<std::pair<Key, int>> reads;
    LoopWrites(c, loop, &writes, &reads);
    for (const Key& k : Carried(writes, reads)) {
      if (k[0] == '.') {
        SetAttrVarying(std::string_view(k).substr(1));
      } else {
        auto it = s->locals.find(std::string_view(k));
        if (it != s->locals.end()) SetVarying(s, *it);
      }
    }
  }

  void CheckRecurrences() {
    for (HostScope& s : scopes_) {
      Ctx c{&s, true};
      ForEachOwnNode(&s, [&](Node* n) {
        auto* f = As<For>(n);
        // Not bookkeeping loops: numel = 1; for d in x.shape: numel *= d is a product per dim.
        bool large = n->kind == NodeKind::kWhile || (f != nullptr && SmallSize(&s, f->iter) == 0);
        if (!large) return;
        std::vector<Write> writes;
        std::vector<std::pair<Key, int>> reads;
        LoopWrites(c, n, &writes, &reads);
        CheckUpdates(c, writes, Carried(writes, reads), {});
      });
    }
    // State that outlives a call and that a function updates from itself: the function may run
    // once per iteration of a caller's loop.
    for (HostScope& s : scopes_) {
      if (!IsFunctionDef(s.node)) continue;
      Ctx c{&s, true};
      std::vector<Write> writes;
      std::unordered_set<Key> carried = FunctionState(&s, &writes);
      CheckUpdates(c, writes, carried, {});
    }
    // Functions whose parameters (or attributes) a recurrence passes: what they return is the
    // next value.
    std::unordered_set<HostScope*> done;
    for (bool more = true; more;) {
      more = false;
      for (HostScope& s : scopes_) {
        if (!s.in_recurrence || !done.insert(&s).second) continue;
        more = true;
        Ctx c{&s, true};
        std::vector<Write> writes;
        std::vector<std::pair<Key, int>> reads;
        int order = 0;
        if (IsFunctionDef(s.node)) CollectWrites(c, ViewFn(s.node).body, &writes, &reads, &order);
        std::unordered_set<Key> carried;
        for (size_t i = s.owner != nullptr && !IsStatic(&s) ? 1 : 0; i < s.params.size(); ++i) {
          carried.insert(Key(s.params[i]));
        }
        for (const Key& k : AttrKeys(&s, false)) {
          if (MutableAttrs().count(k)) carried.insert(k);
        }
        std::vector<ExprNode*> returns;
        if (auto* lam = As<Lambda>(s.node)) returns.push_back(lam->body);
        ForEachOwnNode(&s, [&](Node* n) {
          if (auto* r = As<Return>(n); r != nullptr && r->value != nullptr)
            returns.push_back(r->value);
        });
        CheckUpdates(c, writes, carried, returns);
      }
    }
  }

  // The state a function carries from one call to the next and updates from its old value:
  // attributes (not in a constructor, which writes a new object: `self.w = ref.w` would mix
  // keys), an enclosing scope's names, and containers a parameter hands in (state[0] = ...).
  std::unordered_set<Key> FunctionState(HostScope* s, std::vector<Write>* writes) {
    Ctx c{s, false};
    std::vector<std::pair<Key, int>> reads;
    int order = 0;
    CollectWrites(c, ViewFn(s->node).body, writes, &reads, &order);
    std::unordered_set<Key> mutated;
    for (const Write& w : *writes) {
      if (w.mutation) mutated.insert(w.key);
    }
    std::unordered_set<Key> carried;
    for (const Key& k : Carried(*writes, reads)) {
      bool param =
          std::find(s->params.begin(), s->params.end(), std::string_view(k)) != s->params.end() &&
          !s->packed.count(std::string_view(k));
      if (k[0] == '.' ? s->name != "__init__"
                      : (!s->locals.count(std::string_view(k)) || (param && mutated.count(k)))) {
        carried.insert(k);
      }
    }
    return carried;
  }

  // What a function carries across calls varies (a closure's counter pos[0] += 1).
  void MarkFunctionState() {
    for (HostScope& s : scopes_) {
      if (!IsFunctionDef(s.node)) continue;
      std::vector<Write> writes;
      for (const Key& k : FunctionState(&s, &writes)) {
        if (k[0] == '.') {
          SetAttrVarying(std::string_view(k).substr(1));
          continue;
        }
        HostScope* where = Lookup(&s, std::string_view(k));
        if (where == nullptr) continue;
        auto it = where->locals.find(std::string_view(k));
        if (it != where->locals.end()) where->varying.insert(*it);
      }
    }
  }

  // Checks the writes that feed the carried keys (and the returned values) by their slopes.
  void CheckUpdates(const Ctx& c, const std::vector<Write>& writes,
                    const std::unordered_set<Key>& carried, const std::vector<ExprNode*>& sinks) {
    if (carried.empty()) return;
    // The keys whose writes feed a carried key or a sink, closed over the writes.
    std::unordered_set<Key> relevant(carried.begin(), carried.end());
    auto add_reads = [&](Node* e) {
      if (e == nullptr) return;
      analyzer::WalkAll(e, [&](Node* x) {
        if (auto* name = As<Name>(x)) relevant.insert(Key(name->id));
        if (auto* a = As<Attribute>(x)) relevant.insert("." + std::string(a->attr));
      });
    };
    for (ExprNode* r : sinks) add_reads(r);
    for (size_t before = 0; before != relevant.size();) {
      before = relevant.size();
      for (const Write& w : writes) {
        if (!relevant.count(w.key)) continue;
        add_reads(w.value);
        for (ExprNode* a : w.also) add_reads(a);
      }
    }
    std::map<Key, Slopes> state;
    for (const Key& k : carried) state[k].by_key[k] = kSlopePlus;
    for (const Write& w : writes) {
      if (!relevant.count(w.key)) continue;
      Slopes s = w.value != nullptr ? Slope(c, state, w.value) : Slopes{};
      for (ExprNode* a : w.also) s = Union(s, Slope(c, state, a));
      if (w.aug) {
        Slopes prev = state.count(w.key) ? state[w.key] : Slopes{};
        if (w.op == OperatorKind::kAdd || w.op == OperatorKind::kSub) {
          s = Combine(prev, s, w.op == OperatorKind::kSub);
        } else if (!prev.by_key.empty() || !s.by_key.empty()) {
          s.bad = true;
        }
      } else if (!w.also.empty() && w.value == nullptr) {
        s = Union(state.count(w.key) ? state[w.key] : Slopes{}, s);  // a container grows
      }
      if (!Valid(s)) {
        Report(c, w.node, "a loop updates a value from its previous value by more than adding");
        s = Slopes{};
      }
      state[w.key] = state.count(w.key) && !carried.count(w.key) ? Union(state[w.key], s) : s;
    }
    for (ExprNode* r : sinks) {
      if (!Valid(Slope(c, state, r))) {
        Report(c, r, "a function a loop calls returns more than its argument plus a fixed value");
      }
    }
  }

  // How e depends on the carried values, as they were when the iteration (or call) began.
  Slopes Slope(const Ctx& c, const std::map<Key, Slopes>& state, ExprNode* e) {
    Slopes none;
    if (e == nullptr) return none;
    auto lookup = [&](const Key& k) -> const Slopes* {
      auto it = state.find(k);
      return it == state.end() ? nullptr : &it->second;
    };
    switch (e->kind) {
      case NodeKind::kName: {
        const Slopes* s = lookup(Key(As<Name>(e)->id));
        return s != nullptr ? *s : none;
      }
      case NodeKind::kAttribute: {
        auto* a = As<Attribute>(e);
        const Slopes* s = lookup("." + std::string(a->attr));
        return s != nullptr ? *s : Slope(c, state, a->value);
      }
      case NodeKind::kSubscript: {
        auto* sub = As<Subscript>(e);
        Slopes idx = Slope(c, state, sub->slice);
        // A lookup by an updated index iterates whatever function the table holds (a table
        // of v + v // 64 is an exp table's step).
        if (!idx.by_key.empty()) idx.bad = true;
        return idx.bad ? idx : Slope(c, state, sub->value);
      }
      case NodeKind::kBinOp: {
        auto* b = As<BinOp>(e);
        Slopes l = Slope(c, state, b->left), r = Slope(c, state, b->right);
        if (b->op == OperatorKind::kAdd || b->op == OperatorKind::kSub) {
          return Combine(l, r, b->op == OperatorKind::kSub);
        }
        Slopes out = Union(l, r);
        if (!l.by_key.empty() || !r.by_key.empty()) out.bad = true;
        return out;
      }
      case NodeKind::kUnaryOp: {
        auto* u = As<UnaryOp>(e);
        Slopes s = Slope(c, state, u->operand);
        if (u->op == UnaryOpKind::kNot) return Slopes{{}, s.bad};
        if (u->op == UnaryOpKind::kUAdd) return s;
        for (auto& [k, m] : s.by_key) m = NegateMask(m);
        return s;
      }
      case NodeKind::kCompare: {
        Slopes s;
        ForEachChild(e, [&](Node* ch) {
          if (IsExpr(ch->kind) && Slope(c, state, static_cast<ExprNode*>(ch)).bad) s.bad = true;
        });
        return s;  // a truth value
      }
      case NodeKind::kCall:
        return CallSlope(c, state, As<Call>(e));
      case NodeKind::kListComp:
        return CompSlope(c, state, As<ListComp>(e)->generators, {As<ListComp>(e)->elt});
      case NodeKind::kSetComp:
        return CompSlope(c, state, As<SetComp>(e)->generators, {As<SetComp>(e)->elt});
      case NodeKind::kGeneratorExp:
        return CompSlope(c, state, As<GeneratorExp>(e)->generators, {As<GeneratorExp>(e)->elt});
      case NodeKind::kDictComp:
        return CompSlope(c, state, As<DictComp>(e)->generators,
                         {As<DictComp>(e)->key, As<DictComp>(e)->value});
      case NodeKind::kLambda:
      case NodeKind::kConstant:
      case NodeKind::kJoinedStr:
        return none;
      default: {
        // Displays, boolean operators, conditional expressions, starred: any of the parts.
        Slopes s;
        ForEachChild(e, [&](Node* ch) {
          if (IsExpr(ch->kind)) s = Union(s, Slope(c, state, static_cast<ExprNode*>(ch)));
        });
        return s;
      }
    }
  }

  // A comprehension over an updated container maps each element: its variables carry the
  // container's dependence ([T[u] for u in U] iterates the table like U = T[U] would).
  Slopes CompSlope(const Ctx& c, const std::map<Key, Slopes>& state, Span<Comprehension*> gens,
                   std::initializer_list<ExprNode*> elts) {
    std::map<Key, Slopes> inner = state;
    Slopes out;
    for (Comprehension* g : gens) {
      Slopes it = Slope(c, inner, g->iter);
      out = Union(out, it);
      analyzer::WalkAll(g->target, [&](Node* n) {
        if (auto* name = As<Name>(n)) inner[Key(name->id)] = it;
      });
      for (ExprNode* cond : g->ifs) out.bad = out.bad || Slope(c, inner, cond).bad;
    }
    for (ExprNode* e : elts) out = Union(out, Slope(c, inner, e));
    return out;
  }

  bool IsLoopTarget(HostScope* s, std::string_view id) {
    bool found = false;
    ForEachOwnNode(s, [&](Node* n) {
      auto* f = As<For>(n);
      if (f == nullptr) return;
      analyzer::WalkAll(f->target, [&](Node* t) {
        if (NameOf(t) == id) found = true;
      });
    });
    return found;
  }

  Slopes CallSlope(const Ctx& c, const std::map<Key, Slopes>& state, Call* call) {
    Slopes args;
    for (ExprNode* a : call->args) args = Union(args, Slope(c, state, a));
    for (Keyword* k : call->keywords) args = Union(args, Slope(c, state, k->value));
    bool dependent = !args.by_key.empty();
    auto* fname = As<Name>(call->func);
    if (fname != nullptr && IsBuiltinName(c.scope, fname->id)) {
      std::string_view f = fname->id;
      if (f == "abs") {
        for (auto& [k, m] : args.by_key) m |= NegateMask(m);
        return args;
      }
      if (f == "min" || f == "max" || f == "int" || f == "float" || f == "bool" || f == "len" ||
          f == "range" || f == "list" || f == "tuple" || f == "sorted" || f == "reversed" ||
          f == "enumerate" || f == "zip" || (f == "round" && call->args.size() == 1)) {
        return args;
      }
      if (dependent) args.bad = true;
      return args;
    }
    Callees to = Resolve(c.scope, call);
    if (!to.fns.empty()) {
      // A file function: it is checked on its own, from its parameters and the attributes it
      // reads to what it returns.
      if (dependent || ReadsState(to.fns, state)) {
        for (HostScope* f : to.fns) f->in_recurrence = true;
      }
      // Checked alone, each returns at most its argument plus a fixed value, so the call
      // carries the arguments' dependence: same(e) * r is a product of e, as e * r is.
      return args;
    }
    if (auto* sub = As<Subscript>(call->func)) {
      // k[grid](...) returns no number; a callable picked from a container (fs[0](v)) might.
      auto* k = As<Name>(sub->value);
      bool launch = k != nullptr && (bind_.kernels.count(k->id) || IsLoopTarget(c.scope, k->id));
      if (dependent && !launch) args.bad = true;
      return Slopes{{}, args.bad};
    }
    if (dependent && !to.resolved && !AliasOfImport(c.scope, call->func)) {
      // An unknown callable: a lambda, a callback or a module's forward may be what runs.
      for (HostScope& f : scopes_) {
        bool module_forward =
            f.owner != nullptr && f.name == "forward" && f.owner->name != "ModelNew";
        if (module_forward || (f.params_varying && !f.grid)) f.in_recurrence = true;
      }
      return Slopes{{}, args.bad};
    }
    // torch, math and the rest: a number handed to them is not bookkeeping (torch.empty(v,
    // 65).numel() // 64 is v's next step). A method only carries its receiver (t.unsqueeze(0),
    // x.shape of an updated tensor).
    if (dependent) args.bad = true;
    auto* attr = As<Attribute>(call->func);
    if (attr != nullptr && bind_.Resolve(call->func).empty()) {
      return Union(Slope(c, state, attr->value), args);
    }
    return args;
  }

  // Whether a function (or one it calls) reads an attribute the recurrence updates.
  bool ReadsState(const std::vector<HostScope*>& fns, const std::map<Key, Slopes>& state) {
    for (HostScope* f : fns) {
      for (const Key& k : AttrReads(f)) {
        if (state.count(k)) return true;
      }
    }
    return false;
  }

  // Every attribute key a function reads (or writes), through the file functions it calls.
  const std::set<Key>& AttrReads(HostScope* f) { return AttrKeys(f, false); }
  const std::set<Key>& AttrKeys(HostScope* f, bool writes) {
    auto& cache = writes ? attr_writes_ : attr_reads_;
    auto it = cache.find(f);
    if (it != cache.end()) return it->second;
    std::set<Key>& out = cache[f];
    std::vector<HostScope*> stack{f};
    std::unordered_set<HostScope*> seen{f};
    while (!stack.empty()) {
      HostScope* g = stack.back();
      stack.pop_back();
      ForEachOwnNode(g, [&](Node* n) {
        if (auto* a = As<Attribute>(n); a != nullptr && bind_.Resolve(a).empty()) {
          bool store = a->ctx == ExprContext::kStore;
          if (store == writes) out.insert("." + std::string(a->attr));
        }
        auto* call = As<Call>(n);
        if (call == nullptr) return;
        if (auto* m = As<Attribute>(call->func);
            writes && m != nullptr && Contains(kMutators, m->attr)) {
          Key k = TargetKey(m->value);
          if (!k.empty() && k[0] == '.') out.insert(k);
        }
        for (HostScope* h : Resolve(g, call).fns) {
          // A constructor writes a new object's attributes, not state a caller carries.
          if (writes && h->name == "__init__") continue;
          if (seen.insert(h).second) stack.push_back(h);
        }
      });
    }
    return out;
  }

  // Attributes some function other than a constructor writes: the state calls can carry.
  const std::set<Key>& MutableAttrs() {
    if (!mutable_attrs_ready_) {
      for (HostScope& f : scopes_) {
        if (!IsFunctionDef(f.node) || f.name == "__init__") continue;
        for (const Key& k : AttrKeys(&f, true)) mutable_attrs_.insert(k);
      }
      mutable_attrs_ready_ = true;
    }
    return mutable_attrs_;
  }

  // A local name every binding of which is an import's value (f = torch.empty).
  bool AliasOfImport(HostScope* s, Node* callee) {
    auto* name = As<Name>(callee);
    if (name == nullptr) return false;
    HostScope* where = Lookup(s, name->id);
    if (where == nullptr) return false;
    auto v = values_.find({where, name->id});
    if (v == values_.end() || unsmall_.count({where, name->id})) return false;
    for (ExprNode* e : v->second) {
      if (bind_.Resolve(e).empty()) return false;
    }
    return true;
  }

  Module* mod_;
  std::vector<RawFinding>* out_;
  Bindings bind_;
  std::deque<HostScope> scopes_;
  std::unordered_map<const Node*, HostScope*> scope_of_;
  std::unordered_map<std::string_view, std::vector<HostScope*>> defs_, methods_, inits_;
  std::map<std::pair<HostScope*, std::string_view>, std::vector<ExprNode*>> values_;
  std::set<std::pair<HostScope*, std::string_view>> unsmall_;
  std::unordered_map<std::string_view, std::vector<ExprNode*>> attr_values_;
  std::unordered_set<std::string_view> mutated_attrs_;
  std::unordered_map<std::string_view, int> attr_stores_;
  std::vector<std::pair<HostScope*, std::string_view>> pending_mutations_;
  std::vector<std::pair<HostScope*, std::string_view>> pending_escapes_;
  // Python containers held somewhere else too (in a display, an attribute, a call's argument).
  std::set<std::pair<HostScope*, std::string_view>> escaped_;
  std::vector<std::tuple<HostScope*, std::string_view, std::string_view>> pending_aliases_;
  std::map<std::pair<HostScope*, std::string_view>, std::vector<std::string_view>> aliases_;
  std::unordered_set<std::string> attr_varying_;
  std::unordered_set<const Node*> callee_;
  std::unordered_set<const Node*> reported_;
  std::unordered_set<std::string_view> classes_;
  std::unordered_map<std::string_view, std::vector<HostScope*>> class_scopes_;
  std::set<Key> mutable_attrs_;
  std::unordered_map<std::string_view, std::vector<HostScope*>> grid_scopes_;
  std::vector<std::pair<std::string_view, Node*>> lambda_grid_names_;
  bool mutable_attrs_ready_ = false;
  std::unordered_map<HostScope*, std::set<Key>> attr_reads_, attr_writes_;
  bool changed_ = false;
};

}  // namespace

void CheckHostCompute(Module* module, std::vector<RawFinding>* findings) {
  HostComputeChecker(module, findings).Run();
}

}  // namespace tritonrl::verify
