// The subset's free-name rule (docs/rules.md, "The candidate subset"). Python looks a name up in
// the function scopes that enclose it, then the module, then builtins (and, under Triton's CPU
// interpreter, the globals it copies into the module when missing). A name no enclosing scope
// binds therefore reaches builtins or the interpreter: it must be one of kAllowedBuiltins. A
// module or class body that binds a builtin or injected name is out too, because a binding there
// can be skipped or deleted and the lookup then falls back to the builtin.
//
// The same scopes decide what a @triton.jit body may reference (func.subset_kernel_reference):
// a name the kernel itself does not bind must denote what Triton's compiler accepts from the
// function's globals and closure (triton/runtime/jit.py DependenciesFinder, compiler/
// code_generator.py global_lookup): a module, a jit function, a triton.language member, a
// tl.constexpr(...) value, or one of the compiler's builtins. Under the CPU interpreter a kernel
// body is plain Python and could call anything; on the GPU nothing else compiles.
#include <deque>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "verify/subset.h"
#include "verify/subset_tables.h"

namespace tritonrl::verify {
namespace {

using namespace pyast;  // NOLINT: the AST's node names read as the grammar they mirror
using subset::Listed;

enum class ScopeKind { kModule, kClass, kFunction };

struct Scope {
  const Scope* parent = nullptr;
  ScopeKind kind = ScopeKind::kFunction;
  // The @triton.jit function whose body this scope belongs to (its own scope and the
  // comprehensions and lambdas inside it), else null.
  const Node* kernel = nullptr;
  // Every binding of each name in this scope, in source order.
  std::unordered_map<std::string_view, std::vector<const Node*>> bound;
};

bool IsDunderName(std::string_view s) {
  return s.size() > 4 && s.substr(0, 2) == "__" && s.substr(s.size() - 2) == "__";
}

bool StartsWithPath(std::string_view q, std::string_view root) {
  return q == root ||
         (q.size() > root.size() && q.substr(0, root.size()) == root && q[root.size()] == '.');
}

// The node kinds (CPython's names) a kernel body may contain: those Triton 3.6's code generator
// visits, and the parts they own (arguments, keywords, a with's items, a comprehension, a call's
// starred argument, an f-string's fields).
constexpr std::string_view kKernelConstructs[] = {
    "AnnAssign", "Assert",         "Assign",    "Attribute", "AugAssign",    "BinOp", "BoolOp",
    "Call",      "Compare",        "Constant",  "Expr",      "For",          "If",    "IfExp",
    "JoinedStr", "FormattedValue", "List",      "ListComp",  "Name",         "Pass",  "Return",
    "Slice",     "Starred",        "Subscript", "Tuple",     "UnaryOp",      "While", "With",
    "withitem",  "arguments",      "arg",       "keyword",   "comprehension"};

constexpr std::string_view kKernelMathConstants[] = {"math.pi", "math.e", "math.tau", "math.inf",
                                                     "math.nan"};

// Builtins whose result over scalars is a scalar, allowed inside a tl.constexpr(...) argument.
constexpr std::string_view kConstexprScalarCallees[] = {"int",   "float", "bool", "abs",
                                                        "round", "min",   "max",  "pow"};

constexpr std::string_view kKernelRefPrefix =
    "a kernel may reference only its arguments, locals, @triton.jit functions, triton/tl and "
    "constexpr globals (";

class NameChecker {
 public:
  explicit NameChecker(std::vector<RawFinding>* findings) : findings_(findings) {}

  void CheckModule(Module* module) {
    Scope scope;
    scope.kind = ScopeKind::kModule;
    for (StmtNode* s : module->body) Bind(s, &scope);
    FindJitWrapped(module, scope);
    for (StmtNode* s : module->body) {
      if (!IsMainGuardStmt(s)) Visit(s, scope);
    }
  }

 private:
  void Add(const Node* node, std::string detail, std::string_view rule = "func.subset_name") {
    findings_->push_back(FindingAt(rule, node, std::move(detail)));
  }

