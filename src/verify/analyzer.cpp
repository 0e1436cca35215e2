// The rule engine. One Analyzer per call: it owns every table it builds, so concurrent calls share
// nothing but the read-only allowlist. bench/verify/pyverify.py is the same algorithm over Python's
// `ast` (tests/python/test_verify_parity.py keeps the two in step).
#include "verify/analyzer.h"

#include <algorithm>
#include <array>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "verify/analyzer_tables.h"

namespace tritonrl::verify {
namespace {

using namespace pyast;  // NOLINT: the AST vocabulary is used everywhere here
using Scope = std::unordered_map<std::string_view, std::string>;
using namespace analyzer_tables;  // NOLINT: the tables are this file's vocabulary

constexpr std::string_view kFrameAttrs[] = {"f_back",     "f_globals", "f_locals", "f_code",
                                            "f_builtins", "gi_frame",  "tb_frame", "cr_frame",
                                            "ag_frame",   "tb_next",   "co_code",  "co_consts"};
constexpr std::string_view kAllowedDunders[] = {"__init__", "__name__", "__qualname__", "__doc__",
                                                "__version__"};
constexpr std::string_view kAttrBuiltins[] = {"getattr", "setattr", "delattr", "hasattr"};
constexpr std::string_view kDeviceGuardAttrs[] = {"is_cuda", "is_cpu", "device", "is_available",
                                                  "type"};
constexpr std::string_view kTritonDecorators[] = {"triton.jit",
                                                  "triton.autotune",
                                                  "triton.heuristics",
                                                  "triton.runtime.jit",
                                                  "triton.runtime.autotune",
                                                  "triton.runtime.heuristics",
                                                  "triton.runtime.jit.jit",
                                                  "triton.language.core.jit"};
constexpr std::string_view kReferenceCopies[] = {"Model", "get_inputs", "get_init_inputs"};
constexpr std::string_view kTensorBases[] = {"torch.Tensor", "torch._C.TensorBase",
                                             "torch._C._TensorBase", "torch.nn.Parameter",
                                             "torch.nn.parameter.Parameter"};
// Classes whose members are tensor methods: torch.Tensor.add(a, b) is a + b.
constexpr std::string_view kTensorClasses[] = {"torch.Tensor", "torch.nn.Parameter",
                                               "torch.nn.parameter.Parameter"};
// Tensor-method names left out of tensor_compute_methods because they collide with Python
// containers; as members of torch.Tensor they are compute all the same.
constexpr std::string_view kCollidingComputeMethods[] = {"add", "sort", "values", "index", "type"};
// Keyword arguments through which Triton calls back into Python at launch time.
constexpr std::string_view kLaunchHookKeywords[] = {
    "pre_hook", "post_hook", "do_bench", "prune_configs_by", "early_config_prune", "perf_model"};
// Methods that materialise a copy of their receiver (data movement, not a view).
constexpr std::string_view kMaterializingMethods[] = {"contiguous", "clone"};
// Importing these has effects of its own (native loaders, compiler configuration): reported even
// when the import is never used. Other banned modules are reported where they are used.
constexpr std::string_view kImportRules[] = {"func.native_code", "func.dynamic_code",
                                             "func.torch_compile"};

template <typename Range>
bool Contains(const Range& range, std::string_view s) {
  return std::find(std::begin(range), std::end(range), s) != std::end(range);
}

bool StartsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool IsDunder(std::string_view s) {
  return s.size() > 4 && StartsWith(s, "__") && s.substr(s.size() - 2) == "__";
}
bool RootedAt(std::string_view q, std::string_view root) {
  return q == root || (StartsWith(q, root) && q.size() > root.size() && q[root.size()] == '.');
}

// base.attr, where a re-exported module is itself (kReexports).
std::string Step(std::string base, std::string_view attr) {
  static const auto* const kByAttr = [] {
    auto* m = new std::unordered_map<std::string_view, std::string_view>();
    for (const Reexport& r : kReexports) m->emplace(r.attr, r.module);
    return m;
  }();
  base += '.';
  base += attr;
  auto it = kByAttr->find(attr);
  if (it != kByAttr->end() && !Contains(kGenuineSubmodules, base)) return std::string(it->second);
  return base;
}

// A dotted import path with every re-export folded (from triton.runtime.jit import threading).
std::string Canonical(std::string_view dotted) {
  size_t dot = dotted.find('.');
  std::string q(dotted.substr(0, dot));
  while (dot != std::string_view::npos) {
    size_t next = dotted.find('.', dot + 1);
    q = Step(std::move(q), dotted.substr(dot + 1, next - dot - 1));
    dot = next;
  }
  return q;
}

// A function-like node: FunctionDef, AsyncFunctionDef or Lambda.
struct FnView {
  Identifier name;
  Span<ExprNode*> decorators;
  Span<StmtNode*> body;
  Arguments* args = nullptr;
};

bool IsFunctionDef(const Node* n) {
  return n != nullptr &&
         (n->kind == NodeKind::kFunctionDef || n->kind == NodeKind::kAsyncFunctionDef);
}

FnView ViewFn(Node* n) {
  if (auto* f = As<FunctionDef>(n)) return {f->name, f->decorator_list, f->body, f->args};
  if (auto* f = As<AsyncFunctionDef>(n)) return {f->name, f->decorator_list, f->body, f->args};
  if (auto* f = As<Lambda>(n)) return {{}, {}, {}, f->args};
  return {};
}

const ConstantValue* StrConstant(const Node* n) {
  auto* c = As<Constant>(n);
  return c != nullptr && c->value.kind == ConstantKind::kStr ? &c->value : nullptr;
}

// getattr(obj, "name") with a constant name: the receiver and the name, else {nullptr, ""}.
std::pair<const Node*, std::string_view> ConstGetattr(const Node* n) {
  auto* call = As<Call>(n);
  if (call == nullptr || call->args.size() < 2) return {nullptr, {}};
  auto* fn = As<Name>(call->func);
  if (fn == nullptr || fn->id != "getattr") return {nullptr, {}};
  const ConstantValue* s = StrConstant(call->args[1]);
  if (s == nullptr) return {nullptr, {}};
  return {call->args[0], s->text};
}

bool IsLoadRef(const Node* n) {
  if (auto* name = As<Name>(n)) return name->ctx == ExprContext::kLoad;
  if (auto* attr = As<Attribute>(n)) return attr->ctx == ExprContext::kLoad;
  return ConstGetattr(n).first != nullptr;
}

// `if __name__ == "__main__":` (never runs when the evaluator imports the file).
bool IsMainGuard(const Node* n) {
  auto* s = As<If>(n);
  auto* cmp = s != nullptr ? As<Compare>(s->test) : nullptr;
  if (cmp == nullptr || cmp->comparators.size() != 1) return false;
  auto* left = As<Name>(cmp->left);
  const ConstantValue* right = StrConstant(cmp->comparators[0]);
  return left != nullptr && left->id == "__name__" && right != nullptr && right->text == "__main__";
}

template <typename Fn>
void WalkAll(Node* root, Fn&& fn) {
  Walk(root, [&](Node* n) {
    fn(n);
    return true;
  });
}

template <typename Fn>
void ForEachParam(Arguments* a, Fn&& fn) {
  if (a == nullptr) return;
  for (Arg* x : a->posonlyargs) fn(x->arg);
  for (Arg* x : a->args) fn(x->arg);
  for (Arg* x : a->kwonlyargs) fn(x->arg);
  if (a->vararg != nullptr) fn(a->vararg->arg);
  if (a->kwarg != nullptr) fn(a->kwarg->arg);
}

struct FnRef {
  Node* fn = nullptr;
  ClassDef* owner = nullptr;
};

using AttrMap = std::unordered_map<std::string_view, std::vector<ExprNode*>>;
using NameSetView = std::unordered_set<std::string_view>;

// What a walk over reachable code found about launches.
struct LaunchFacts {
  bool direct = false;         // k[grid](...), a bound launcher, k.run(..., grid=...)
  bool through_param = false;  // p[grid](...) with p a parameter of the function
  bool kernel_passed = false;  // a kernel value handed to a call as an argument
};

class Analyzer {
 public:
  Analyzer(Module* module, const Allowlist& allow) : mod_(module), allow_(allow) {}

