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
// Kernel bodies, the reference copies and the main guard are not host code here.
//
// HostComputeChecker is one file's analysis; CheckHostCompute (subset.h) runs it. Its phases are
// one file each:
//   subset_host_compute.cpp             scopes and calls: who binds a name, who calls whom, and
//                                       which parameters vary through calls
//   subset_host_compute_degree.cpp      degrees: whether an expression is fixed or varying, and
//                                       which combinations of varying values are out
//   subset_host_compute_walk.cpp        the statement walk: bindings, loops, branches and the
//                                       repeated-addition checks
//   subset_host_compute_recurrence.cpp  recurrences: what a loop or a function carries, and the
//                                       slopes of its updates
// Internal to the verify module (only those four files include it); no state outside the checker.
#pragma once

#include <deque>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pyast/ast.h"
#include "verify/analyzer.h"
#include "verify/analyzer_ast.h"
#include "verify/analyzer_binding.h"
#include "verify/subset.h"

namespace tritonrl::verify::host_compute {

// Scoped to this namespace, which only the subset_host_compute*.cpp files open.
using namespace pyast;  // NOLINT: the AST's node names read as the grammar they mirror
using analyzer::Bindings;
using analyzer::Contains;
using analyzer::FnView;
using analyzer::IsFunctionDef;
using analyzer::ViewFn;

inline constexpr std::string_view kRule = "func.subset_host_compute";
// Iterations a loop over a display may have (nesting multiplied) and still count as bookkeeping:
// the same bound as the Python numbers a forward call may put into tensors (hooks.HostValues).
inline constexpr int kSmallLoop = 16;
inline constexpr int kShapeLoop = 8;  // a tensor has at most this many dims in any task

// Mutating methods of the containers a candidate may build (list, dict, set, deque,
// OrderedDict): a call is a write of the receiver.
inline constexpr std::string_view kMutators[] = {"move_to_end",
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

// The keys a loop (or a function) reads, each with its statement's textual position.
using Reads = std::vector<std::pair<Key, int>>;

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

// The name a chain of subscripts and attributes starts at (`self` of self.tab[i]), else empty.
inline std::string_view RootName(const Node* n) {
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
inline Key TargetKey(const Node* t) {
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

  // Indexes the scopes, settles which values vary, then reports into `out`.
  void Run();

 private:
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

  struct Callees {
    std::vector<HostScope*> fns;
    bool drop_receiver = false;
    bool resolved = false;  // a file function, an import, a builtin, a launch or a method
  };

  // The tree and its names, which every phase asks.
  // Kernel bodies are not host code. The reference copies are read like the rest: a def named
  // get_init_inputs runs when forward calls it.
  bool Skipped(Node* n) const {
    return bind_.kernel_nodes.count(n) > 0 || (IsFunctionDef(n) && bind_.IsKernelDef(n));
  }

  static bool IsScopeNode(const Node* n) {
    return IsFunctionDef(n) || n->kind == NodeKind::kLambda || n->kind == NodeKind::kClassDef;
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

  bool IsBuiltinName(HostScope* s, std::string_view id) const {
    return Lookup(s, id) == nullptr && !bind_.imports.count(id) && !bind_.module_values.count(id);
  }

  // Scopes and calls (subset_host_compute.cpp): where a name is bound, which functions a call
  // runs, and which parameters vary through the calls that reach them.
  void Collect(Node* n, HostScope* lexical, ClassDef* owner);
  void Index(HostScope* s);
  void NoteEscapes(HostScope* s);
  void MarkMutated(HostScope* s, Node* receiver);
  Callees Resolve(HostScope* s, Call* call);
  void FindGridsAndCallbacks();
  void MarkRecursion();
  void NoteGeneratedInit(Call* call);
  void NoteGridMeta(Call* call);
  void PropagateArgs(const Ctx& c, Call* call, const Callees& to, const std::vector<bool>& arg_flow,
                     const std::vector<bool>& kw_flow);
  static bool IsStatic(HostScope* f);
  void MarkParam(HostScope* f, std::string_view p);
  void MarkAllParams(HostScope* f);

  // Degrees (subset_host_compute_degree.cpp): whether an expression is fixed or varying, what
  // that makes vary, and the combinations of varying values that are reported.
  void Report(const Ctx& c, const Node* n, std::string detail);
  void SetVarying(HostScope* s, std::string_view id);
  void SetAttrVarying(std::string_view attr);
  bool NameVarying(HostScope* s, std::string_view id) const;
  int SmallSize(HostScope* s, ExprNode* it, int depth = 0);
  int AllSmall(HostScope* s, const std::vector<ExprNode*>& values, int depth);
  bool IsTensorDims(ExprNode* e) const;
  bool IsDimsIterable(HostScope* s, ExprNode* it, int depth = 0);
  bool MentionsSmall(const Ctx& c, Node* e);
  std::unordered_set<std::string> SmallLoopWrites(const Ctx& c, For* loop);
  bool Deg(const Ctx& c, ExprNode* e);
  bool ValueOfBanned(const Ctx& c, ExprNode* e);
  bool BinDeg(const Ctx& c, Node* at, OperatorKind op, bool l, bool r);
  bool CompDeg(const Ctx& c, Span<Comprehension*> gens, std::initializer_list<ExprNode*> elts);
  bool CallDeg(const Ctx& c, Call* call);
  void NoteMutation(const Ctx& c, Call* call, bool any);
  void NoteVaryingWrite(HostScope* s, ExprNode* receiver);
  bool IsContainerName(HostScope* where, std::string_view id);
  bool IsContainerValue(HostScope* s, ExprNode* e);
  void NoteWildWrite(HostScope* s, ExprNode* receiver);
  void SetContainerVarying(HostScope* s, std::string_view id);
  bool IndexedByVarying(const Ctx& c, ExprNode* e);
  bool RootsInContainer(HostScope* s, ExprNode* e);

  // The statement walk (subset_host_compute_walk.cpp): bindings, loops and branches.
  void WalkScope(HostScope* s, bool report);
  void BindDefaults(HostScope* s);
  void NoteReturnVaries(HostScope* s);
  void Stmts(const Ctx& c, Span<StmtNode*> body);
  void Stmt(const Ctx& c, StmtNode* n);
  bool AddsToItself(const Ctx& c, ExprNode* target, ExprNode* value);
  bool TestVariesOutside(const Ctx& c, While* w);
  bool AddsUpAProduct(const Ctx& c, ExprNode* added);
  bool SelectsByVarying(const Ctx& c, ExprNode* e);
  bool BreaksOnVarying(const Ctx& c, Span<StmtNode*> body);
  template <typename TryNode>
  void TryStmt(const Ctx& c, TryNode* t);
  void DefinitionExprs(const Ctx& c, Node* n);
  void BindTarget(HostScope* s, ExprNode* t, bool varying, bool small = false);
  void BindAssign(const Ctx& c, ExprNode* target, ExprNode* value);
  void BindBranchTargets(HostScope* s, Span<StmtNode*> body);

  // Recurrences (subset_host_compute_recurrence.cpp): what a loop or a function carries, and the
  // slopes of its updates.
  void CollectWrites(const Ctx& c, Span<StmtNode*> body, std::vector<Write>* writes, Reads* reads,
                     int* order);
  void NoteReads(const Ctx& c, Node* n, Reads* reads, int order);
  void NoteCallWrites(const Ctx& c, Node* n, Node* at, std::vector<Write>* writes, int order);
  void AddWrites(ExprNode* target, ExprNode* value, Node* at, std::vector<Write>* writes,
                 int order);
  template <typename TryNode>
  void TryWrites(const Ctx& c, TryNode* t, std::vector<Write>* writes, Reads* reads, int* order);
  void CollectWrite(const Ctx& c, StmtNode* st, std::vector<Write>* writes, Reads* reads,
                    int* order);
  void NoteMutatorWrites(Node* n, Node* at, std::vector<Write>* writes, int order);
  void LoopWrites(const Ctx& c, Node* loop, std::vector<Write>* writes, Reads* reads);
  void MarkCarried(HostScope* s, Node* loop);
  void CheckRecurrences();
  std::unordered_set<Key> FunctionState(HostScope* s, std::vector<Write>* writes);
  void MarkFunctionState();
  void CheckUpdates(const Ctx& c, const std::vector<Write>& writes,
                    const std::unordered_set<Key>& carried, const std::vector<ExprNode*>& sinks);
  Slopes Slope(const Ctx& c, const std::map<Key, Slopes>& state, ExprNode* e);
  Slopes CompSlope(const Ctx& c, const std::map<Key, Slopes>& state, Span<Comprehension*> gens,
                   std::initializer_list<ExprNode*> elts);
  bool IsLoopTarget(HostScope* s, std::string_view id);
  Slopes CallSlope(const Ctx& c, const std::map<Key, Slopes>& state, Call* call);
  bool ReadsState(const std::vector<HostScope*>& fns, const std::map<Key, Slopes>& state);
  const std::set<Key>& AttrReads(HostScope* f);
  const std::set<Key>& AttrKeys(HostScope* f, bool writes);
  const std::set<Key>& MutableAttrs();
  bool AliasOfImport(HostScope* s, Node* callee);

  Module* mod_;
  std::vector<RawFinding>* out_;
  Bindings bind_;
  // The scopes (a deque: HostScope pointers stay valid) and what the scope phase indexes of them.
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
  bool changed_ = false;  // a round of the walk marked something varying: run another
};

}  // namespace tritonrl::verify::host_compute