  // ---- bindings of one scope -------------------------------------------------------------------
  void BindName(std::string_view name, const Node* node, Scope* scope, std::string_view imported) {
    scope->bound[name].push_back(node);
    if (scope->kind == ScopeKind::kFunction) return;
    const bool def_in_class =
        scope->kind == ScopeKind::kClass && imported.empty() &&
        (node->kind == NodeKind::kFunctionDef || node->kind == NodeKind::kAsyncFunctionDef);
    if (IsDunderName(name) && !def_in_class) {
      Add(node, "binds the dunder name '" + std::string(name) + "' outside a function");
    } else if (Listed(subset::kPythonBuiltins, name)) {
      Add(node, "rebinds the builtin '" + std::string(name) + "' outside a function");
    } else {
      for (const subset::InjectedName& inj : subset::kInjectedNames) {
        if (inj.name == name && (imported.empty() || inj.value != imported)) {
          Add(node, "binds '" + std::string(name) +
                        "', a name Triton's interpreter fills in when it is missing");
        }
      }
    }
  }

  void BindImport(Node* n, Scope* scope) {
    if (auto* imp = As<Import>(n)) {
      for (Alias* a : imp->names) {
        std::string_view bound =
            a->asname.empty() ? a->name.substr(0, a->name.find('.')) : a->asname;
        std::string_view value = a->asname.empty() ? bound : a->name;
        BindName(bound, n, scope, value);
      }
    } else if (auto* from = As<ImportFrom>(n)) {
      for (Alias* a : from->names) {
        if (a->name == "*") continue;
        std::string value = std::string(from->module) + "." + std::string(a->name);
        imported_values_.push_back(std::move(value));
        BindName(a->asname.empty() ? a->name : a->asname, n, scope, imported_values_.back());
      }
    }
  }

  // Names bound directly in a scope's body; nested functions, lambdas, classes and
  // comprehensions bind their own.
  void Bind(Node* n, Scope* scope) {
    switch (n->kind) {
      case NodeKind::kName: {
        auto* name = static_cast<Name*>(n);
        if (name->ctx == ExprContext::kLoad) return;
        if (name->ctx == ExprContext::kDel && scope->kind != ScopeKind::kFunction) {
          Add(n, "deletes '" + std::string(name->id) + "' outside a function");
        }
        BindName(name->id, n, scope, {});
        return;
      }
      case NodeKind::kFunctionDef:
        BindName(static_cast<FunctionDef*>(n)->name, n, scope, {});
        return;
      case NodeKind::kAsyncFunctionDef:
        BindName(static_cast<AsyncFunctionDef*>(n)->name, n, scope, {});
        return;
      case NodeKind::kClassDef:
        BindName(static_cast<ClassDef*>(n)->name, n, scope, {});
        return;
      case NodeKind::kLambda:
      case NodeKind::kListComp:
      case NodeKind::kSetComp:
      case NodeKind::kDictComp:
      case NodeKind::kGeneratorExp:
        return;
      case NodeKind::kImport:
      case NodeKind::kImportFrom:
        BindImport(n, scope);
        return;
      case NodeKind::kAssign: {
        auto* assign = static_cast<Assign*>(n);
        for (ExprNode* t : assign->targets) {
          if (t->kind == NodeKind::kName) assigned_[t] = {assign->value, nullptr};
        }
        break;
      }
      case NodeKind::kAnnAssign: {
        auto* ann = static_cast<AnnAssign*>(n);
        if (ann->target->kind == NodeKind::kName) {
          assigned_[ann->target] = {ann->value, ann->annotation};
        }
        break;
      }
      case NodeKind::kExceptHandler: {
        auto* h = static_cast<ExceptHandler*>(n);
        if (!h->name.empty()) BindName(h->name, n, scope, {});
        break;
      }
      case NodeKind::kMatchAs:
        if (!static_cast<MatchAs*>(n)->name.empty()) {
          BindName(static_cast<MatchAs*>(n)->name, n, scope, {});
        }
        break;
      case NodeKind::kMatchStar:
        if (!static_cast<MatchStar*>(n)->name.empty()) {
          BindName(static_cast<MatchStar*>(n)->name, n, scope, {});
        }
        break;
      default:
        break;
    }
    ForEachChild(n, [&](Node* child) { Bind(child, scope); });
  }

  // ---- lookups ---------------------------------------------------------------------------------
  // The scope whose binding of `id` a load in `scope` reads, else null (a builtin).
  static const Scope* Binder(std::string_view id, const Scope& scope) {
    for (const Scope* s = &scope; s != nullptr; s = s->parent) {
      if (s != &scope && s->kind == ScopeKind::kClass) continue;  // class bodies do not enclose
      if (s->bound.count(id)) return s;
    }
    return nullptr;
  }