  std::vector<RawFinding> Run() {
    Collect();
    if (kernel_nodes_.empty()) Add("syntax.no_triton_kernel", mod_);
    auto it = classes_.find("ModelNew");
    if (it == classes_.end()) {
      Add("syntax.no_modelnew", mod_);
    } else {
      CheckModelNew(it->second);
    }
    ImportTimeAndKernels();
    FileWide();
    KernelShapes();
    return std::move(findings_);
  }

 private:
  // ---- findings --------------------------------------------------------------------------------
  void Add(std::string_view rule, const Node* node, std::string detail = "") {
    RawFinding f;
    f.rule = rule;
    f.detail = std::move(detail);
    if (node != nullptr && node->kind != NodeKind::kModule && node->pos.lineno > 0) {
      f.line = node->pos.lineno;
      f.col = node->pos.col_offset + 1;
    }
    findings_.push_back(std::move(f));
  }

  // ---- name resolution -------------------------------------------------------------------------
  // The qualified value a name, attribute chain or constant getattr denotes, re-exports folded;
  // empty when it is not rooted at an import (locals, parameters, literals).
  std::string Resolve(const Node* node, const Scope* scope = nullptr) const {
    if (auto* name = As<Name>(node)) {
      if (scope != nullptr) {
        auto it = scope->find(name->id);
        if (it != scope->end()) return it->second;
      }
      auto it = imports_.find(name->id);
      if (it != imports_.end()) return it->second;
      auto mv = module_values_.find(name->id);
      if (mv != module_values_.end()) return mv->second;
      if (!bound_names_.count(name->id)) {
        for (const Injected& g : kInterpreterGlobals) {
          if (g.name == name->id) return std::string(g.qualified);
        }
      }
      return {};
    }
    if (auto* attr = As<Attribute>(node)) {
      std::string base = Resolve(attr->value, scope);
      return base.empty() ? base : Step(std::move(base), attr->attr);
    }
    auto [receiver, literal] = ConstGetattr(node);
    if (receiver != nullptr) {
      std::string base = Resolve(receiver, scope);
      return base.empty() ? base : Step(std::move(base), literal);
    }
    return {};
  }

  static void BindImport(Node* stmt, Scope* table) {
    if (auto* imp = As<Import>(stmt)) {
      for (Alias* a : imp->names) {
        if (!a->asname.empty()) {
          (*table)[a->asname] = Canonical(a->name);
        } else {
          std::string_view root = a->name.substr(0, a->name.find('.'));
          (*table)[root] = std::string(root);
        }
      }
    } else if (auto* from = As<ImportFrom>(stmt)) {
      if (from->level != 0 || from->module.empty()) return;
      for (Alias* a : from->names) {
        if (a->name == "*") continue;
        std::string q(from->module);
        q += '.';
        q += a->name;
        (*table)[a->asname.empty() ? a->name : a->asname] = Canonical(q);
      }
    }
  }

  // Pre-order walk that also hands each node its parent (no parent table to build).
  template <typename Fn>
  static void WalkWithParent(Node* n, Node* parent, Fn& fn) {
    fn(n, parent);
    ForEachChild(n, [&](Node* child) { WalkWithParent(child, n, fn); });
  }

  // The chain of nodes from root down to target (inclusive); false if target is not below root.
  static bool PathTo(Node* root, const Node* target, std::vector<Node*>* path) {
    path->push_back(root);
    if (root == target) return true;
    bool found = false;
    ForEachChild(root, [&](Node* child) {
      if (!found) found = PathTo(child, target, path);
    });
    if (!found) path->pop_back();
    return found;
  }

  // The function a triton.jit(fn) / triton.autotune(...)(triton.jit(fn)) call turns into a kernel.
  Node* KernelFromCall(const Node* v) const {
    auto* call = As<Call>(v);
    if (call == nullptr || call->args.empty()) return nullptr;
    const Node* callee = call->func;
    if (auto* inner = As<Call>(callee)) callee = inner->func;  // autotune(configs=...)(fn)
    if (!Contains(kTritonDecorators, Resolve(callee))) return nullptr;
    if (auto* name = As<Name>(call->args[0])) {
      auto f = functions_.find(name->id);
      if (f != functions_.end() && IsFunctionDef(f->second)) return f->second;
    }
    return KernelFromCall(call->args[0]);
  }

  void AddKernel(std::string_view name, Node* fn) {
    if (kernel_nodes_.insert(fn).second) kernel_defs_.emplace_back(ViewFn(fn).name, fn);
    if (!name.empty()) kernels_[name] = fn;
  }

  void Collect() {
    WalkAll(mod_, [&](Node* n) {
      if (n->kind == NodeKind::kImport || n->kind == NodeKind::kImportFrom) {
        BindImport(n, &imports_);
        if (auto* from = As<ImportFrom>(n)) {
          // The reference model imported from the task module, under any name.
          std::string_view root = from->module.substr(0, from->module.find('.'));
          for (Alias* a : from->names) {
            if (a->name == "Model" && root != "torch" && root != "triton") {
              reference_names_.insert(a->asname.empty() ? a->name : a->asname);
            }
          }
        }
      }
      if (auto* name = As<Name>(n); name != nullptr && name->ctx != ExprContext::kLoad) {
        bound_names_.insert(name->id);
      } else if (auto* arg = As<Arg>(n)) {
        bound_names_.insert(arg->arg);
      } else if (IsFunctionDef(n)) {
        bound_names_.insert(ViewFn(n).name);
      } else if (auto* cls = As<ClassDef>(n)) {
        bound_names_.insert(cls->name);
      } else if (auto* h = As<ExceptHandler>(n); h != nullptr && !h->name.empty()) {
        bound_names_.insert(h->name);
      }
    });
    for (const auto& [name, q] : imports_) bound_names_.insert(name);
    for (StmtNode* stmt : mod_->body) {
      if (IsFunctionDef(stmt)) {
        functions_[ViewFn(stmt).name] = stmt;
      } else if (auto* cls = As<ClassDef>(stmt)) {
        classes_[cls->name] = cls;
      } else if (auto* assign = As<Assign>(stmt)) {
        if (assign->value != nullptr && assign->value->kind == NodeKind::kLambda) {
          for (ExprNode* t : assign->targets) {
            if (auto* name = As<Name>(t)) functions_[name->id] = assign->value;
          }
        }
        for (ExprNode* t : assign->targets) {
          AddModuleVars(t);
          if (auto* name = As<Name>(t)) module_assigns_[name->id].push_back(assign->value);
        }
      } else if (auto* ann = As<AnnAssign>(stmt)) {
        AddModuleVars(ann->target);
        auto* name = As<Name>(ann->target);
        if (name != nullptr && ann->value != nullptr) {
          module_assigns_[name->id].push_back(ann->value);
        }
      }
    }
    if (classes_.count("Model")) reference_names_.insert("Model");
    // Kernels: decorated functions at module level and in class bodies, k = triton.jit(fn).
    auto scan = [&](Span<StmtNode*> body, bool module_level) {
      for (StmtNode* stmt : body) {
        if (IsFunctionDef(stmt) && IsKernel(stmt)) {
          AddKernel(module_level ? ViewFn(stmt).name : Identifier(), stmt);
        } else if (auto* assign = As<Assign>(stmt)) {
          if (Node* fn = KernelFromCall(assign->value)) {
            for (ExprNode* t : assign->targets) {
              auto* name = As<Name>(t);
              AddKernel(module_level && name != nullptr ? name->id : Identifier(), fn);
            }
          }
        }
      }
    };
    scan(mod_->body, true);
    for (const auto& [cname, cls] : classes_) scan(cls->body, false);
    // Kernels in nested scopes (a factory function, __init__, a class inside a class) are kernels
    // too, known by their def name wherever it is read (issue 34's honest forms).
    WalkAll(mod_, [&](Node* n) {
      if (auto* cls = As<ClassDef>(n)) file_class_names_.insert(cls->name);
      if (IsFunctionDef(n) && !kernel_nodes_.count(n) && IsKernel(n)) AddKernel(ViewFn(n).name, n);
    });
    for (int round = 0; round < 4; ++round) {  // aliases of aliases
      for (StmtNode* stmt : mod_->body) {
        auto* assign = As<Assign>(stmt);
        if (assign == nullptr || assign->targets.size() != 1 || assign->value == nullptr) continue;
        auto* target = As<Name>(assign->targets[0]);
        if (target == nullptr) continue;
        std::string q = Resolve(assign->value);
        if (!q.empty()) {
          module_values_[target->id] = std::move(q);
        } else if (auto* v = As<Name>(assign->value)) {
          auto k = kernels_.find(v->id);
          if (k != kernels_.end()) kernels_[target->id] = k->second;
          if (reference_names_.count(v->id)) reference_names_.insert(target->id);
        }
      }
    }
    for (StmtNode* stmt : mod_->body) {
      Identifier name;
      if (auto* cls = As<ClassDef>(stmt)) name = cls->name;
      if (IsFunctionDef(stmt)) name = ViewFn(stmt).name;
      if (!name.empty() && Contains(kReferenceCopies, name)) {
        WalkAll(stmt, [&](Node* n) { skip_nodes_.insert(n); });
      }
    }
  }

