// The candidate subset's rules on imports, reflection, classes and constructs (docs/rules.md,
// "The candidate subset"); the free-name rule is in subset_names.cpp. Each rule accepts what
// subset_tables.h lists and reports the rest.
#include "verify/subset.h"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "verify/subset_tables.h"

namespace tritonrl::verify {
namespace {

using namespace pyast;  // NOLINT: the AST's node names read as the grammar they mirror
using subset::Listed;

bool IsDunder(std::string_view s) {
  return s.size() > 4 && s.substr(0, 2) == "__" && s.substr(s.size() - 2) == "__";
}

bool IsPrivate(std::string_view s) {
  return !s.empty() && s[0] == '_' && !IsDunder(s);
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    bool ok =
        c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Members of a listed standard-library module, or null for torch, triton and unlisted modules.
const subset::ModuleMembers* StdlibMembers(std::string_view module) {
  for (const subset::ModuleMembers& m : subset::kStdlibMembers) {
    if (m.module == module) return &m;
  }
  return nullptr;
}

bool IsMember(const subset::ModuleMembers& m, std::string_view name) {
  std::string key = " " + std::string(name) + " ";
  return m.members.find(key) != std::string_view::npos;
}

const ConstantValue* StrConst(const Node* n) {
  auto* c = As<Constant>(n);
  return c != nullptr && c->value.kind == ConstantKind::kStr ? &c->value : nullptr;
}

class SubsetChecker {
 public:
  explicit SubsetChecker(Module* module) : mod_(module) {}

  std::vector<RawFinding> Run() {
    CollectImportsAndClasses();
    for (StmtNode* s : mod_->body) {
      if (!IsMainGuardStmt(s)) Visit(s, /*in_message=*/false);
    }
    CheckSubsetNames(mod_, &findings_);
    CheckHostCompute(mod_, &findings_);
    return std::move(findings_);
  }

 private:
  void Add(std::string_view rule, const Node* node, std::string detail) {
    findings_.push_back(FindingAt(rule, node, std::move(detail)));
  }

  // ---- what names denote -----------------------------------------------------------------------
  void CollectImportsAndClasses() {
    Walk(mod_, [&](Node* n) {
      if (auto* imp = As<Import>(n)) {
        for (Alias* a : imp->names) {
          if (a->asname.empty()) {
            std::string_view root = a->name.substr(0, a->name.find('.'));
            imports_[root] = std::string(root);
          } else {
            imports_[a->asname] = std::string(a->name);
          }
        }
      } else if (auto* from = As<ImportFrom>(n)) {
        for (Alias* a : from->names) {
          imports_[a->asname.empty() ? a->name : a->asname] =
              std::string(from->module) + "." + std::string(a->name);
        }
      } else if (auto* cls = As<ClassDef>(n)) {
        file_classes_[cls->name] = cls;
      } else if (auto* def = As<FunctionDef>(n)) {
        file_functions_.insert(def->name);
      }
      return true;
    });
    // nn.Module subclasses: a base is torch.nn.Module or a file class that is one (to a fixpoint).
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& [name, cls] : file_classes_) {
        if (module_classes_.count(name)) continue;
        for (ExprNode* b : cls->bases) {
          auto* base_name = As<Name>(b);
          if (Qualified(b) == "torch.nn.Module" ||
              (base_name != nullptr && module_classes_.count(base_name->id))) {
            module_classes_.insert(name);
            grew = true;
            break;
          }
        }
      }
    }
  }

  // The qualified name an import-rooted name or attribute chain denotes ("torch.nn.Module"); a
  // name no import binds denotes itself ("staticmethod"); anything else is empty.
  std::string Qualified(const Node* n) const {
    if (auto* name = As<Name>(n)) {
      auto it = imports_.find(name->id);
      return it != imports_.end() ? it->second : std::string(name->id);
    }
    if (auto* attr = As<Attribute>(n)) {
      std::string base = Qualified(attr->value);
      return base.empty() ? base : base + "." + std::string(attr->attr);
    }
    return {};
  }

  // True when the chain's root name is bound by an import.
  bool ImportRooted(const Node* n) const {
    while (auto* attr = As<Attribute>(n)) n = attr->value;
    auto* name = As<Name>(n);
    return name != nullptr && imports_.count(name->id);
  }