  void Lookup(Name* name, const Scope& scope) {
    const Scope* binder = Binder(name->id, scope);
    if (binder == nullptr && !Listed(subset::kAllowedBuiltins, name->id)) {
      Add(name, "'" + std::string(name->id) +
                    "' is bound nowhere in the file and is not an allowed builtin");
      return;
    }
    if (scope.kernel == nullptr || (binder != nullptr && binder->kernel == scope.kernel)) return;
    std::string why;
    if (binder == nullptr) {
      if (!Listed(subset::kKernelBuiltins, name->id)) {
        why = "a Python builtin Triton's compiler does not accept";
      }
    } else {
      for (const Node* b : binder->bound.at(name->id)) {
        why = KernelGlobalWhy(name->id, b, *binder, 0);
        if (!why.empty()) break;
      }
    }
    if (!why.empty()) AddKernelRef(name, scope.kernel, name->id, why);
  }

  // ---- what a kernel body may reference -------------------------------------------------------
  void AddKernelRef(const Node* at, const Node* kernel, std::string_view what,
                    const std::string& why) {
    if (!kernel_reported_.emplace(kernel, std::string(what)).second) return;  // once per kernel
    Add(at, std::string(kKernelRefPrefix) + std::string(what) + ": " + why + ")",
        "func.subset_kernel_reference");
  }

  // The qualified value a name or attribute chain rooted at an import denotes ("triton.jit",
  // "triton.language.constexpr"), following module-level aliases; a name nothing binds is itself
  // (a builtin); anything else is empty.
  std::string Qualified(const Node* n, const Scope& scope, int depth = 0) const {
    if (depth > 8) return {};
    if (auto* attr = As<Attribute>(n)) {
      std::string base = Qualified(attr->value, scope, depth + 1);
      return base.empty() ? base : base + "." + std::string(attr->attr);
    }
    auto* name = As<Name>(n);
    if (name == nullptr) return {};
    const Scope* binder = Binder(name->id, scope);
    if (binder == nullptr) return std::string(name->id);
    // Every binding must denote the same value (`import triton` beside `import triton.language`).
    std::string out;
    for (const Node* b : binder->bound.at(name->id)) {
      std::string q = BindingValue(name->id, b, *binder, depth);
      if (q.empty() || (!out.empty() && q != out)) return {};
      out = std::move(q);
    }
    return out;
  }

  std::string BindingValue(std::string_view id, const Node* b, const Scope& binder,
                           int depth) const {
    if (auto* imp = As<Import>(b)) {
      for (Alias* a : imp->names) {
        if (a->asname == id) return std::string(a->name);
        if (a->asname.empty() && a->name.substr(0, a->name.find('.')) == id) {
          return std::string(id);
        }
      }
    } else if (auto* from = As<ImportFrom>(b)) {
      for (Alias* a : from->names) {
        if ((a->asname.empty() ? a->name : a->asname) == id) {
          return std::string(from->module) + "." + std::string(a->name);
        }
      }
    } else if (auto it = assigned_.find(b); it != assigned_.end() && it->second.first != nullptr) {
      return Qualified(it->second.first, binder, depth + 1);
    }
    return {};
  }

  bool IsJitDef(Span<ExprNode*> decorators, std::string_view name, const Scope& scope) const {
    if (scope.kind == ScopeKind::kModule && jit_names_.count(name)) return true;
    for (ExprNode* d : decorators) {
      const Node* target = As<Call>(d) != nullptr ? As<Call>(d)->func : d;
      if (Listed(subset::kJitDecorators, Qualified(target, scope))) return true;
    }
    return false;
  }

  // Module-level `k = triton.jit(fn)` (also `triton.autotune(...)(triton.jit(fn))`): fn's body
  // is a kernel body.
  void FindJitWrapped(Module* module, const Scope& scope) {
    for (StmtNode* s : module->body) {
      Walk(s, [&](Node* n) {
        auto* call = As<Call>(n);
        if (call == nullptr || call->args.empty()) return true;
        const Node* callee = call->func;
        if (auto* inner = As<Call>(callee)) callee = inner->func;
        auto* arg = As<Name>(call->args[0]);
        if (arg != nullptr && Listed(subset::kJitDecorators, Qualified(callee, scope))) {
          jit_names_.insert(arg->id);
        }
        return true;
      });
    }
  }