  void AddModuleVars(Node* target) {
    WalkAll(target, [&](Node* n) {
      if (auto* name = As<Name>(n)) module_vars_.insert(name->id);
    });
  }

  bool IsKernel(Node* fn) const {
    for (ExprNode* d : ViewFn(fn).decorators) {
      const Node* target = d;
      if (auto* call = As<Call>(d)) target = call->func;
      if (Contains(kTritonDecorators, Resolve(target))) return true;
    }
    return false;
  }

  bool IsKernelNode(const Node* fn) const { return kernel_nodes_.count(fn) > 0; }

  // The reference model under any name: Model, an alias of it, `from task import Model as M`,
  // or task_module.Model.
  bool IsReferenceRef(const Node* n, const Scope* scope = nullptr) const {
    if (auto* name = As<Name>(n)) {
      if (name->ctx != ExprContext::kLoad) return false;
      if (reference_names_.count(name->id)) return true;
    } else if (auto* attr = As<Attribute>(n)) {
      if (attr->attr != "Model" || attr->ctx != ExprContext::kLoad) return false;  // cheap first
    } else if (ConstGetattr(n).second != "Model") {
      return false;
    }
    if (n->kind == NodeKind::kName && !imports_.count(As<Name>(n)->id)) return false;
    std::string q = Resolve(n, scope);
    return q.size() > 6 && q.substr(q.size() - 6) == ".Model" && !RootedAt(q, "torch") &&
           !RootedAt(q, "triton");
  }

  const Scope& LocalScope(Node* fn) {
    auto it = scopes_.find(fn);
    if (it != scopes_.end()) return it->second;
    Scope scope;
    WalkAll(fn, [&](Node* n) {
      if (n->kind == NodeKind::kImport || n->kind == NodeKind::kImportFrom) BindImport(n, &scope);
    });
    WalkAll(fn, [&](Node* n) {
      auto* assign = As<Assign>(n);
      if (assign == nullptr || assign->targets.size() != 1) return;
      auto* target = As<Name>(assign->targets[0]);
      if (target == nullptr) return;
      std::string q = Resolve(assign->value, &scope);
      if (!q.empty()) scope[target->id] = std::move(q);
    });
    return scopes_.emplace(fn, std::move(scope)).first->second;
  }

  // ---- class structure -------------------------------------------------------------------------
  const std::vector<ClassDef*>& ClassChain(ClassDef* cls) {
    auto cached = chains_.find(cls);
    if (cached != chains_.end()) return cached->second;
    std::vector<ClassDef*> chain;
    std::vector<ClassDef*> todo{cls};
    std::unordered_set<std::string_view> seen;
    for (size_t i = 0; i < todo.size(); ++i) {
      ClassDef* c = todo[i];
      if (!seen.insert(c->name).second) continue;
      chain.push_back(c);
      for (ExprNode* b : c->bases) {
        auto* name = As<Name>(b);
        if (name == nullptr || reference_names_.count(name->id)) continue;
        auto it = classes_.find(name->id);
        if (it != classes_.end()) todo.push_back(it->second);
      }
    }
    return chains_.emplace(cls, std::move(chain)).first->second;
  }

  Node* Method(ClassDef* cls, std::string_view name) {
    for (ClassDef* c : ClassChain(cls)) {
      for (StmtNode* stmt : c->body) {
        if (IsFunctionDef(stmt) && ViewFn(stmt).name == name) return stmt;
      }
    }
    return nullptr;
  }

  const AttrMap& SelfAttrs(ClassDef* cls) {
    auto it = self_attrs_.find(cls);
    if (it != self_attrs_.end()) return it->second;
    AttrMap attrs;
    auto record = [&](ExprNode* t, ExprNode* v) {
      auto* attr = As<Attribute>(t);
      if (attr == nullptr) return;
      auto* base = As<Name>(attr->value);
      if (base != nullptr && base->id == "self") attrs[attr->attr].push_back(v);
    };
    for (ClassDef* c : ClassChain(cls)) {
      WalkAll(c, [&](Node* n) {
        if (auto* assign = As<Assign>(n)) {
          for (ExprNode* t : assign->targets) {
            record(t, assign->value);
            auto* tt = As<Tuple>(t);
            auto* vt = As<Tuple>(assign->value);
            if (tt != nullptr && vt != nullptr) {
              for (uint32_t i = 0; i < std::min(tt->elts.size(), vt->elts.size()); ++i) {
                record(tt->elts[i], vt->elts[i]);
              }
            }
          }
        } else if (auto* ann = As<AnnAssign>(n)) {
          if (ann->value != nullptr) record(ann->target, ann->value);
        }
      });
      for (StmtNode* stmt : c->body) {
        if (auto* assign = As<Assign>(stmt)) {
          for (ExprNode* t : assign->targets) {
            if (auto* name = As<Name>(t)) attrs[name->id].push_back(assign->value);
          }
        }
      }
    }
    return self_attrs_.emplace(cls, std::move(attrs)).first->second;
  }

  const std::vector<ExprNode*>* SelfAttr(ClassDef* owner, std::string_view attr) {
    if (owner == nullptr) return nullptr;
    const AttrMap& attrs = SelfAttrs(owner);
    auto it = attrs.find(attr);
    return it == attrs.end() ? nullptr : &it->second;
  }

  ClassDef* LocalClass(const Node* n) const {
    auto* name = As<Name>(n);
    if (name == nullptr || reference_names_.count(name->id)) return nullptr;
    auto it = classes_.find(name->id);
    return it == classes_.end() ? nullptr : it->second;
  }

  // ---- ModelNew --------------------------------------------------------------------------------
  void CheckModelNew(ClassDef* cls) {
    bool is_module = false;
    for (ClassDef* c : ClassChain(cls)) {
      for (ExprNode* b : c->bases) {
        if (IsReferenceRef(b)) {
          Add("func.reference_model", b, "ModelNew subclasses Model");
          is_module = true;
        } else {
          std::string q = Resolve(b);
          if (q == "torch.nn.Module" || q == "torch.nn.modules.module.Module") is_module = true;
        }
      }
    }
    if (!is_module) Add("syntax.modelnew_not_module", cls);
    Node* forward = Method(cls, "forward");
    if (forward == nullptr) {
      Add("syntax.no_forward", cls);
      return;
    }
    for (ClassDef* c : ClassChain(cls)) {
      auto visit = [&](Node* n, Node*) {
        for (ExprNode* b : c->bases) {
          if (b == n) return;
        }
        if (!IsReferenceRef(n)) return;
        Add("func.reference_model", n, "ModelNew references Model");
      };
      for (StmtNode* stmt : c->body) WalkWithParent(stmt, nullptr, visit);
    }
    Reachable(cls, forward);
  }

  void AddMethodTargets(ClassDef* c, std::initializer_list<std::string_view> names,
                        std::vector<FnRef>* out) {
    for (std::string_view m : names) {
      if (Node* f = Method(c, m)) out->push_back({f, c});
    }
  }