  // ---- imports and module members --------------------------------------------------------------
  void CheckImport(Node* n) {
    if (auto* imp = As<Import>(n)) {
      for (Alias* a : imp->names) {
        if (!Listed(subset::kImportableModules, a->name)) {
          Add("func.subset_import", n, "import " + std::string(a->name));
        }
      }
      return;
    }
    auto* from = As<ImportFrom>(n);
    if (from == nullptr) return;
    if (from->level > 0 || !Listed(subset::kImportableModules, from->module)) {
      Add("func.subset_import", n, "from " + std::string(from->module) + " import ...");
      return;
    }
    const subset::ModuleMembers* members = StdlibMembers(from->module);
    for (Alias* a : from->names) {
      std::string what = std::string(from->module) + "." + std::string(a->name);
      bool listed_module = Listed(subset::kImportableModules, what);
      if (a->name == "*" || IsPrivate(a->name) || IsDunder(a->name) ||
          (members != nullptr && !IsMember(*members, a->name)) ||
          (members == nullptr && !listed_module && IsStdlibReexport(a->name))) {
        Add("func.subset_import", n,
            "from " + std::string(from->module) + " import " + std::string(a->name));
      }
    }
  }

  // torch and triton re-export standard-library modules (torch.sys, triton.runtime.jit.inspect);
  // a from-import of such a name is out whatever the functionality rules fold it to.
  static bool IsStdlibReexport(std::string_view name) {
    static const std::unordered_set<std::string_view> kModules = {
        "sys",         "os",        "gc",        "inspect",     "ctypes",    "importlib",
        "builtins",    "types",     "threading", "operator",    "functools", "math",
        "collections", "itertools", "typing",    "dataclasses", "warnings",  "weakref",
        "traceback",   "pickle",    "io",        "subprocess",  "numpy",     "np"};
    return kModules.count(name) > 0;
  }

  void CheckMember(Attribute* attr) {
    std::string base = Qualified(attr->value);
    if (base.empty() || !ImportRooted(attr->value)) return;
    if (const subset::ModuleMembers* m = StdlibMembers(base)) {
      if (!IsMember(*m, attr->attr)) {
        Add("func.subset_import", attr, base + "." + std::string(attr->attr));
      }
    }
  }

  // ---- reflection ------------------------------------------------------------------------------
  void CheckAttribute(Attribute* attr) {
    std::string_view a = attr->attr;
    if (Listed(subset::kFrameAttributes, a)) {
      Add("func.subset_reflection", attr, "frame, closure or code attribute ." + std::string(a));
    } else if (IsDunder(a) && !Listed(subset::kReadableDunders, a)) {
      Add("func.subset_reflection", attr, "dunder attribute ." + std::string(a));
    } else if (IsPrivate(a) && ImportRooted(attr->value)) {
      Add("func.subset_reflection", attr, "private member " + Qualified(attr));
    } else if (auto* base = As<Name>(attr->value); base != nullptr && !imports_.count(base->id) &&
                                                   !file_classes_.count(base->id) &&
                                                   Listed(subset::kBuiltinTypes, base->id)) {
      Add("func.subset_reflection", attr,
          "attribute of a builtin type " + std::string(base->id) + "." + std::string(a));
    }
    if (attr->ctx != ExprContext::kLoad) CheckAttributeStore(attr);
    CheckMember(attr);
  }

  // getattr/hasattr with a literal identifier that is not a dunder; anything else names an
  // attribute in data the rules cannot read.
  void CheckGetattr(Call* call) {
    auto* fn = As<Name>(call->func);
    if (fn == nullptr || (fn->id != "getattr" && fn->id != "hasattr")) return;
    called_getattrs_.insert(fn);
    const ConstantValue* name = call->args.size() >= 2 ? StrConst(call->args[1]) : nullptr;
    if (name == nullptr || !IsIdentifier(name->text) || IsDunder(name->text)) {
      Add("func.subset_reflection", call,
          std::string(fn->id) + " with an attribute name that is not a literal identifier");
    }
  }

  // getattr handed around as a value (functools.reduce(getattr, path, torch)) is called from C
  // with names held in data.
  void CheckGetattrValue(Name* name) {
    if ((name->id == "getattr" || name->id == "hasattr") && name->ctx == ExprContext::kLoad &&
        !called_getattrs_.count(name) && !imports_.count(name->id)) {
      Add("func.subset_reflection", name, std::string(name->id) + " used as a value");
    }
  }