  // A module other than triton's: Triton's compiler calls its functions with compile-time values
  // only (math.exp of a loaded value does not compile), while the CPU interpreter runs them on
  // the Python numbers its loops and subscripts make of Triton values (fourth white-box review,
  // 2026-12-06), so a kernel body may not name one.
  static std::string NonTritonModuleWhy(std::string_view module) {
    return "the module " + std::string(module) +
           ", whose functions Triton's compiler runs on compile-time values only and the CPU "
           "interpreter on loaded values";
  }

  // Why the binding `b` of `id` in `scope` (the module or a function enclosing a kernel) is not
  // something a kernel may reference; empty when it is.
  std::string KernelGlobalWhy(std::string_view id, const Node* b, const Scope& scope,
                              int depth) const {
    const bool module = scope.kind == ScopeKind::kModule;
    auto where = [&](std::string_view noun) {
      return module ? "a module-level " + std::string(noun)
                    : "a " + std::string(noun) + " of the enclosing function";
    };
    switch (b->kind) {
      case NodeKind::kImport: {
        for (Alias* a : static_cast<const Import*>(b)->names) {
          std::string_view bound =
              a->asname.empty() ? a->name.substr(0, a->name.find('.')) : a->asname;
          if (bound != id) continue;
          std::string_view value = a->asname.empty() ? bound : a->name;
          if (!StartsWithPath(value, "triton")) return NonTritonModuleWhy(value);
        }
        return {};
      }
      case NodeKind::kImportFrom: {
        auto* from = static_cast<const ImportFrom*>(b);
        for (Alias* a : from->names) {
          if ((a->asname.empty() ? a->name : a->asname) != id) continue;
          std::string value = std::string(from->module) + "." + std::string(a->name);
          if (StartsWithPath(value, "triton.language") ||
              Listed(subset::kKernelTritonMembers, value)) {
            return {};
          }
          if (Listed(subset::kImportableModules, value)) {
            return StartsWithPath(value, "triton") ? std::string{} : NonTritonModuleWhy(value);
          }
          return "a name imported from " + std::string(from->module) +
                 " that is neither a module nor a Triton function";
        }
        return {};
      }
      case NodeKind::kFunctionDef: {
        auto* fn = static_cast<const FunctionDef*>(b);
        if (IsJitDef(fn->decorator_list, fn->name, scope)) return {};
        return where("plain Python function (not @triton.jit)");
      }
      case NodeKind::kAsyncFunctionDef:
        return where("coroutine function");
      case NodeKind::kClassDef:
        return where("class");
      case NodeKind::kArg:
        return "a parameter of the enclosing function";
      case NodeKind::kName: {
        auto it = assigned_.find(b);
        if (it == assigned_.end() || it->second.first == nullptr) {
          return where("variable that is not a tl.constexpr");
        }
        std::string why = ValueWhy(it->second.first, scope, depth);
        if (!why.empty() && it->second.second != nullptr &&
            Listed(subset::kConstexprCallees, Qualified(it->second.second, scope))) {
          return where(
              "value annotated tl.constexpr, which the compiler does not read as one: "
              "write X = tl.constexpr(...)");
        }
        return why;
      }
      default:
        return where("variable that is not a tl.constexpr");
    }
  }