  std::vector<FnRef> CallableTargets(Node* node, ClassDef* owner, const Scope* scope) {
    std::vector<FnRef> out;
    if (auto* name = As<Name>(node)) {
      if (scope != nullptr && scope->count(name->id)) return out;
      auto f = functions_.find(name->id);
      if (f != functions_.end()) {
        out.push_back({f->second, nullptr});
      } else if (ClassDef* c = LocalClass(node)) {
        AddMethodTargets(c, {"__init__", "__call__", "forward"}, &out);
      }
      return out;
    }
    auto* attr = As<Attribute>(node);
    if (attr == nullptr) return out;
    ExprNode* v = attr->value;
    auto* vname = As<Name>(v);
    if (vname != nullptr && (vname->id == "self" || vname->id == "cls") && owner != nullptr) {
      if (Node* f = Method(owner, attr->attr)) {
        out.push_back({f, owner});
      } else if (const auto* vals = SelfAttr(owner, attr->attr)) {
        for (ExprNode* val : *vals) {
          const Node* target = val;
          if (auto* call = As<Call>(val)) target = call->func;
          if (val->kind == NodeKind::kLambda) {
            out.push_back({val, owner});
          } else if (ClassDef* c = LocalClass(target)) {
            AddMethodTargets(c, {"__call__", "forward"}, &out);
          } else if (auto* tn = As<Name>(target)) {
            auto fit = functions_.find(tn->id);
            if (fit != functions_.end()) out.push_back({fit->second, nullptr});
          }
        }
      }
    } else if (ClassDef* c = LocalClass(v)) {
      if (Node* f = Method(c, attr->attr)) out.push_back({f, c});
    } else if (auto* call = As<Call>(v); call != nullptr && As<Name>(call->func) != nullptr &&
                                         As<Name>(call->func)->id == "super" && owner != nullptr) {
      const std::vector<ClassDef*>& chain = ClassChain(owner);
      for (size_t i = 1; i < chain.size(); ++i) {
        if (Node* f = Method(chain[i], attr->attr)) {
          out.push_back({f, chain[i]});
          break;
        }
      }
    } else if (Resolve(v, scope).empty()) {
      // obj.method on an unknown receiver: any local class method of that name.
      for (const auto& [cname, klass] : classes_) {
        if (reference_names_.count(cname)) continue;
        for (StmtNode* stmt : klass->body) {
          if (stmt->kind == NodeKind::kFunctionDef && ViewFn(stmt).name == attr->attr) {
            out.push_back({stmt, klass});
          }
        }
      }
    }
    return out;
  }

  // ---- kernel values ---------------------------------------------------------------------------
  // A value that is a kernel, a container of kernels, or a launcher `k[grid]`: a kernel name or
  // alias, triton.jit(fn), self.k / Cls.k (a class-body kernel or an attribute holding one), a
  // module or local variable holding one, a subscript of any of these, a conditional between them.
  bool IsKernelValue(const Node* v, ClassDef* owner, const NameSetView* locals, int depth = 0) {
    if (v == nullptr || depth > 6) return false;
    if (auto* name = As<Name>(v)) {
      if (kernels_.count(name->id) || (locals != nullptr && locals->count(name->id))) return true;
      auto it = module_assigns_.find(name->id);
      if (it == module_assigns_.end()) return false;
      for (ExprNode* val : it->second) {
        if (val->kind != NodeKind::kName && IsKernelValue(val, nullptr, nullptr, depth + 1)) {
          return true;
        }
      }
      return false;
    }
    if (auto* attr = As<Attribute>(v)) {
      if (kernels_.count(attr->attr) && RootedAtFileClass(attr->value)) return true;
      auto* base = As<Name>(attr->value);
      if (base == nullptr) return false;
      ClassDef* cls = nullptr;
      if ((base->id == "self" || base->id == "cls") && owner != nullptr) {
        cls = owner;
      } else {
        cls = LocalClass(base);
      }
      if (cls == nullptr) return false;
      if (Node* m = Method(cls, attr->attr)) return IsKernelNode(m);
      if (const auto* vals = SelfAttr(cls, attr->attr)) {
        for (ExprNode* val : *vals) {
          if (IsKernelValue(val, cls, nullptr, depth + 1)) return true;
        }
      }
      return false;
    }
    if (auto* e = As<IfExp>(v)) {
      return IsKernelValue(e->body, owner, locals, depth + 1) ||
             IsKernelValue(e->orelse, owner, locals, depth + 1);
    }
    if (auto* sub = As<Subscript>(v)) return IsKernelValue(sub->value, owner, locals, depth + 1);
    if (auto* d = As<Dict>(v)) {
      for (ExprNode* x : d->values) {
        if (IsKernelValue(x, owner, locals, depth + 1)) return true;
      }
      return false;
    }
    Span<ExprNode*> elts;
    if (auto* l = As<List>(v)) elts = l->elts;
    if (auto* t = As<Tuple>(v)) elts = t->elts;
    for (ExprNode* x : elts) {
      if (IsKernelValue(x, owner, locals, depth + 1)) return true;
    }
    return KernelFromCall(v) != nullptr || ReturnsKernel(v, depth);
  }

  // Owner.Nested.k, self.Nested.k: an attribute chain rooted at self, cls or a class of the file.
  bool RootedAtFileClass(const Node* n) const {
    while (auto* attr = As<Attribute>(n)) n = attr->value;
    auto* name = As<Name>(n);
    return name != nullptr &&
           (name->id == "self" || name->id == "cls" || file_class_names_.count(name->id));
  }

  // make_kernel(): a call of a module function that returns a kernel value (a kernel factory).
  bool ReturnsKernel(const Node* v, int depth) {
    auto* call = As<Call>(v);
    auto* fn_name = call != nullptr ? As<Name>(call->func) : nullptr;
    auto f = fn_name != nullptr ? functions_.find(fn_name->id) : functions_.end();
    if (f == functions_.end() || !IsFunctionDef(f->second) || IsKernelNode(f->second)) return false;
    bool found = false;
    WalkAll(f->second, [&](Node* n) {
      auto* ret = As<Return>(n);
      if (ret != nullptr && IsKernelValue(ret->value, nullptr, nullptr, depth + 1)) found = true;
    });
    return found;
  }