  // ---- classes ---------------------------------------------------------------------------------
  void CheckClass(ClassDef* cls) {
    for (Keyword* k : cls->keywords) {
      Add("func.subset_class", cls,
          "class " + std::string(cls->name) + " passes " +
              (k->arg.empty() ? std::string("**kwargs") : std::string(k->arg) + "="));
    }
    for (ExprNode* d : cls->decorator_list) {
      const Node* target = As<Call>(d) != nullptr ? As<Call>(d)->func : d;
      if (Qualified(target) != "dataclasses.dataclass") {
        Add("func.subset_class", d, "class decorator " + Qualified(target));
      }
    }
    for (ExprNode* b : cls->bases) {
      auto* name = As<Name>(b);
      bool file_class =
          name != nullptr && !imports_.count(name->id) && file_classes_.count(name->id);
      if (!file_class && !Listed(subset::kAllowedBases, Qualified(b))) {
        Add("func.subset_class", b,
            "class " + std::string(cls->name) + " derives from " +
                (Qualified(b).empty() ? std::string("an expression") : Qualified(b)));
      }
    }
    const bool is_module = module_classes_.count(cls->name) > 0;
    for (StmtNode* s : cls->body) {
      if (auto* fn = As<FunctionDef>(s)) CheckMethod(cls, fn->name, fn, is_module);
      if (auto* fn = As<AsyncFunctionDef>(s)) CheckMethod(cls, fn->name, fn, is_module);
      if (!is_module) continue;
      auto check_target = [&](ExprNode* t) {
        auto* name = As<Name>(t);
        if (name != nullptr && Listed(subset::kModuleAttributes, name->id)) {
          Add("func.subset_class", t,
              std::string(cls->name) + " rebinds nn.Module." + std::string(name->id));
        }
      };
      if (auto* assign = As<Assign>(s)) {
        for (ExprNode* t : assign->targets) check_target(t);
      } else if (auto* ann = As<AnnAssign>(s)) {
        check_target(ann->target);
      }
    }
  }

  void CheckMethod(ClassDef* cls, std::string_view name, Node* fn, bool is_module) {
    std::string where = std::string(cls->name) + "." + std::string(name);
    if (IsDunder(name)) {
      bool ok =
          is_module ? Listed(subset::kModuleDunders, name) : Listed(subset::kHelperDunders, name);
      if (!ok) Add("func.subset_class", fn, "defines the special method " + where);
    } else if (is_module && name != "forward" && Listed(subset::kModuleAttributes, name)) {
      Add("func.subset_class", fn, "overrides nn.Module." + std::string(name) + " in " + where);
    }
  }

  // x.training = ..., ModelNew.train = ..., self._forward_hooks = ...: the evaluator reads these.
  void CheckAttributeStore(Attribute* attr) {
    if (Listed(subset::kModuleAttributes, attr->attr)) {
      Add("func.subset_class", attr, "writes the nn.Module attribute ." + std::string(attr->attr));
      return;
    }
    auto* base = As<Name>(attr->value);
    if (base != nullptr && file_classes_.count(base->id) && !imports_.count(base->id)) {
      Add("func.subset_class", attr,
          "writes " + std::string(base->id) + "." + std::string(attr->attr) +
              " outside its class body");
    }
  }

  // ---- constructs ------------------------------------------------------------------------------
  void CheckDecorators(Span<ExprNode*> decorators) {
    for (ExprNode* d : decorators) {
      const Node* target = As<Call>(d) != nullptr ? As<Call>(d)->func : d;
      if (!Listed(subset::kAllowedDecorators, Qualified(target))) {
        Add("func.subset_construct", d,
            "decorator " +
                (Qualified(target).empty() ? std::string("expression") : Qualified(target)));
      }
    }
  }

  // key= hands a callback to whatever the callee is (min, max, sorted, list.sort, a partial of
  // one), which calls it from C where the call monitor sees neither the call nor its argument.
  // Only a function the file defines, which runs as the candidate's own code, may take one, and
  // torch and triton, whose key= is data (triton.autotune's list of argument names).
  void CheckKeyCallback(Call* call) {
    auto* fn = As<Name>(call->func);
    if (fn != nullptr && file_functions_.count(fn->id) && !imports_.count(fn->id)) return;
    const std::string callee = Qualified(call->func);
    if (callee.starts_with("triton.") || callee.starts_with("torch.")) return;
    for (Keyword* k : call->keywords) {
      if (k->arg == "key") {
        Add("func.subset_construct", call,
            (callee.empty() ? std::string("a call") : callee) + "(key=...) calls back from C");
      }
    }
  }