  // Why the argument of a tl.constexpr(...) a kernel references is not a scalar; empty when it is
  // a number, string, bool or None, Triton's or math's constants, or arithmetic and the math and
  // number builtins over them. A tuple constexpr is a table: under the interpreter a kernel
  // subscripts it with the Python int that range() makes of a Triton value, on the host (found
  // while fixing the fourth review, 2026-12-06); on the GPU a tensor cannot index it.
  std::string ConstexprArgWhy(const Node* v, const Scope& scope, int depth) const {
    auto why = [&] {
      return std::string(scope.kind == ScopeKind::kModule ? "a module-level" : "an enclosing") +
             " tl.constexpr of something other than a scalar (a tuple or computed value: a "
             "table the interpreter indexes on the host)";
    };
    if (depth > 8) return why();
    switch (v->kind) {
      case NodeKind::kConstant:
        return {};
      case NodeKind::kAttribute: {
        std::string q = Qualified(v, scope);
        if (StartsWithPath(q, "triton.language") || Listed(kKernelMathConstants, q)) return {};
        return why();
      }
      case NodeKind::kName: {
        auto* name = static_cast<const Name*>(v);
        const Scope* binder = Binder(name->id, scope);
        if (binder == nullptr) return why();
        for (const Node* b : binder->bound.at(name->id)) {
          if (auto* from = As<ImportFrom>(b)) {
            for (Alias* a : from->names) {
              if ((a->asname.empty() ? a->name : a->asname) != name->id) continue;
              std::string value = std::string(from->module) + "." + std::string(a->name);
              if (!StartsWithPath(value, "triton.language") &&
                  !Listed(kKernelMathConstants, value)) {
                return why();
              }
            }
            continue;
          }
          auto it = assigned_.find(b);
          if (b->kind != NodeKind::kName || it == assigned_.end() || it->second.first == nullptr) {
            return why();
          }
          const Node* value = it->second.first;
          if (auto* call = As<Call>(value);
              call != nullptr &&
              Listed(subset::kConstexprCallees, Qualified(call->func, *binder))) {
            if (call->args.size() != 1) return why();
            value = call->args[0];
          }
          std::string w = ConstexprArgWhy(value, *binder, depth + 1);
          if (!w.empty()) return w;
        }
        return {};
      }
      case NodeKind::kUnaryOp:
        return ConstexprArgWhy(static_cast<const UnaryOp*>(v)->operand, scope, depth + 1);
      case NodeKind::kBinOp: {
        auto* op = static_cast<const BinOp*>(v);
        std::string w = ConstexprArgWhy(op->left, scope, depth + 1);
        return w.empty() ? ConstexprArgWhy(op->right, scope, depth + 1) : w;
      }
      case NodeKind::kCall: {
        auto* call = static_cast<const Call*>(v);
        std::string q = Qualified(call->func, scope);
        if (!StartsWithPath(q, "math") && !Listed(kConstexprScalarCallees, q)) return why();
        if (!call->keywords.empty()) return why();
        for (const Node* a : call->args) {
          std::string w = ConstexprArgWhy(a, scope, depth + 1);
          if (!w.empty()) return w;
        }
        return {};
      }
      default:
        return why();
    }
  }

  // Why a value assigned in `scope` is not one a kernel may reference; empty when it is.
  std::string ValueWhy(const Node* v, const Scope& scope, int depth) const {
    const bool module = scope.kind == ScopeKind::kModule;
    auto where = [&](std::string_view noun) {
      return module ? "a module-level " + std::string(noun)
                    : "a " + std::string(noun) + " of the enclosing function";
    };
    switch (v->kind) {
      case NodeKind::kCall: {
        auto* call = static_cast<const Call*>(v);
        std::string q = Qualified(call->func, scope);
        if (q == "triton.jit") return {};
        if (Listed(subset::kConstexprCallees, q)) {
          const Node* arg = call->args.size() == 1 ? call->args[0] : nullptr;
          return arg == nullptr ? std::string{} : ConstexprArgWhy(arg, scope, depth);
        }
        if (call->func->kind == NodeKind::kCall) return where("autotuned or heuristics kernel");
        if (q == "list" || q == "dict" || q == "tuple" || q == "set") return where(q);
        return where("value returned by a call (not tl.constexpr)");
      }
      case NodeKind::kName: {
        auto* name = static_cast<const Name*>(v);
        const Scope* binder = depth < 8 ? Binder(name->id, scope) : nullptr;
        if (binder == nullptr) return where("alias of a builtin or unknown value");
        for (const Node* b : binder->bound.at(name->id)) {
          std::string why = KernelGlobalWhy(name->id, b, *binder, depth + 1);
          if (!why.empty()) return why;
        }
        return {};
      }
      case NodeKind::kAttribute: {
        std::string q = Qualified(v, scope);
        if (StartsWithPath(q, "triton.language") || Listed(subset::kKernelTritonMembers, q)) {
          return {};
        }
        if (Listed(subset::kImportableModules, q)) {
          return StartsWithPath(q, "triton") ? std::string{} : NonTritonModuleWhy(q);
        }
        return where("alias of " + (q.empty() ? std::string("an attribute") : q));
      }
      case NodeKind::kConstant:
        return where("constant (not tl.constexpr)");
      case NodeKind::kList:
      case NodeKind::kListComp:
        return where("list");
      case NodeKind::kDict:
      case NodeKind::kDictComp:
        return where("dict");
      case NodeKind::kTuple:
        return where("tuple");
      case NodeKind::kSet:
      case NodeKind::kSetComp:
        return where("set");
      case NodeKind::kLambda:
        return where("lambda");
      default:
        return where("value that is not a tl.constexpr");
    }
  }