  // Launch facts of one function body (kernel values are tracked through local assignments).
  void FindLaunches(Node* fn, ClassDef* owner, LaunchFacts* facts) {
    NameSetView local_kernels;
    NameSetView launchers;
    NameSetView params;
    ForEachParam(ViewFn(fn).args, [&](Identifier p) { params.insert(p); });
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
            (IsKernelValue(value, owner, &local_kernels) ||
             IteratesKernels(value, owner, local_kernels))) {
          // for kernel, grid in ((k1, g1), (k2, g2)), or in zip(self.plan, spans): ...
          WalkAll(const_cast<Node*>(target), [&](Node* part) {
            if (auto* part_name = As<Name>(part)) local_kernels.insert(part_name->id);
          });
        }
        auto* name = As<Name>(target);
        if (name == nullptr) return;
        if (n->kind == NodeKind::kAssign && IsPartialOfLauncher(value, owner, local_kernels)) {
          launchers.insert(name->id);  // go = functools.partial(k[grid], ...)
        }
        if (!IsKernelValue(value, owner, &local_kernels)) return;
        local_kernels.insert(name->id);
        if (value->kind == NodeKind::kSubscript && n->kind == NodeKind::kAssign) {
          launchers.insert(name->id);
        }
      });
    }
    WalkAll(fn, [&](Node* n) {
      auto* call = As<Call>(n);
      if (call == nullptr) return;
      if (auto* sub = As<Subscript>(call->func)) {
        if (IsKernelValue(sub->value, owner, &local_kernels)) facts->direct = true;
        if (HoldsParam(sub->value, owner, params)) facts->through_param = true;
      } else if (auto* name = As<Name>(call->func); name != nullptr && launchers.count(name->id)) {
        facts->direct = true;
      } else if (auto* attr = As<Attribute>(call->func);
                 attr != nullptr && attr->attr == "run" &&
                 IsKernelValue(attr->value, owner, &local_kernels)) {
        for (Keyword* k : call->keywords) {
          if (k->arg == "grid") facts->direct = true;
        }
      }
      for (ExprNode* a : call->args) {
        if (IsKernelValue(a, owner, &local_kernels)) facts->kernel_passed = true;
      }
      for (Keyword* k : call->keywords) {
        if (IsKernelValue(k->value, owner, &local_kernels)) facts->kernel_passed = true;
      }
    });
  }

  // zip(...), enumerate(...) and the like over a kernel value: the loop's tuple target holds one.
  bool IteratesKernels(const Node* v, ClassDef* owner, NameSetView& local_kernels) {
    auto* call = As<Call>(v);
    auto* fn = call != nullptr ? As<Name>(call->func) : nullptr;
    static constexpr std::string_view kIterators[] = {"zip",  "enumerate", "reversed",
                                                      "list", "tuple",     "sorted"};
    if (fn == nullptr || !Contains(kIterators, fn->id)) return false;
    for (ExprNode* a : call->args) {
      if (IsKernelValue(a, owner, &local_kernels)) return true;
    }
    return false;
  }

  // functools.partial(k[grid], ...): calling it is a launch.
  bool IsPartialOfLauncher(const Node* v, ClassDef* owner, NameSetView& local_kernels) {
    auto* call = As<Call>(v);
    return call != nullptr && Resolve(call->func) == "functools.partial" && !call->args.empty() &&
           call->args[0]->kind == NodeKind::kSubscript &&
           IsKernelValue(call->args[0], owner, &local_kernels);
  }

  // p[grid](...) with p a parameter, o.k[grid](...) with o a parameter or a local (an object
  // handed a kernel, like a dataclass field), or self.k[grid](...) with self.k set from a
  // parameter (a helper class handed the kernel in its constructor).
  bool HoldsParam(const Node* v, ClassDef* owner, const NameSetView& params) {
    if (auto* p = As<Name>(v)) return params.count(p->id) > 0;
    auto* attr = As<Attribute>(v);
    auto* base = attr != nullptr ? As<Name>(attr->value) : nullptr;
    if (base != nullptr && base->id != "self" && base->id != "cls" && !imports_.count(base->id) &&
        !module_vars_.count(base->id) && !file_class_names_.count(base->id)) {
      return true;
    }
    if (base == nullptr || base->id != "self") return false;
    if (const auto* vals = SelfAttr(owner, attr->attr)) {
      for (ExprNode* val : *vals) {
        auto* name = As<Name>(val);
        if (name != nullptr && !kernels_.count(name->id) && !module_vars_.count(name->id) &&
            !imports_.count(name->id)) {
          return true;
        }
      }
    }
    return false;
  }

  // ---- reachability ----------------------------------------------------------------------------
  // Walks everything reachable from `work`: functions and methods, plus the values held in self
  // attributes that reachable code reads (their torch references are checked, the callables in
  // them are followed). Fills fns_ (checked later) and launch facts.
  void Traverse(std::vector<FnRef> work, LaunchFacts* facts) {
    while (!work.empty()) {
      FnRef ref = work.back();
      work.pop_back();
      if (seen_.count(ref.fn)) continue;
      seen_.insert(ref.fn);
      if (IsKernelNode(ref.fn)) {
        KernelCallees(ref.fn, &work);
        continue;
      }
      fns_.push_back(ref);
      if (facts != nullptr) FindLaunches(ref.fn, ref.owner, facts);
      const Scope& scope = LocalScope(ref.fn);
      WalkAll(ref.fn, [&](Node* n) {
        if (!IsLoadRef(n)) return;
        for (const FnRef& t : CallableTargets(n, ref.owner, &scope)) {
          if (t.fn != ref.fn) work.push_back(t);
        }
        auto* attr = As<Attribute>(n);
        auto* base = attr != nullptr ? As<Name>(attr->value) : nullptr;
        if (base == nullptr || (base->id != "self" && base->id != "cls") || ref.owner == nullptr ||
            Method(ref.owner, attr->attr) != nullptr) {
          return;
        }
        if (const auto* vals = SelfAttr(ref.owner, attr->attr)) {
          for (ExprNode* val : *vals) {
            HeldValue(val, ref.owner, &work);
            if (facts != nullptr) KernelsPassedIn(val, ref.owner, facts);
          }
        }
      });
    }
  }

  // A value stored for later use (self attribute, hook argument, decorator argument): torch
  // functions referenced in it are compute; lambdas and local functions in it are reachable.
  void HeldValue(Node* val, ClassDef* owner, std::vector<FnRef>* work) {
    if (!held_seen_.insert(val).second) return;
    CheckCompute(val, val, owner, kEmptyScope, /*kernel=*/false, /*calls=*/false);
    WalkAll(val, [&](Node* n) {
      if (n->kind == NodeKind::kLambda) {
        work->push_back({n, owner});
      } else if (IsLoadRef(n)) {
        for (const FnRef& t : CallableTargets(n, owner, nullptr)) work->push_back(t);
      }
    });
  }

  // A held value built by a call that is handed a kernel (self.launch = Launcher(kernel)).
  void KernelsPassedIn(Node* val, ClassDef* owner, LaunchFacts* facts) {
    WalkAll(val, [&](Node* n) {
      auto* call = As<Call>(n);
      if (call == nullptr) return;
      for (ExprNode* a : call->args) {
        if (IsKernelValue(a, owner, nullptr)) facts->kernel_passed = true;
      }
      for (Keyword* k : call->keywords) {
        if (IsKernelValue(k->value, owner, nullptr)) facts->kernel_passed = true;
      }
    });
  }

  // Plain Python functions a kernel body calls (under the interpreter they run as Python).
  void KernelCallees(Node* kernel, std::vector<FnRef>* work) {
    WalkAll(kernel, [&](Node* n) {
      auto* call = As<Call>(n);
      auto* name = call != nullptr ? As<Name>(call->func) : nullptr;
      if (name == nullptr) return;
      auto f = functions_.find(name->id);
      if (f != functions_.end() && !IsKernelNode(f->second)) work->push_back({f->second, nullptr});
    });
  }

  void Reachable(ClassDef* model_new, Node* forward) {
    LaunchFacts facts;
    Traverse({{forward, model_new}}, &facts);
    bool launched = facts.direct || (facts.through_param && facts.kernel_passed);
    if (!kernel_nodes_.empty() && !launched) Add("syntax.kernel_not_launched", forward);
    CheckMovementAnswer(forward);
  }

  // Import-time code (module and class bodies, decorators, default arguments; not the
  // `if __name__ == "__main__":` block), kernel bodies and launch hooks: torch compute there is
  // compute all the same, and the functions they hand to Triton are reachable.
  void ImportTimeAndKernels() {
    std::vector<FnRef> work;
    auto root = [&](Node* n, ClassDef* owner) {
      CheckCompute(n, n, owner, kEmptyScope, /*kernel=*/false, /*calls=*/true);
      WalkAll(n, [&](Node* sub) {
        if (sub->kind == NodeKind::kLambda) work.push_back({sub, owner});
        if (IsLoadRef(sub)) {
          for (const FnRef& t : CallableTargets(sub, owner, nullptr)) work.push_back(t);
        }
      });
    };
    std::function<void(Span<StmtNode*>, ClassDef*)> body = [&](Span<StmtNode*> stmts,
                                                               ClassDef* owner) {
      for (StmtNode* stmt : stmts) {
        if (skip_nodes_.count(stmt)) continue;
        if (IsFunctionDef(stmt)) {
          FnView f = ViewFn(stmt);
          for (ExprNode* d : f.decorators) root(d, owner);
          if (f.args != nullptr) {
            for (ExprNode* d : f.args->defaults) root(d, owner);
            for (ExprNode* d : f.args->kw_defaults) {
              if (d != nullptr) root(d, owner);
            }
          }
        } else if (auto* cls = As<ClassDef>(stmt)) {
          for (ExprNode* b : cls->bases) root(b, owner);
          for (Keyword* k : cls->keywords) root(k->value, owner);
          for (ExprNode* d : cls->decorator_list) root(d, owner);
          body(cls->body, cls);
        } else if (IsMainGuard(stmt)) {
          body(As<If>(stmt)->orelse, owner);
        } else {
          root(stmt, owner);
        }
      }
    };
    body(mod_->body, nullptr);
    for (const auto& [name, kernel] : kernel_defs_) {
      CheckCompute(kernel, kernel, nullptr, LocalScope(kernel), /*kernel=*/true, /*calls=*/true);
      KernelCallees(kernel, &work);
    }
    // Hooks handed to Triton anywhere: k.add_pre_run_hook(f), pre_hook=/post_hook=/do_bench=.
    WalkAll(mod_, [&](Node* n) {
      auto* call = As<Call>(n);
      if (call == nullptr || skip_nodes_.count(n)) return;
      auto* attr = As<Attribute>(call->func);
      if (attr != nullptr && attr->attr == "add_pre_run_hook") {
        for (ExprNode* a : call->args) HeldValue(a, nullptr, &work);
      }
      for (Keyword* k : call->keywords) {
        if (Contains(kLaunchHookKeywords, k->arg)) HeldValue(k->value, nullptr, &work);
      }
    });
    Traverse(std::move(work), nullptr);
    for (const FnRef& ref : fns_) CheckReachableFn(ref.fn, ref.owner);
  }

  // ---- rules on reachable code -----------------------------------------------------------------
  bool InDeviceGuard(const Node* node, Node* fn) const {
    std::vector<Node*> path;
    if (!PathTo(fn, node, &path)) return false;
    for (size_t i = path.size() - 1; i > 0; --i) {
      const Node* cur = path[i];
      Node* parent = path[i - 1];
      const Node* test = nullptr;
      if (auto* s = As<If>(parent)) test = s->test;
      if (auto* e = As<IfExp>(parent)) test = e->test;
      if (test != nullptr && cur != test) {
        bool guard = false;
        Walk(const_cast<Node*>(test), [&](Node* n) {
          if (auto* a = As<Attribute>(n); a != nullptr && Contains(kDeviceGuardAttrs, a->attr)) {
            guard = true;
          }
          return !guard;
        });
        if (guard) return true;
      }
    }
    return false;
  }

  void Compute(const Node* node, Node* fn, std::string detail,
               std::string_view rule = "func.torch_compute") {
    if (InDeviceGuard(node, fn)) {
      Add("func.torch_fallback", node, std::move(detail));
    } else {
      Add(rule, node, std::move(detail));
    }
  }

  bool TorchBanned(std::string_view q) const {
    if (allow_.torch_functions.count(q)) return false;
    // A direct member of an allowed class or value (torch.Size.numel, torch.float32.itemsize) is
    // allowed unless it computes: torch.Tensor.add(a, b) is a + b.
    size_t dot = q.rfind('.');
    if (dot == std::string_view::npos) return true;
    std::string_view prefix = q.substr(0, dot);
    std::string_view member = q.substr(dot + 1);
    if (!allow_.torch_functions.count(prefix)) return true;
    if (allow_.tensor_methods.count(member)) return false;
    if (Contains(kTensorClasses, prefix)) return true;
    return allow_.tensor_compute_methods.count(member) > 0 ||
           Contains(kCollidingComputeMethods, member);
  }

  // Torch compute in one subtree: calls and references of torch functions outside the allowlist,
  // and (outside kernel bodies) tensor-method forms and the @ operator. `calls` false checks only
  // references (a stored value: calls in it ran when it was built).
  void CheckCompute(Node* root, Node* fn, ClassDef* owner, const Scope& scope, bool kernel,
                    bool calls) {
    auto visit = [&](Node* n, Node* parent) {
      if (calls && !kernel) {
        if (auto* b = As<BinOp>(n); b != nullptr && b->op == OperatorKind::kMatMult) {
          Compute(n, fn, "the @ operator");
        }
        if (auto* a = As<AugAssign>(n); a != nullptr && a->op == OperatorKind::kMatMult) {
          Compute(n, fn, "the @= operator");
        }
      }
      if (auto* call = As<Call>(n); call != nullptr && calls) {
        CheckCall(call, fn, owner, scope, kernel);
      }
      // Under the interpreter a Triton value's .handle holds the raw numpy data; compiled
      // kernels have no use for it.
      if (auto* attr = As<Attribute>(n); kernel && attr != nullptr && attr->attr == "handle") {
        Add("func.introspection", n, "interpreter internals (.handle) in a kernel body");
      }
      if (!IsLoadRef(n)) return;
      if (parent != nullptr && parent->kind == NodeKind::kAttribute) return;
      if (auto* call = As<Call>(parent); call != nullptr && call->func == n) return;
      std::string q = Resolve(n, &scope);
      if (StartsWith(q, "torch.") && TorchBanned(q) && BannedRule(q).empty()) Compute(n, fn, q);
    };
    WalkWithParent(root, nullptr, visit);
  }

  void CheckReachableFn(Node* fn, ClassDef* owner) {
    const Scope& scope = LocalScope(fn);
    NameSetView local_names;
    NameSetView globals_declared;
    WalkAll(fn, [&](Node* n) {
      if (auto* name = As<Name>(n); name != nullptr && name->ctx == ExprContext::kStore) {
        local_names.insert(name->id);
      } else if (auto* arg = As<Arg>(n)) {
        local_names.insert(arg->arg);
      }
    });
    WalkAll(fn, [&](Node* n) {
      if (auto* g = As<Global>(n)) {
        for (Identifier id : g->names) globals_declared.insert(id);
        Add("func.global_state", n, "global statement");
      }
      if (n->kind == NodeKind::kTry || n->kind == NodeKind::kTryStar) {
        Add("func.try_except", n);
        on_path_try_.insert(n);
      }
      if (auto* assign = As<Assign>(n)) {
        for (ExprNode* t : assign->targets) CheckStoreTarget(t, fn, local_names, globals_declared);
      } else if (auto* aug = As<AugAssign>(n)) {
        CheckStoreTarget(aug->target, fn, local_names, globals_declared);
      } else if (auto* ann = As<AnnAssign>(n)) {
        CheckStoreTarget(ann->target, fn, local_names, globals_declared);
      } else if (auto* del = As<Delete>(n)) {
        for (ExprNode* t : del->targets) CheckStoreTarget(t, fn, local_names, globals_declared);
      }
      if (IsReferenceRef(n, &scope)) Add("func.reference_model", n, "forward reaches Model");
    });
    CheckCompute(fn, fn, owner, scope, /*kernel=*/false, /*calls=*/true);
  }

  void CheckStoreTarget(Node* t, Node* fn, const NameSetView& local_names,
                        const NameSetView& globals_declared) {
    Node* base = t;
    while (base->kind == NodeKind::kSubscript || base->kind == NodeKind::kAttribute) {
      if (auto* attr = As<Attribute>(base)) {
        auto* self = As<Name>(attr->value);
        if (self != nullptr && self->id == "self") {
          if (ViewFn(fn).name != "__init__") {
            Add("func.instance_state", t, "self." + std::string(attr->attr));
          }
          return;
        }
        base = attr->value;
      } else {
        base = As<Subscript>(base)->value;
      }
    }
    auto* name = As<Name>(base);
    if (name == nullptr) return;
    if (t == base) {
      if (globals_declared.count(name->id)) Add("func.global_state", t, std::string(name->id));
      return;
    }
    if (classes_.count(name->id) ||
        (module_vars_.count(name->id) && !local_names.count(name->id)) ||
        globals_declared.count(name->id)) {
      Add("func.global_state", t, std::string(name->id));
    }
  }

  void CheckCall(Call* call, Node* fn, ClassDef* owner, const Scope& scope, bool kernel) {
    ExprNode* func = call->func;
    std::string q = Resolve(func, &scope);
    if (!q.empty()) {
      if (StartsWith(q, "torch.") && TorchBanned(q) && BannedRule(q).empty()) {
        std::string_view last = std::string_view(q).substr(q.rfind('.') + 1);
        if (StartsWith(q, "torch.nn.") && !StartsWith(q, "torch.nn.functional") && !last.empty() &&
            last[0] >= 'A' && last[0] <= 'Z') {
          Compute(call, fn, q, "func.nn_layer_call");
        } else {
          Compute(call, fn, q);
        }
      }
      return;
    }
    if (kernel) return;  // Triton tensors have methods named like torch's (x.to, x.sum)
    auto nn_value = [&](ExprNode* val) {
      const Node* target = val;
      if (auto* c = As<Call>(val)) target = c->func;
      std::string tq = Resolve(target);
      return StartsWith(tq, "torch.nn.") && !allow_.torch_functions.count(tq);
    };
    if (auto* attr = As<Attribute>(func)) {
      auto* self = As<Name>(attr->value);
      if (self != nullptr && self->id == "self") {
        if (const auto* vals = SelfAttr(owner, attr->attr)) {
          for (ExprNode* val : *vals) {
            const Node* target = val;
            if (auto* c = As<Call>(val)) target = c->func;
            if (nn_value(val))
              Compute(call, fn, "self." + std::string(attr->attr), "func.nn_layer_call");
            if (IsReferenceRef(target)) Add("func.reference_model", call, "calls a Model instance");
          }
        }
        return;
      }
    }
    // self.layer.forward(x) and self.layers[0](x)
    {
      ExprNode* inner_value = nullptr;
      bool subscript = false;
      bool forward_like = false;
      if (auto* sub = As<Subscript>(func)) {
        inner_value = sub->value;
        subscript = true;
      } else if (auto* attr = As<Attribute>(func)) {
        inner_value = attr->value;
        forward_like = attr->attr == "forward" || attr->attr == "__call__";
      }
      auto* inner_attr = As<Attribute>(inner_value);
      auto* self = inner_attr != nullptr ? As<Name>(inner_attr->value) : nullptr;
      if (self != nullptr && self->id == "self") {
        if (const auto* vals = SelfAttr(owner, inner_attr->attr)) {
          for (ExprNode* val : *vals) {
            if (nn_value(val) && (subscript || forward_like)) {
              Compute(call, fn, "self." + std::string(inner_attr->attr), "func.nn_layer_call");
            }
          }
        }
      }
    }
    if (auto* attr = As<Attribute>(func)) {
      if (allow_.tensor_compute_methods.count(attr->attr) &&
          CallableTargets(func, owner, &scope).empty()) {
        Compute(call, fn, "." + std::string(attr->attr) + "()");
      }
    } else if (auto [receiver, literal] = ConstGetattr(func);
               receiver != nullptr && allow_.tensor_compute_methods.count(literal) &&
               Resolve(receiver, &scope).empty()) {
      Compute(call, fn, "." + std::string(literal) + "()");
    }
  }

  // ---- data movement that is the whole answer ------------------------------------------------
  // forward returning a materialised copy of an input (x.t().contiguous() for a transpose task)
  // or a buffer filled by copy_ from an input, with no kernel ever writing it: torch did the work.
  // `root` is the name under a chain of tensor-method calls and subscripts.
  const Name* ChainRoot(const Node* e, bool* materializes) const {
    while (true) {
      if (auto* call = As<Call>(e)) {
        auto* attr = As<Attribute>(call->func);
        if (attr == nullptr || !allow_.tensor_methods.count(attr->attr)) return nullptr;
        if (Contains(kMaterializingMethods, attr->attr)) *materializes = true;
        e = attr->value;
      } else if (auto* sub = As<Subscript>(e)) {
        e = sub->value;
      } else if (auto* attr = As<Attribute>(e); attr != nullptr && attr->attr == "T") {
        e = attr->value;
      } else {
        return As<Name>(e);
      }
    }
  }

  void CheckMovementAnswer(Node* forward) {
    NameSetView params;
    ForEachParam(ViewFn(forward).args, [&](Identifier p) {
      if (p != "self") params.insert(p);
    });
    NameSetView fed;  // names handed to a call as arguments (kernels, helpers, allocators)
    std::unordered_map<std::string_view, std::vector<const Node*>> sources;
    std::vector<const Return*> returns;
    WalkAll(forward, [&](Node* n) {
      if (auto* r = As<Return>(n); r != nullptr && r->value != nullptr) returns.push_back(r);
      if (auto* assign = As<Assign>(n); assign != nullptr && assign->targets.size() == 1) {
        if (auto* t = As<Name>(assign->targets[0])) sources[t->id].push_back(assign->value);
      }
      auto* call = As<Call>(n);
      if (call == nullptr) return;
      auto* attr = As<Attribute>(call->func);
      if (attr != nullptr && attr->attr == "copy_" && !call->args.empty()) {
        if (auto* recv = As<Name>(attr->value)) sources[recv->id].push_back(call);
      }
      if (attr != nullptr && allow_.tensor_methods.count(attr->attr)) return;
      auto mark = [&](Node* a) {
        WalkAll(a, [&](Node* x) {
          if (auto* name = As<Name>(x)) fed.insert(name->id);
        });
      };
      for (ExprNode* a : call->args) mark(a);
      for (Keyword* k : call->keywords) mark(k->value);
    });
    auto from_input = [&](const Node* v, bool need_copy) {
      bool copies = false;
      const Name* root = ChainRoot(v, &copies);
      return root != nullptr && params.count(root->id) && (copies || !need_copy);
    };
    for (const Return* r : returns) {
      bool copies = false;
      const Name* root = ChainRoot(r->value, &copies);
      if (root == nullptr) continue;
      if (params.count(root->id)) {
        if (copies) Add("func.torch_compute", r, "data movement of an input is the output");
        continue;
      }
      if (fed.count(root->id)) continue;
      auto it = sources.find(root->id);
      if (it == sources.end()) continue;
      for (const Node* src : it->second) {
        auto* call = As<Call>(src);
        auto* attr = call != nullptr ? As<Attribute>(call->func) : nullptr;
        bool copy_from_input = attr != nullptr && attr->attr == "copy_" &&
                               from_input(call->args[0], /*need_copy=*/false);
        if (copy_from_input || from_input(src, /*need_copy=*/true)) {
          Add("func.torch_compute", src, "data movement of an input is the output");
        }
      }
    }
  }

  // ---- rules on the whole file -----------------------------------------------------------------
  // The rule banning q or one of its dotted prefixes (torch.cuda.Stream bans torch.cuda.Stream.x);
  // prefixes ending in '_' (torch.set_) match any continuation.
  static std::string_view BannedRule(std::string_view q) {
    static const auto* const kByPrefix = [] {
      auto* m = new std::unordered_map<std::string_view, std::string_view>();
      for (const Prefix& p : kBannedPrefixes) m->emplace(p.prefix, p.rule);
      return m;
    }();
    for (size_t end = q.find('.');; end = q.find('.', end + 1)) {
      auto it = kByPrefix->find(q.substr(0, end));
      if (it != kByPrefix->end()) return it->second;
      if (end == std::string_view::npos) break;
    }
    for (const Prefix& p : kBannedPrefixes) {
      if (p.prefix.back() == '_' && StartsWith(q, p.prefix)) return p.rule;
    }
    return {};
  }

  static bool InNameSet(const NameSet& set, std::string_view q) {
    size_t end = q.size();
    while (true) {
      if (set.count(q.substr(0, end))) return true;
      size_t dot = q.rfind('.', end - 1);
      if (dot == std::string_view::npos || dot == 0) return false;
      end = dot;
    }
  }

  // Modules by subtree; below triton only the names a kernel author needs (triton_names).
  bool ModuleAllowed(std::string_view q) const {
    if (RootedAt(q, "triton")) return q == "triton" || InNameSet(allow_.triton_names, q);
    return InNameSet(allow_.modules, q);
  }

  void FileWide() {
    auto visit = [&](Node* node, Node* parent) {
      bool skip = skip_nodes_.count(node) > 0;
      if ((node->kind == NodeKind::kTry || node->kind == NodeKind::kTryStar) &&
          !on_path_try_.count(node)) {
        Add("func.try_except_outside", node);
      }
      switch (node->kind) {
        case NodeKind::kAsyncFunctionDef:
        case NodeKind::kAwait:
        case NodeKind::kAsyncFor:
        case NodeKind::kAsyncWith:
          Add("func.concurrency", node, "async");
          break;
        default:
          break;
      }
      if (auto* cls = As<ClassDef>(node)) {
        for (ExprNode* b : cls->bases) {
          std::string q = Resolve(b);
          if (Contains(kTensorBases, q)) Add("func.tensor_subclass", b, q);
        }
      }
      if (IsFunctionDef(node)) {
        Identifier name = ViewFn(node).name;
        if (name == "__torch_function__" || name == "__torch_dispatch__") {
          Add("func.tensor_subclass", node, std::string(name));
        }
      }
      if (auto* attr = As<Attribute>(node)) {
        if (IsDunder(attr->attr) && !Contains(kAllowedDunders, attr->attr)) {
          if (attr->attr == "__torch_function__" || attr->attr == "__torch_dispatch__") {
            Add("func.tensor_subclass", node, std::string(attr->attr));
          } else {
            Add("func.introspection", node, std::string(attr->attr));
          }
        } else if (Contains(kFrameAttrs, attr->attr)) {
          Add("func.introspection", node, std::string(attr->attr));
        }
      }
      if (auto* name = As<Name>(node); name != nullptr && name->ctx == ExprContext::kLoad) {
        for (const BuiltinRule& b : kBuiltinRules) {
          if (b.name == name->id && !functions_.count(name->id) && !imports_.count(name->id)) {
            Add(b.rule, node, std::string(name->id));
          }
        }
        if (name->id == "__builtins__") Add("func.introspection", node, "__builtins__");
      }
      if (auto* call = As<Call>(node)) {
        auto* fname = As<Name>(call->func);
        if (fname != nullptr && Contains(kAttrBuiltins, fname->id)) {
          const ConstantValue* s = call->args.size() >= 2 ? StrConstant(call->args[1]) : nullptr;
          if (s == nullptr || IsDunder(s->text)) {
            Add("func.dynamic_attr", node, std::string(fname->id));
          } else if ((fname->id == "setattr" || fname->id == "delattr") &&
                     !Resolve(call->args[0]).empty()) {
            Add("func.monkeypatch", node, std::string(fname->id));
          }
        }
      }
      auto check_targets = [&](ExprNode* t) {
        WalkAll(t, [&](Node* sub) {
          auto* attr = As<Attribute>(sub);
          if (attr == nullptr || attr->ctx == ExprContext::kLoad) return;
          std::string q = Resolve(sub);
          if (StartsWith(q, "torch.backends") || StartsWith(q, "torch.set_")) {
            Add("func.global_flags", sub, q);
          } else if (!Resolve(attr->value).empty()) {
            Add("func.monkeypatch", sub, q);
          }
        });
      };
      if (auto* assign = As<Assign>(node)) {
        for (ExprNode* t : assign->targets) check_targets(t);
      } else if (auto* aug = As<AugAssign>(node)) {
        check_targets(aug->target);
      } else if (auto* ann = As<AnnAssign>(node)) {
        check_targets(ann->target);
      } else if (auto* del = As<Delete>(node)) {
        for (ExprNode* t : del->targets) check_targets(t);
      }
      if (IsLoadRef(node)) {
        if (parent != nullptr && parent->kind == NodeKind::kAttribute) return;
        std::string q = Resolve(node);
        if (q.empty()) return;
        std::string_view rule = BannedRule(q);
        if (!rule.empty()) {
          Add(rule, node, q);
        } else if ((!skip || RootedAt(q, "triton")) && !ModuleAllowed(q)) {
          Add("func.module_not_allowed", node, q);
        }
      }
    };
    WalkWithParent(mod_, nullptr, visit);
    // Imports of banned modules are reported even when unused.
    WalkAll(mod_, [&](Node* node) {
      std::vector<std::string> names;
      if (auto* imp = As<Import>(node)) {
        for (Alias* a : imp->names) names.push_back(Canonical(a->name));
      } else if (auto* from = As<ImportFrom>(node)) {
        if (from->module.empty()) return;
        for (Alias* a : from->names)
          names.push_back(Canonical(std::string(from->module) + "." + std::string(a->name)));
      } else {
        return;
      }
      for (const std::string& q : names) {
        std::string_view rule = BannedRule(q);
        if (!rule.empty() && Contains(kImportRules, rule)) Add(rule, node, q);
      }
    });
  }

  // ---- kernel shapes ---------------------------------------------------------------------------
  bool IsCopyValue(const Node* v,
                   const std::unordered_map<std::string_view, std::vector<Node*>>& defs,
                   const Scope& scope, int depth) const {
    if (depth > 8) return false;
    if (v->kind == NodeKind::kConstant) return true;
    if (auto* call = As<Call>(v)) {
      std::string q = Resolve(call->func, &scope);
      if (q == "triton.language.load" || q == "triton.language.zeros" ||
          q == "triton.language.full" || q == "triton.language.zeros_like") {
        return true;
      }
      if (auto* attr = As<Attribute>(call->func); attr != nullptr && attr->attr == "to") {
        return IsCopyValue(attr->value, defs, scope, depth + 1);
      }
      return false;
    }
    if (auto* name = As<Name>(v)) {
      auto it = defs.find(name->id);
      if (it == defs.end()) return false;
      for (const Node* d : it->second) {
        if (d->kind == NodeKind::kAugAssign || !IsCopyValue(d, defs, scope, depth + 1))
          return false;
      }
      return true;
    }
    return false;
  }

  void KernelShapes() {
    for (const auto& [name, fn] : kernel_defs_) {
      const Scope& scope = LocalScope(fn);
      std::unordered_map<std::string_view, std::vector<Node*>> defs;
      std::vector<Node*> stores;
      bool other_work = false;
      WalkAll(fn, [&](Node* n) {
        if (auto* assign = As<Assign>(n)) {
          if (assign->targets.size() == 1) {
            if (auto* t = As<Name>(assign->targets[0])) defs[t->id].push_back(assign->value);
          }
        } else if (auto* aug = As<AugAssign>(n)) {
          if (auto* t = As<Name>(aug->target)) defs[t->id].push_back(n);
        } else if (auto* call = As<Call>(n)) {
          std::string q = Resolve(call->func, &scope);
          if (q == "triton.language.store" && call->args.size() >= 2) {
            stores.push_back(call->args[1]);
          } else if (StartsWith(q, "triton.language.atomic") || q == "triton.language.dot") {
            other_work = true;
          } else if (auto* fname = As<Name>(call->func);
                     fname != nullptr && kernels_.count(fname->id)) {
            other_work = true;
          }
        }
      });
      if (stores.empty() || other_work) continue;
      bool all_copy = true;
      for (Node* v : stores) all_copy = all_copy && IsCopyValue(v, defs, scope, 0);
      if (all_copy) Add("func.copy_only_kernel", fn, std::string(name));
    }
  }

  inline static const Scope kEmptyScope{};

  Module* mod_;
  const Allowlist& allow_;
  Scope imports_;
  std::unordered_map<std::string_view, std::string> module_values_;
  std::unordered_map<std::string_view, std::vector<ExprNode*>> module_assigns_;
  NameSetView module_vars_;
  NameSetView bound_names_;
  NameSetView reference_names_;
  std::unordered_map<std::string_view, Node*> functions_;
  std::unordered_map<std::string_view, ClassDef*> classes_;
  std::unordered_map<std::string_view, Node*> kernels_;  // names bound to kernels (nested defs too)
  std::unordered_set<std::string_view> file_class_names_;  // every class the file defines
  std::unordered_set<const Node*> kernel_nodes_;
  std::vector<std::pair<Identifier, Node*>> kernel_defs_;  // each kernel function once, in order
  std::unordered_set<const Node*> skip_nodes_;
  std::unordered_set<const Node*> on_path_try_;
  std::unordered_set<const Node*> seen_;
  std::vector<FnRef> fns_;
  std::unordered_set<const Node*> held_seen_;
  std::unordered_map<const Node*, Scope> scopes_;
  std::unordered_map<const ClassDef*, AttrMap> self_attrs_;
  std::unordered_map<const ClassDef*, std::vector<ClassDef*>> chains_;
  std::vector<RawFinding> findings_;
};

}  // namespace

std::vector<RawFinding> AnalyzeModule(pyast::Module* module, const Allowlist& allow) {
  return Analyzer(module, allow).Run();
}

}  // namespace tritonrl::verify
