// The host-compute rule's degrees (the rule is defined in subset_host_compute_checker.h): whether
// an expression is fixed or varying, and which combinations of varying values are out. A table of
// the task's function needs real arithmetic on loop values, so Deg is where a product, quotient,
// power or math function of two varying values is reported; + and -, comparisons, indexing and
// torch stay bookkeeping. The same pass records what it learns (a name bound from a varying value,
// a container written with one) so that the walk can repeat until nothing new varies. Loops over
// small displays are sized here too: their variables are fixed where the loop is.
#include <algorithm>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "verify/allowlist.h"
#include "verify/subset_host_compute_checker.h"

namespace tritonrl::verify::host_compute {
namespace {

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

// Methods a loop-varying receiver or argument may reach and stay bookkeeping: tensor methods
// (audited at run time), the containers' mutators and their lookups. Any other method of a
// Python value iterates, counts or computes in C where no rule reads: ("0" * u).replace("0",
// "0" * v).count("0") is u * v, ("\t" * a).expandtabs(b) a product, (1 << u).bit_length() a
// logarithm, tuple.index a search.
constexpr std::string_view kContainerLookups[] = {"get", "keys", "values", "items", "copy"};
bool IsBookkeepingMethod(std::string_view m) {
  const Allowlist& allow = BuiltinAllowlist();
  return allow.tensor_methods.count(m) > 0 || allow.tensor_compute_methods.count(m) > 0 ||
         Contains(kMutators, m) || Contains(kContainerLookups, m);
}

// range() of int literals: its length when at most kSmallLoop (1 when empty), else 0.
int RangeSize(Call* call) {
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

// An expression that builds a collection (not a name or attribute that holds one).
bool BuildsACollection(ExprNode* e) {
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

}  // namespace

void HostComputeChecker::Report(const Ctx& c, const Node* n, std::string detail) {
  if (!c.report || !reported_.insert(n).second) return;
  out_->push_back(FindingAt(kRule, n, std::move(detail)));
}

void HostComputeChecker::SetVarying(HostScope* s, std::string_view id) {
  HostScope* where = Lookup(s, id);
  if (where == nullptr) where = &scopes_.front();
  if (where->varying.insert(id).second) changed_ = true;
}

void HostComputeChecker::SetAttrVarying(std::string_view attr) {
  if (attr.empty()) return;
  if (attr_varying_.insert(std::string(attr)).second) changed_ = true;
}

bool HostComputeChecker::NameVarying(HostScope* s, std::string_view id) const {
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
int HostComputeChecker::SmallSize(HostScope* s, ExprNode* it, int depth) {
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
    if (attr->attr == "shape") return IsTensorDims(it) ? kShapeLoop : 0;
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
  if (call->func->kind == NodeKind::kAttribute) return IsTensorDims(it) ? kShapeLoop : 0;
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

// `x.shape`, `x.size()` or `x.stride()`, where the file defines no attribute or method of that
// name: a tensor's dims, at most kShapeLoop of them.
bool HostComputeChecker::IsTensorDims(ExprNode* e) const {
  if (auto* attr = As<Attribute>(e)) {
    return attr->attr == "shape" && !attr_stores_.count("shape") && !methods_.count("shape");
  }
  auto* call = As<Call>(e);
  auto* attr = call != nullptr ? As<Attribute>(call->func) : nullptr;
  return attr != nullptr && (attr->attr == "size" || attr->attr == "stride") &&
         call->args.empty() && !methods_.count(attr->attr) && !attr_stores_.count(attr->attr);
}

// A loop over a tensor's dims: .shape, .size(), .stride(), a name or attribute bound only to one,
// or zip/enumerate/reversed/sorted/list/tuple of them. Its recurrences are a shape's products
// (numel *= d), the one product recurrence the rule leaves unchecked.
bool HostComputeChecker::IsDimsIterable(HostScope* s, ExprNode* it, int depth) {
  if (depth > 4) return false;
  auto all_dims = [&](const std::vector<ExprNode*>& values) {
    if (values.empty()) return false;
    for (ExprNode* v : values) {
      if (!IsDimsIterable(s, v, depth + 1)) return false;
    }
    return true;
  };
  if (IsTensorDims(it)) return true;
  if (auto* attr = As<Attribute>(it)) {
    if (attr->attr == "shape") return false;
    auto v = attr_values_.find(attr->attr);
    return v != attr_values_.end() && !mutated_attrs_.count(attr->attr) &&
           attr_stores_[attr->attr] == static_cast<int>(v->second.size()) && all_dims(v->second);
  }
  if (auto* name = As<Name>(it)) {
    HostScope* where = Lookup(s, name->id);
    if (where == nullptr) where = &scopes_.front();
    auto v = values_.find({where, name->id});
    return v != values_.end() && !unsmall_.count({where, name->id}) && all_dims(v->second);
  }
  auto* call = As<Call>(it);
  if (call == nullptr) return false;
  auto* fn = As<Name>(call->func);
  if (fn == nullptr || !IsBuiltinName(s, fn->id) || call->args.empty()) return false;
  if (fn->id == "zip")
    return all_dims(std::vector<ExprNode*>(call->args.begin(), call->args.end()));
  return (fn->id == "enumerate" || fn->id == "reversed" || fn->id == "sorted" || fn->id == "list" ||
          fn->id == "tuple") &&
         call->args.size() == 1 && IsDimsIterable(s, call->args[0], depth + 1);
}

int HostComputeChecker::AllSmall(HostScope* s, const std::vector<ExprNode*>& values, int depth) {
  int n = 0;
  for (ExprNode* v : values) {
    int k = SmallSize(s, v, depth + 1);
    if (k == 0) return 0;
    n = std::max(n, k);
  }
  return n;
}

// Whether e mentions a variable of a bookkeeping loop: fixed where the loop is, but a function
// handed one runs once per value, so its parameter varies there.
bool HostComputeChecker::MentionsSmall(const Ctx& c, Node* e) {
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

// What a bookkeeping loop's body writes: names, ".attr" keys and the containers stored into. A
// container counts under its root name as well as its key (self.tab[i] = v writes .tab and self),
// which is more than TargetKey alone: MentionsSmall then sees the loop's values in either.
std::unordered_set<std::string> HostComputeChecker::SmallLoopWrites(const Ctx& c, For* loop) {
  std::unordered_set<std::string> out;
  if (c.small_written != nullptr) out = *c.small_written;
  auto container = [&](ExprNode* receiver) {
    if (auto* inner = As<Attribute>(receiver)) out.insert(TargetKey(inner));
    out.insert(std::string(RootName(receiver)));
  };
  analyzer::WalkAll(loop, [&](Node* n) {
    if (auto* name = As<Name>(n); name != nullptr && name->ctx == ExprContext::kStore) {
      out.insert(TargetKey(name));
    } else if (auto* a = As<Attribute>(n); a != nullptr && a->ctx == ExprContext::kStore) {
      out.insert(TargetKey(a));
    } else if (auto* sub = As<Subscript>(n); sub != nullptr && sub->ctx == ExprContext::kStore) {
      container(sub->value);
    } else if (auto* call = As<Call>(n)) {
      auto* m = As<Attribute>(call->func);
      if (m != nullptr && Contains(kMutators, m->attr)) container(m->value);
    }
  });
  out.erase("");
  return out;
}

bool HostComputeChecker::Deg(const Ctx& c, ExprNode* e) {
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
bool HostComputeChecker::ValueOfBanned(const Ctx& c, ExprNode* e) {
  std::string q = bind_.Resolve(e);
  bool banned = false;
  if (auto* name = As<Name>(e); name != nullptr && IsBuiltinName(c.scope, name->id)) {
    banned = name->id == "pow" || name->id == "sum" || name->id == "divmod";
  } else if (analyzer::StartsWith(q, "math.")) {
    banned = !Contains(kMathBookkeeping, q) && q != "math.pi" && q != "math.e" && q != "math.tau" &&
             q != "math.inf" && q != "math.nan";
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

bool HostComputeChecker::BinDeg(const Ctx& c, Node* at, OperatorKind op, bool l, bool r) {
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

bool HostComputeChecker::CompDeg(const Ctx& c, Span<Comprehension*> gens,
                                 std::initializer_list<ExprNode*> elts) {
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

bool HostComputeChecker::CallDeg(const Ctx& c, Call* call) {
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
  // A method of a Python value: not a module's function, a method of the file's classes or an
  // object the file holds (self.norm(h) runs a module).
  if (auto* m = As<Attribute>(call->func);
      m != nullptr && q.empty() && to.fns.empty() && !attr_stores_.count(m->attr) &&
      !IsBookkeepingMethod(m->attr) && (computed || Deg(c, m->value))) {
    Report(c, call,
           "." + std::string(m->attr) +
               "() of a loop-varying value (a method of a Python value computes in C)");
  }
  if (!q.empty()) {
    if (q == "triton.cdiv" && arg(1)) Report(c, call, "triton.cdiv by a loop-varying value");
    if (analyzer::StartsWith(q, "itertools.") && any) {
      // C iterates: with a loop-varying argument an element picked, a length or a position is a
      // product (count(0, a) read at n is a * n; product's length multiplies its iterables').
      Report(c, call, q + " over loop-varying values (it iterates in C)");
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

// lst.append(v), d.update(...), self.tab.extend(...): the container holds what was put in.
void HostComputeChecker::NoteMutation(const Ctx& c, Call* call, bool any) {
  auto* attr = As<Attribute>(call->func);
  if (attr == nullptr || !Contains(kMutators, attr->attr) || !any) return;
  NoteVaryingWrite(c.scope, attr->value);
}

// A container a varying value is written into (lst[i] = v, self.tab.append(v)) varies: under its
// attribute key when the receiver is an attribute, else under its root name (not TargetKey: the
// root of self.tab[0] is self, and its key .tab). A receiver the rule cannot name may be any
// container held elsewhere (NoteWildWrite).
void HostComputeChecker::NoteVaryingWrite(HostScope* s, ExprNode* receiver) {
  NoteWildWrite(s, receiver);
  if (auto* inner = As<Attribute>(receiver)) {
    SetAttrVarying(inner->attr);
  } else if (std::string_view root = RootName(receiver); !root.empty()) {
    SetContainerVarying(s, root);
  }
}

// A name whose every binding is a fresh Python container: a display, a comprehension, [v] * n
// or a container constructor.
bool HostComputeChecker::IsContainerName(HostScope* where, std::string_view id) {
  auto v = values_.find({where, id});
  if (v == values_.end() || v->second.empty()) return false;
  for (ExprNode* e : v->second) {
    if (!IsContainerValue(where, e)) return false;
  }
  return true;
}

bool HostComputeChecker::IsContainerValue(HostScope* s, ExprNode* e) {
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
void HostComputeChecker::NoteWildWrite(HostScope* s, ExprNode* receiver) {
  if (auto* name = As<Name>(receiver)) {
    HostScope* where = Lookup(s, name->id);
    if (where != nullptr && IsContainerName(where, name->id)) return;
  }
  for (auto [where, id] : escaped_) SetContainerVarying(where, id);
}

// A container written with a varying value varies, under every name that holds it (ref = box;
// ref[0] = i makes box[0] vary).
void HostComputeChecker::SetContainerVarying(HostScope* s, std::string_view id) {
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

// Whether a subscript chain's index varies (the inner T[x] of T[x][d]).
bool HostComputeChecker::IndexedByVarying(const Ctx& c, ExprNode* e) {
  auto* sub = As<Subscript>(e);
  if (sub == nullptr) return false;
  return Deg(c, sub->slice) || IndexedByVarying(c, sub->value);
}

// Whether a subscript chain starts at a Python container (not a tensor: x[b][h] is a view).
bool HostComputeChecker::RootsInContainer(HostScope* s, ExprNode* e) {
  while (auto* sub = As<Subscript>(e)) e = sub->value;
  if (IsContainerValue(s, e)) return true;
  auto* name = As<Name>(e);
  if (name == nullptr) return false;
  HostScope* where = Lookup(s, name->id);
  return where != nullptr && IsContainerName(where, name->id);
}

}  // namespace tritonrl::verify::host_compute