  void VisitArguments(Arguments* a, const Scope& scope) {
    if (a == nullptr) return;
    for (ExprNode* d : a->defaults) Visit(d, scope);
    for (ExprNode* d : a->kw_defaults) {
      if (d != nullptr) Visit(d, scope);
    }
    auto annotation = [&](Arg* x) {
      if (x != nullptr && x->annotation != nullptr) Visit(x->annotation, scope);
    };
    for (Arg* x : a->posonlyargs) annotation(x);
    for (Arg* x : a->args) annotation(x);
    for (Arg* x : a->kwonlyargs) annotation(x);
    annotation(a->vararg);
    annotation(a->kwarg);
  }

  static void BindParams(Arguments* a, Scope* scope) {
    if (a == nullptr) return;
    for (Arg* x : a->posonlyargs) scope->bound[x->arg].push_back(x);
    for (Arg* x : a->args) scope->bound[x->arg].push_back(x);
    for (Arg* x : a->kwonlyargs) scope->bound[x->arg].push_back(x);
    if (a->vararg != nullptr) scope->bound[a->vararg->arg].push_back(a->vararg);
    if (a->kwarg != nullptr) scope->bound[a->kwarg->arg].push_back(a->kwarg);
  }

  template <typename Def>
  void VisitFunction(Def* fn, const Scope& scope) {
    for (ExprNode* d : fn->decorator_list) Visit(d, scope);
    VisitArguments(fn->args, scope);
    if (fn->returns != nullptr) Visit(fn->returns, scope);
    Scope inner;
    inner.parent = &scope;
    inner.kernel = IsJitDef(fn->decorator_list, fn->name, scope) ? fn : scope.kernel;
    BindParams(fn->args, &inner);
    for (StmtNode* s : fn->body) Bind(s, &inner);
    for (StmtNode* s : fn->body) Visit(s, inner);
  }

  void VisitClass(ClassDef* cls, const Scope& scope) {
    for (ExprNode* d : cls->decorator_list) Visit(d, scope);
    for (ExprNode* b : cls->bases) Visit(b, scope);
    for (Keyword* k : cls->keywords) Visit(k->value, scope);
    Scope inner;
    inner.parent = &scope;
    inner.kind = ScopeKind::kClass;
    inner.kernel = scope.kernel;
    for (StmtNode* s : cls->body) Bind(s, &inner);
    for (StmtNode* s : cls->body) Visit(s, inner);
  }

  // The first iterable is evaluated in the enclosing scope; the rest in the comprehension's own.
  void VisitComprehension(Span<Comprehension*> gens, std::initializer_list<ExprNode*> results,
                          const Scope& scope) {
    Scope inner;
    inner.parent = &scope;
    inner.kernel = scope.kernel;
    for (Comprehension* g : gens) Bind(g->target, &inner);
    for (uint32_t i = 0; i < gens.size(); ++i) {
      Visit(gens[i]->iter, i == 0 ? scope : inner);
      for (ExprNode* cond : gens[i]->ifs) Visit(cond, inner);
    }
    for (ExprNode* e : results) Visit(e, inner);
  }

