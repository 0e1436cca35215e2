// The host-compute rule's recurrences (the rule is defined in subset_host_compute_checker.h). A
// loop that updates a value from its previous value can build a table one entry at a time (an exp
// table by a fixed ratio, a Fibonacci-like one by adding two updated values) with no product of
// two varying values anywhere, so degrees cannot see it. This phase collects the writes a loop or
// a function makes, finds the keys it carries across iterations or calls, and checks that each
// update reads at most one carried value with slope -1, 0 or +1 (Slopes), following the calls a
// recurrence passes its values through.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "verify/subset_host_compute_checker.h"

namespace tritonrl::verify::host_compute {
namespace {

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

// Keys a loop updates from their previous iteration's value: read at or before a write.
std::unordered_set<Key> Carried(const std::vector<Write>& writes, const Reads& reads) {
  std::unordered_map<Key, int> last_write;
  for (const Write& w : writes) last_write[w.key] = std::max(last_write[w.key], w.order);
  std::unordered_set<Key> carried;
  for (const auto& [k, order] : reads) {
    auto it = last_write.find(k);
    if (it != last_write.end() && order <= it->second) carried.insert(k);
  }
  return carried;
}

}  // namespace

// The writes a loop body (or a function body) makes, in textual order; reads of a statement
// come before its writes. Nested defs are their own scopes.
void HostComputeChecker::CollectWrites(const Ctx& c, Span<StmtNode*> body,
                                       std::vector<Write>* writes, Reads* reads, int* order) {
  for (StmtNode* st : body) CollectWrite(c, st, writes, reads, order);
}

// The reads of n, with the attributes the file functions it calls read.
void HostComputeChecker::NoteReads(const Ctx& c, Node* n, Reads* reads, int order) {
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
void HostComputeChecker::NoteCallWrites(const Ctx& c, Node* n, Node* at, std::vector<Write>* writes,
                                        int order) {
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

void HostComputeChecker::AddWrites(ExprNode* target, ExprNode* value, Node* at,
                                   std::vector<Write>* writes, int order) {
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
void HostComputeChecker::TryWrites(const Ctx& c, TryNode* t, std::vector<Write>* writes,
                                   Reads* reads, int* order) {
  CollectWrites(c, t->body, writes, reads, order);
  for (ExceptHandler* h : t->handlers) CollectWrites(c, h->body, writes, reads, order);
  CollectWrites(c, t->orelse, writes, reads, order);
  CollectWrites(c, t->finalbody, writes, reads, order);
}

void HostComputeChecker::CollectWrite(const Ctx& c, StmtNode* st, std::vector<Write>* writes,
                                      Reads* reads, int* order) {
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
void HostComputeChecker::NoteMutatorWrites(Node* n, Node* at, std::vector<Write>* writes,
                                           int order) {
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

void HostComputeChecker::LoopWrites(const Ctx& c, Node* loop, std::vector<Write>* writes,
                                    Reads* reads) {
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
void HostComputeChecker::MarkCarried(HostScope* s, Node* loop) {
  Ctx c{s, false};
  std::vector<Write> writes;
  Reads reads;
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

void HostComputeChecker::CheckRecurrences() {
  for (HostScope& s : scopes_) {
    Ctx c{&s, true};
    ForEachOwnNode(&s, [&](Node* n) {
      auto* f = As<For>(n);
      // Every loop but one over a tensor's dims (numel = 1; for d in x.shape: numel *= d is a
      // product per dim): a loop over a display of 16 values is bookkeeping for its variables'
      // degree, but a name or attribute it updates from itself is 16 steps of a table (e = e * r
      // // one, called four times in straight-line code, is a 64-value exp table). Its container
      // writes stay unchecked: kw[key] = kw[key].reshape(...) over ("mul", "add") maps each
      // element once (21 honest level-2 solutions do it).
      bool large = n->kind == NodeKind::kWhile || (f != nullptr && SmallSize(&s, f->iter) == 0);
      if (!large && (f == nullptr || IsDimsIterable(&s, f->iter))) return;
      std::vector<Write> writes;
      Reads reads;
      LoopWrites(c, n, &writes, &reads);
      std::unordered_set<Key> carried = Carried(writes, reads);
      if (!large) {
        for (const Write& w : writes) {
          if (w.mutation) carried.erase(w.key);
        }
      }
      CheckUpdates(c, writes, carried, {});
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
      Reads reads;
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
std::unordered_set<Key> HostComputeChecker::FunctionState(HostScope* s,
                                                          std::vector<Write>* writes) {
  Ctx c{s, false};
  Reads reads;
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
void HostComputeChecker::MarkFunctionState() {
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
void HostComputeChecker::CheckUpdates(const Ctx& c, const std::vector<Write>& writes,
                                      const std::unordered_set<Key>& carried,
                                      const std::vector<ExprNode*>& sinks) {
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
Slopes HostComputeChecker::Slope(const Ctx& c, const std::map<Key, Slopes>& state, ExprNode* e) {
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
Slopes HostComputeChecker::CompSlope(const Ctx& c, const std::map<Key, Slopes>& state,
                                     Span<Comprehension*> gens,
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

bool HostComputeChecker::IsLoopTarget(HostScope* s, std::string_view id) {
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

Slopes HostComputeChecker::CallSlope(const Ctx& c, const std::map<Key, Slopes>& state, Call* call) {
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
bool HostComputeChecker::ReadsState(const std::vector<HostScope*>& fns,
                                    const std::map<Key, Slopes>& state) {
  for (HostScope* f : fns) {
    for (const Key& k : AttrReads(f)) {
      if (state.count(k)) return true;
    }
  }
  return false;
}

// Every attribute key a function reads (or writes), through the file functions it calls.
const std::set<Key>& HostComputeChecker::AttrReads(HostScope* f) {
  return AttrKeys(f, false);
}

const std::set<Key>& HostComputeChecker::AttrKeys(HostScope* f, bool writes) {
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
const std::set<Key>& HostComputeChecker::MutableAttrs() {
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
bool HostComputeChecker::AliasOfImport(HostScope* s, Node* callee) {
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

}  // namespace tritonrl::verify::host_compute
