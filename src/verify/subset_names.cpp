// The subset's free-name rule (docs/rules.md, "The candidate subset"). Python looks a name up in
// the function scopes that enclose it, then the module, then builtins (and, under Triton's CPU
// interpreter, the globals it copies into the module when missing). A name no enclosing scope
// binds therefore reaches builtins or the interpreter: it must be one of kAllowedBuiltins. A
// module or class body that binds a builtin or injected name is out too, because a binding there
// can be skipped or deleted and the lookup then falls back to the builtin.
#include <deque>
#include <string>
#include <unordered_map>

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
  std::unordered_map<std::string_view, const Node*> bound;
};

bool IsDunderName(std::string_view s) {
  return s.size() > 4 && s.substr(0, 2) == "__" && s.substr(s.size() - 2) == "__";
}

class NameChecker {
 public:
  explicit NameChecker(std::vector<RawFinding>* findings) : findings_(findings) {}

  void CheckModule(Module* module) {
    Scope scope;
    scope.kind = ScopeKind::kModule;
    for (StmtNode* s : module->body) Bind(s, &scope);
    for (StmtNode* s : module->body) {
      if (!IsMainGuardStmt(s)) Visit(s, scope);
    }
  }

 private:
  void Add(const Node* node, std::string detail) {
    RawFinding f;
    f.rule = "func.subset_name";
    f.detail = std::move(detail);
    f.line = node->pos.lineno;
    f.col = node->pos.col_offset + 1;
    findings_->push_back(std::move(f));
  }

  // ---- bindings of one scope -------------------------------------------------------------------
  void BindName(std::string_view name, const Node* node, Scope* scope, std::string_view imported) {
    scope->bound.emplace(name, node);
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
  void Lookup(Name* name, const Scope& scope) {
    for (const Scope* s = &scope; s != nullptr; s = s->parent) {
      if (s != &scope && s->kind == ScopeKind::kClass) continue;  // class bodies do not enclose
      if (s->bound.count(name->id)) return;
    }
    if (Listed(subset::kAllowedBuiltins, name->id)) return;
    Add(name, "'" + std::string(name->id) +
                  "' is bound nowhere in the file and is not an allowed builtin");
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
    for (Arg* x : a->posonlyargs) scope->bound.emplace(x->arg, x);
    for (Arg* x : a->args) scope->bound.emplace(x->arg, x);
    for (Arg* x : a->kwonlyargs) scope->bound.emplace(x->arg, x);
    if (a->vararg != nullptr) scope->bound.emplace(a->vararg->arg, a->vararg);
    if (a->kwarg != nullptr) scope->bound.emplace(a->kwarg->arg, a->kwarg);
  }

  template <typename Def>
  void VisitFunction(Def* fn, const Scope& scope) {
    for (ExprNode* d : fn->decorator_list) Visit(d, scope);
    VisitArguments(fn->args, scope);
    if (fn->returns != nullptr) Visit(fn->returns, scope);
    Scope inner;
    inner.parent = &scope;
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
    for (StmtNode* s : cls->body) Bind(s, &inner);
    for (StmtNode* s : cls->body) Visit(s, inner);
  }

  // The first iterable is evaluated in the enclosing scope; the rest in the comprehension's own.
  void VisitComprehension(Span<Comprehension*> gens, std::initializer_list<ExprNode*> results,
                          const Scope& scope) {
    Scope inner;
    inner.parent = &scope;
    for (Comprehension* g : gens) Bind(g->target, &inner);
    for (uint32_t i = 0; i < gens.size(); ++i) {
      Visit(gens[i]->iter, i == 0 ? scope : inner);
      for (ExprNode* cond : gens[i]->ifs) Visit(cond, inner);
    }
    for (ExprNode* e : results) Visit(e, inner);
  }

  void Visit(Node* n, const Scope& scope) {
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
        BindParams(fn->args, &inner);
        Bind(fn->body, &inner);
        return Visit(fn->body, inner);
      }
      case NodeKind::kListComp: {
        auto* c = static_cast<ListComp*>(n);
        return VisitComprehension(c->generators, {c->elt}, scope);
      }
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

  std::vector<RawFinding>* findings_;
  std::deque<std::string> imported_values_;  // stable storage for from-import values
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