  void Visit(Node* n, const Scope& scope) {
    if (scope.kernel != nullptr) CheckKernelConstruct(n);
    switch (n->kind) {
      case NodeKind::kName:
        if (static_cast<Name*>(n)->ctx == ExprContext::kLoad) Lookup(static_cast<Name*>(n), scope);
        return;
      case NodeKind::kFunctionDef:
        return VisitFunction(static_cast<FunctionDef*>(n), scope);
      case NodeKind::kAsyncFunctionDef:
        return VisitFunction(static_cast<AsyncFunctionDef*>(n), scope);
      case NodeKind::kClassDef:
        return VisitClass(static_cast<ClassDef*>(n), scope);
      case NodeKind::kLambda: {
        auto* fn = static_cast<Lambda*>(n);
        VisitArguments(fn->args, scope);
        Scope inner;
        inner.parent = &scope;
        inner.kernel = scope.kernel;
        BindParams(fn->args, &inner);
        Bind(fn->body, &inner);
        return Visit(fn->body, inner);
      }
      case NodeKind::kListComp: {
        auto* c = static_cast<ListComp*>(n);
        return VisitComprehension(c->generators, {c->elt}, scope);
      }
      case NodeKind::kAttribute:
        // math's constants are values the compiler folds; its functions are not
        // (NonTritonModuleWhy).
        if (scope.kernel != nullptr && Listed(kKernelMathConstants, Qualified(n, scope))) return;
        ForEachChild(n, [&](Node* child) { Visit(child, scope); });
        return;
      case NodeKind::kSetComp: {
        auto* c = static_cast<SetComp*>(n);
        return VisitComprehension(c->generators, {c->elt}, scope);
      }
      case NodeKind::kGeneratorExp: {
        auto* c = static_cast<GeneratorExp*>(n);
        return VisitComprehension(c->generators, {c->elt}, scope);
      }
      case NodeKind::kDictComp: {
        auto* c = static_cast<DictComp*>(n);
        return VisitComprehension(c->generators, {c->key, c->value}, scope);
      }
      default:
        ForEachChild(n, [&](Node* child) { Visit(child, scope); });
    }
  }

  // A construct in a kernel body that Triton 3.6's code generator has no visit for (compiler/
  // code_generator.py: it raises "unsupported AST node type"), or uses in a narrower form than
  // Python: a for loop only over a call (range, tl.range, tl.static_range), a list comprehension
  // only with one generator and no condition over a tuple value. The CPU interpreter runs such
  // code as plain Python, where a comprehension over range(65536) builds a host table (fourth
  // white-box review, 2026-12-06), so the subset is what the GPU compiles.
  void CheckKernelConstruct(const Node* n) {
    std::string why;
    std::string_view what = KindName(n->kind);
    if (n->kind == NodeKind::kLambda || n->kind == NodeKind::kClassDef ||
        n->kind == NodeKind::kFunctionDef || n->kind == NodeKind::kAsyncFunctionDef) {
      what = n->kind == NodeKind::kLambda     ? "lambda"
             : n->kind == NodeKind::kClassDef ? "class"
                                              : "def";
      why = "a function or class defined inside a kernel body";
    } else if (!Listed(kKernelConstructs, KindName(n->kind))) {
      why = std::string("the construct ") + KindName(n->kind) + ", which Triton's compiler has not";
    } else if (auto* loop = As<For>(n); loop != nullptr && loop->iter->kind != NodeKind::kCall) {
      why = "a for loop over something other than range, tl.range or tl.static_range";
    } else if (auto* comp = As<ListComp>(n); comp != nullptr) {
      const bool plain = comp->generators.size() == 1 && comp->generators[0]->ifs.empty() &&
                         comp->generators[0]->iter->kind != NodeKind::kCall;
      if (!plain) why = "a list comprehension other than one over a tuple, without conditions";
    }
    if (why.empty()) return;
    Add(n, std::string(kKernelRefPrefix) + std::string(what) + ": " + why + ")",
        "func.subset_kernel_reference");
  }

  std::vector<RawFinding>* findings_;
  std::deque<std::string> imported_values_;  // stable storage for from-import values
  // Each Name target of a single assignment: its value and annotation (either may be null).
  std::unordered_map<const Node*, std::pair<const Node*, const Node*>> assigned_;
  std::unordered_set<std::string_view> jit_names_;  // module-level defs wrapped by triton.jit(fn)
  std::set<std::pair<const Node*, std::string>> kernel_reported_;  // (kernel, name) reported
};

}  // namespace

bool IsMainGuardStmt(const Node* n) {
  auto* s = As<If>(n);
  auto* cmp = s != nullptr ? As<Compare>(s->test) : nullptr;
  if (cmp == nullptr || cmp->comparators.size() != 1 || cmp->ops.size() != 1 ||
      cmp->ops[0] != CmpOpKind::kEq) {
    return false;
  }
  auto* left = As<Name>(cmp->left);
  auto* right = As<Constant>(cmp->comparators[0]);
  return left != nullptr && left->id == "__name__" && right != nullptr &&
         right->value.kind == ConstantKind::kStr && right->value.text == "__main__";
}

void CheckSubsetNames(Module* module, std::vector<RawFinding>* findings) {
  NameChecker(findings).CheckModule(module);
}

}  // namespace tritonrl::verify