  // A dataclass field's default_factory is called by the __init__ that dataclasses generates (code
  // of no file of the candidate's, so neither the call monitor nor the audit's stack walk reads it
  // as the candidate's): only an empty container may be made there, whoever the callee (an alias
  // of field, a partial of it).
  void CheckDefaultFactory(Call* call) {
    const bool field = Qualified(call->func) == "dataclasses.field";
    for (Keyword* k : call->keywords) {
      if (k->arg.empty() && field) {
        Add("func.subset_construct", k->value,
            "dataclasses.field(**...) hides its default_factory");
      } else if (k->arg == "default_factory") {
        const std::string factory = Qualified(k->value);
        if (!Listed(subset::kDefaultFactories, factory)) {
          Add("func.subset_construct", k->value,
              "default_factory " + (factory.empty() ? std::string("expression") : factory) +
                  " runs from generated code");
        }
      }
    }
  }

  // f-strings, "..." % x and "...".format(x) build text from values in C (a tensor formats
  // itself there); only an error message may do it.
  void CheckFormatting(Node* n, bool in_message) {
    if (in_message) return;
    if (auto* joined = As<JoinedStr>(n)) {
      for (ExprNode* v : joined->values) {
        if (v->kind == NodeKind::kFormattedValue) {
          Add("func.subset_construct", n, "f-string outside an error message");
          return;
        }
      }
    } else if (auto* bin = As<BinOp>(n);
               bin != nullptr && bin->op == OperatorKind::kMod && StrConst(bin->left) != nullptr) {
      Add("func.subset_construct", n, "%-formatting outside an error message");
    } else if (auto* call = As<Call>(n)) {
      auto* attr = As<Attribute>(call->func);
      if (attr != nullptr && attr->attr == "format" && StrConst(attr->value) != nullptr) {
        Add("func.subset_construct", n, "str.format outside an error message");
      }
    }
  }

  void CheckStatementKind(Node* n) {
    switch (n->kind) {
      case NodeKind::kYield:
      case NodeKind::kYieldFrom:
        Add("func.subset_construct", n, "generator function (yield)");
        break;
      case NodeKind::kAwait:
      case NodeKind::kAsyncFunctionDef:
      case NodeKind::kAsyncFor:
      case NodeKind::kAsyncWith:
        Add("func.subset_construct", n, "coroutine (async/await)");
        break;
      case NodeKind::kGlobal:
      case NodeKind::kNonlocal:
        Add("func.subset_construct", n, "global or nonlocal declaration");
        break;
      case NodeKind::kMatch:
        Add("func.subset_construct", n, "match statement");
        break;
      default:
        break;
    }
  }

  // ---- the walk --------------------------------------------------------------------------------
  void Visit(Node* n, bool in_message) {
    CheckStatementKind(n);
    CheckFormatting(n, in_message);
    switch (n->kind) {
      case NodeKind::kImport:
      case NodeKind::kImportFrom:
        CheckImport(n);
        break;
      case NodeKind::kAttribute:
        CheckAttribute(static_cast<Attribute*>(n));
        break;
      case NodeKind::kCall:
        CheckGetattr(static_cast<Call*>(n));
        CheckKeyCallback(static_cast<Call*>(n));
        CheckDefaultFactory(static_cast<Call*>(n));
        break;
      case NodeKind::kName:
        CheckGetattrValue(static_cast<Name*>(n));
        break;
      case NodeKind::kClassDef:
        CheckClass(static_cast<ClassDef*>(n));
        break;
      case NodeKind::kFunctionDef:
        CheckDecorators(static_cast<FunctionDef*>(n)->decorator_list);
        break;
      case NodeKind::kAsyncFunctionDef:
        CheckDecorators(static_cast<AsyncFunctionDef*>(n)->decorator_list);
        break;
      case NodeKind::kRaise:
        in_message = true;  // the exception and its message are built only to fail
        break;
      case NodeKind::kAssert: {
        auto* a = static_cast<Assert*>(n);
        Visit(a->test, in_message);
        if (a->msg != nullptr) Visit(a->msg, true);
        return;
      }
      default:
        break;
    }
    ForEachChild(n, [&](Node* child) { Visit(child, in_message); });
  }

  Module* mod_;
  std::unordered_map<std::string_view, std::string> imports_;
  std::unordered_map<std::string_view, ClassDef*> file_classes_;
  std::unordered_set<std::string_view> file_functions_;  // names bound by a def anywhere
  std::unordered_set<std::string_view> module_classes_;
  std::unordered_set<const Name*> called_getattrs_;  // getattr/hasattr in a call's callee position
  std::vector<RawFinding> findings_;
};

}  // namespace

std::vector<RawFinding> CheckCandidateSubset(Module* module) {
  return SubsetChecker(module).Run();
}

}  // namespace tritonrl::verify
