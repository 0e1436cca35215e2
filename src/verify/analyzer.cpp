// The rule engine. One Analyzer per call: it owns every table it builds, so concurrent calls share
// nothing but the read-only allowlist. bench/verify/pyverify.py is the same algorithm over Python's
// `ast` (tests/python/test_verify_parity.py keeps the two in step).
#include "verify/analyzer.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace tritonrl::verify {
namespace {

using namespace pyast;  // NOLINT: the AST vocabulary is used everywhere here
using Scope = std::unordered_map<std::string_view, std::string>;

struct Prefix {
  std::string_view prefix;
  std::string_view rule;
};

// Qualified-name prefixes banned anywhere in the file, first match wins (docs/rules.md).
constexpr Prefix kBannedPrefixes[] = {
    {"threading", "func.concurrency"},
    {"_thread", "func.concurrency"},
    {"multiprocessing", "func.concurrency"},
    {"concurrent", "func.concurrency"},
    {"asyncio", "func.concurrency"},
    {"torch.multiprocessing", "func.concurrency"},
    {"torch.cuda.Stream", "func.cuda_stream"},
    {"torch.cuda.stream", "func.cuda_stream"},
    {"torch.cuda.streams", "func.cuda_stream"},
    {"torch.cuda.Event", "func.cuda_stream"},
    {"torch.cuda.ExternalStream", "func.cuda_stream"},
    {"torch.cuda.current_stream", "func.cuda_stream"},
    {"torch.cuda.default_stream", "func.cuda_stream"},
    {"torch.cuda.set_stream", "func.cuda_stream"},
    {"torch.cuda.CUDAGraph", "func.cuda_stream"},
    {"torch.cuda.graph", "func.cuda_stream"},
    {"torch.cuda.graphs", "func.cuda_stream"},
    {"torch.cuda.make_graphed_callables", "func.cuda_stream"},
    {"torch.Stream", "func.cuda_stream"},
    {"torch.Event", "func.cuda_stream"},
    {"torch.cuda.memory", "func.cuda_stream"},
    {"torch.cuda.caching_allocator_alloc", "func.cuda_stream"},
    {"torch.compile", "func.torch_compile"},
    {"torch._dynamo", "func.torch_compile"},
    {"torch._inductor", "func.torch_compile"},
    {"torch.jit", "func.torch_compile"},
    {"torch.fx", "func.torch_compile"},
    {"torch.export", "func.torch_compile"},
    {"torch._higher_order_ops", "func.torch_compile"},
    {"torch.cuda.jiterator", "func.native_code"},
    {"ctypes", "func.native_code"},
    {"cffi", "func.native_code"},
    {"_ctypes", "func.native_code"},
    {"torch.utils.cpp_extension", "func.native_code"},
    {"cupy", "func.native_code"},
    {"pycuda", "func.native_code"},
    {"numba", "func.native_code"},
    {"cuda", "func.native_code"},
    {"torch.library", "func.native_code"},
    {"torch.ops", "func.native_code"},
    {"torch._C", "func.native_code"},
    {"mmap", "func.native_code"},
    {"importlib", "func.dynamic_code"},
    {"runpy", "func.dynamic_code"},
    {"builtins", "func.dynamic_code"},
    {"code", "func.dynamic_code"},
    {"codeop", "func.dynamic_code"},
    {"marshal", "func.dynamic_code"},
    {"pickle", "func.dynamic_code"},
    {"types", "func.dynamic_code"},
    {"gc", "func.introspection"},
    {"inspect", "func.introspection"},
    {"traceback", "func.introspection"},
    {"sys._getframe", "func.introspection"},
    {"sys.modules", "func.introspection"},
    {"sys._current_frames", "func.introspection"},
    {"sys.settrace", "func.introspection"},
    {"sys.setprofile", "func.introspection"},
    {"weakref", "func.introspection"},
    {"os", "func.io_access"},
    {"subprocess", "func.io_access"},
    {"socket", "func.io_access"},
    {"shutil", "func.io_access"},
    {"pathlib", "func.io_access"},
    {"io", "func.io_access"},
    {"tempfile", "func.io_access"},
    {"urllib", "func.io_access"},
    {"http", "func.io_access"},
    {"requests", "func.io_access"},
    {"glob", "func.io_access"},
    {"signal", "func.io_access"},
    {"resource", "func.io_access"},
    {"sys.exit", "func.io_access"},
    {"sys.stdout", "func.io_access"},
    {"sys.stderr", "func.io_access"},
    {"fcntl", "func.io_access"},
    {"posix", "func.io_access"},
    {"torch.backends", "func.global_flags"},
    {"torch.set_", "func.global_flags"},
    {"torch.use_deterministic_algorithms", "func.global_flags"},
    {"torch.manual_seed", "func.global_flags"},
    {"torch.seed", "func.global_flags"},
    {"torch.set_rng_state", "func.global_flags"},
    {"torch.cuda.manual_seed", "func.global_flags"},
    {"torch.random", "func.global_flags"},
    {"torch.overrides", "func.tensor_subclass"},
    {"torch.utils._python_dispatch", "func.tensor_subclass"},
    {"torch._subclasses", "func.tensor_subclass"},
    {"torch.Tensor._make_subclass", "func.tensor_subclass"},
    {"torch.Tensor._make_wrapper_subclass", "func.tensor_subclass"},
};

struct BuiltinRule {
  std::string_view name;
  std::string_view rule;
};
constexpr BuiltinRule kBuiltinRules[] = {
    {"exec", "func.dynamic_code"},       {"eval", "func.dynamic_code"},
    {"compile", "func.dynamic_code"},    {"__import__", "func.dynamic_code"},
    {"breakpoint", "func.dynamic_code"}, {"globals", "func.introspection"},
    {"locals", "func.introspection"},    {"vars", "func.introspection"},
    {"open", "func.io_access"},          {"input", "func.io_access"},
    {"exit", "func.io_access"},          {"quit", "func.io_access"},
};

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

// A function-like node: FunctionDef, AsyncFunctionDef or Lambda.
struct FnView {
  Identifier name;
  Span<ExprNode*> decorators;
  Span<StmtNode*> body;
};

bool IsFunctionDef(const Node* n) {
  return n != nullptr &&
         (n->kind == NodeKind::kFunctionDef || n->kind == NodeKind::kAsyncFunctionDef);
}

FnView ViewFn(Node* n) {
  if (auto* f = As<FunctionDef>(n)) return {f->name, f->decorator_list, f->body};
  if (auto* f = As<AsyncFunctionDef>(n)) return {f->name, f->decorator_list, f->body};
  return {};
}

bool IsLoadRef(const Node* n) {
  if (auto* name = As<Name>(n)) return name->ctx == ExprContext::kLoad;
  if (auto* attr = As<Attribute>(n)) return attr->ctx == ExprContext::kLoad;
  return false;
}

const ConstantValue* StrConstant(const Node* n) {
  auto* c = As<Constant>(n);
  return c != nullptr && c->value.kind == ConstantKind::kStr ? &c->value : nullptr;
}

template <typename Fn>
void WalkAll(Node* root, Fn&& fn) {
  Walk(root, [&](Node* n) {
    fn(n);
    return true;
  });
}

struct FnRef {
  Node* fn = nullptr;
  ClassDef* owner = nullptr;
};

using AttrMap = std::unordered_map<std::string_view, std::vector<ExprNode*>>;

class Analyzer {
 public:
  Analyzer(Module* module, const Allowlist& allow) : mod_(module), allow_(allow) {}

  std::vector<RawFinding> Run() {
    Collect();
    if (kernels_.empty()) Add("syntax.no_triton_kernel", mod_);
    auto it = classes_.find("ModelNew");
    if (it == classes_.end()) {
      Add("syntax.no_modelnew", mod_);
    } else {
      CheckModelNew(it->second);
    }
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
  std::string Resolve(const Node* node, const Scope* scope = nullptr) const {
    if (auto* name = As<Name>(node)) {
      if (scope != nullptr) {
        auto it = scope->find(name->id);
        if (it != scope->end()) return it->second;
      }
      auto it = imports_.find(name->id);
      if (it != imports_.end()) return it->second;
      auto mv = module_values_.find(name->id);
      return mv != module_values_.end() ? mv->second : std::string();
    }
    if (auto* attr = As<Attribute>(node)) {
      std::string base = Resolve(attr->value, scope);
      if (base.empty()) return base;
      base += '.';
      base += attr->attr;
      return base;
    }
    if (auto* call = As<Call>(node)) {
      auto* fn = As<Name>(call->func);
      if (fn != nullptr && fn->id == "getattr" && call->args.size() >= 2) {
        if (const ConstantValue* s = StrConstant(call->args[1])) {
          std::string base = Resolve(call->args[0], scope);
          if (base.empty()) return base;
          base += '.';
          base += s->text;
          return base;
        }
      }
    }
    return {};
  }

  static void BindImport(Node* stmt, Scope* table) {
    if (auto* imp = As<Import>(stmt)) {
      for (Alias* a : imp->names) {
        if (!a->asname.empty()) {
          (*table)[a->asname] = std::string(a->name);
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
        (*table)[a->asname.empty() ? a->name : a->asname] = std::move(q);
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

  void Collect() {
    WalkAll(mod_, [&](Node* n) {
      if (n->kind == NodeKind::kImport || n->kind == NodeKind::kImportFrom)
        BindImport(n, &imports_);
    });
    for (StmtNode* stmt : mod_->body) {
      if (IsFunctionDef(stmt)) {
        FnView f = ViewFn(stmt);
        functions_[f.name] = stmt;
        if (IsKernel(stmt)) kernels_[f.name] = stmt;
      } else if (auto* cls = As<ClassDef>(stmt)) {
        classes_[cls->name] = cls;
      } else if (auto* assign = As<Assign>(stmt)) {
        if (assign->value != nullptr && assign->value->kind == NodeKind::kLambda) {
          for (ExprNode* t : assign->targets) {
            if (auto* name = As<Name>(t)) functions_[name->id] = assign->value;
          }
        }
        for (ExprNode* t : assign->targets) AddModuleVars(t);
      } else if (auto* ann = As<AnnAssign>(stmt)) {
        AddModuleVars(ann->target);
      }
    }
    for (int round = 0; round < 2; ++round) {  // aliases of aliases
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

  bool IsKernelNode(const Node* fn) const {
    for (const auto& [name, k] : kernels_) {
      if (k == fn) return true;
    }
    return false;
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
        if (name == nullptr || name->id == "Model") continue;
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
    if (name == nullptr || name->id == "Model") return nullptr;
    auto it = classes_.find(name->id);
    return it == classes_.end() ? nullptr : it->second;
  }

  // ---- ModelNew --------------------------------------------------------------------------------
  void CheckModelNew(ClassDef* cls) {
    bool is_module = false;
    bool model_defined = classes_.count("Model") > 0;
    for (ClassDef* c : ClassChain(cls)) {
      for (ExprNode* b : c->bases) {
        auto* name = As<Name>(b);
        if (name != nullptr && name->id == "Model" && model_defined) {
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
    if (model_defined) {
      for (ClassDef* c : ClassChain(cls)) {
        WalkAll(c, [&](Node* n) {
          auto* name = As<Name>(n);
          if (name == nullptr || name->id != "Model" || name->ctx != ExprContext::kLoad) return;
          for (ExprNode* b : c->bases) {
            if (b == n) return;
          }
          Add("func.reference_model", n, "ModelNew references Model");
        });
      }
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
        if (cname == "Model") continue;
        for (StmtNode* stmt : klass->body) {
          if (stmt->kind == NodeKind::kFunctionDef && ViewFn(stmt).name == attr->attr) {
            out.push_back({stmt, klass});
          }
        }
      }
    }
    return out;
  }

  // A kernel name, or a conditional choosing between kernels (k = fwd_kernel if a else bwd_kernel).
  bool NamesKernel(const Node* v) const {
    if (auto* name = As<Name>(v)) return kernels_.count(name->id) > 0;
    if (auto* e = As<IfExp>(v)) return NamesKernel(e->body) || NamesKernel(e->orelse);
    return false;
  }

  bool IsKernelRef(const Node* node, ClassDef* owner,
                   const std::unordered_set<std::string_view>& local_kernels) {
    if (auto* name = As<Name>(node)) {
      return kernels_.count(name->id) > 0 || local_kernels.count(name->id) > 0;
    }
    auto* attr = As<Attribute>(node);
    if (attr == nullptr || owner == nullptr) return false;
    auto* base = As<Name>(attr->value);
    if (base == nullptr || base->id != "self") return false;
    if (const auto* vals = SelfAttr(owner, attr->attr)) {
      for (ExprNode* val : *vals) {
        if (NamesKernel(val)) return true;
      }
    }
    return false;
  }

  void Reachable(ClassDef* model_new, Node* forward) {
    std::unordered_set<const Node*> seen;
    std::vector<FnRef> work{{forward, model_new}};
    std::vector<FnRef> fns;
    bool launched = false;
    while (!work.empty()) {
      FnRef ref = work.back();
      work.pop_back();
      if (seen.count(ref.fn) || IsKernelNode(ref.fn)) continue;
      seen.insert(ref.fn);
      fns.push_back(ref);
      const Scope& scope = LocalScope(ref.fn);
      std::unordered_set<std::string_view> local_kernels;
      WalkAll(ref.fn, [&](Node* n) {
        auto* assign = As<Assign>(n);
        if (assign == nullptr || assign->targets.size() != 1) return;
        auto* target = As<Name>(assign->targets[0]);
        if (target != nullptr && NamesKernel(assign->value)) local_kernels.insert(target->id);
      });
      WalkAll(ref.fn, [&](Node* n) {
        if (auto* call = As<Call>(n)) {
          if (auto* sub = As<Subscript>(call->func);
              sub != nullptr && IsKernelRef(sub->value, ref.owner, local_kernels)) {
            launched = true;
          }
        }
        if (IsLoadRef(n)) {
          for (const FnRef& t : CallableTargets(n, ref.owner, &scope)) {
            if (t.fn != ref.fn) work.push_back(t);
          }
        }
      });
    }
    if (!kernels_.empty() && !launched) Add("syntax.kernel_not_launched", forward);
    for (const FnRef& ref : fns) CheckReachableFn(ref.fn, ref.owner);
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
    // Members of an allowed class (torch.Size.numel) are allowed too.
    for (size_t end = q.rfind('.'); end != std::string_view::npos && end > 0;
         end = q.rfind('.', end - 1)) {
      std::string_view prefix = q.substr(0, end);
      size_t dot = prefix.rfind('.');
      std::string_view last = dot == std::string_view::npos ? prefix : prefix.substr(dot + 1);
      if (allow_.torch_functions.count(prefix) && last != "torch") return false;
    }
    return true;
  }

  void CheckReachableFn(Node* fn, ClassDef* owner) {
    const Scope& scope = LocalScope(fn);
    std::unordered_set<std::string_view> local_names;
    std::unordered_set<std::string_view> globals_declared;
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
      if (auto* b = As<BinOp>(n); b != nullptr && b->op == OperatorKind::kMatMult) {
        Compute(n, fn, "the @ operator");
      }
      if (auto* a = As<AugAssign>(n); a != nullptr && a->op == OperatorKind::kMatMult) {
        Compute(n, fn, "the @= operator");
      }
      if (auto* call = As<Call>(n)) CheckCall(call, fn, owner, scope);
      if (auto* assign = As<Assign>(n)) {
        for (ExprNode* t : assign->targets) CheckStoreTarget(t, fn, local_names, globals_declared);
      } else if (auto* aug = As<AugAssign>(n)) {
        CheckStoreTarget(aug->target, fn, local_names, globals_declared);
      } else if (auto* ann = As<AnnAssign>(n)) {
        CheckStoreTarget(ann->target, fn, local_names, globals_declared);
      } else if (auto* del = As<Delete>(n)) {
        for (ExprNode* t : del->targets) CheckStoreTarget(t, fn, local_names, globals_declared);
      }
    });
    // References (not calls) to banned torch functions, e.g. partial(torch.softmax, dim=1).
    bool model_defined = classes_.count("Model") > 0;
    auto refs = [&](Node* n, Node* parent) {
      if (!IsLoadRef(n)) return;
      if (auto* name = As<Name>(n); model_defined && name != nullptr && name->id == "Model") {
        Add("func.reference_model", n, "forward reaches Model");
      }
      if (parent != nullptr && parent->kind == NodeKind::kAttribute) return;
      if (auto* call = As<Call>(parent); call != nullptr && call->func == n) return;
      std::string q = Resolve(n, &scope);
      if (StartsWith(q, "torch.") && TorchBanned(q)) Compute(n, fn, q);
    };
    WalkWithParent(fn, nullptr, refs);
  }

  void CheckStoreTarget(Node* t, Node* fn, const std::unordered_set<std::string_view>& local_names,
                        const std::unordered_set<std::string_view>& globals_declared) {
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

  bool HasBannedPrefix(std::string_view q) const {
    for (const Prefix& p : kBannedPrefixes) {
      if (StartsWith(q, p.prefix)) return true;
    }
    return false;
  }

  void CheckCall(Call* call, Node* fn, ClassDef* owner, const Scope& scope) {
    ExprNode* func = call->func;
    std::string q = Resolve(func, &scope);
    if (!q.empty()) {
      if (StartsWith(q, "torch.") && TorchBanned(q) && !HasBannedPrefix(q)) {
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
            auto* tn = As<Name>(target);
            if (tn != nullptr && tn->id == "Model" && classes_.count("Model")) {
              Add("func.reference_model", call, "calls a Model instance");
            }
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

  bool RootIsTriton(const Node* node) const {
    while (auto* attr = As<Attribute>(node)) node = attr->value;
    auto* name = As<Name>(node);
    if (name == nullptr) return false;
    auto it = imports_.find(name->id);
    if (it == imports_.end()) return false;
    std::string_view q = it->second;
    return q == "triton" || StartsWith(q, "triton.");
  }

  bool ModuleAllowed(std::string_view q) const {
    size_t end = q.size();
    while (true) {
      if (allow_.modules.count(q.substr(0, end))) return true;
      size_t dot = q.rfind('.', end - 1);
      if (dot == std::string_view::npos || dot == 0) return false;
      end = dot;
    }
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
        // Fast path: Triton names (most references in kernel bodies) are allowed and never banned.
        if (RootIsTriton(node)) return;
        std::string q = Resolve(node);
        if (q.empty()) return;
        std::string_view rule = BannedRule(q);
        if (!rule.empty()) {
          Add(rule, node, q);
        } else if (!skip && !ModuleAllowed(q)) {
          Add("func.module_not_allowed", node, q);
        }
      }
    };
    WalkWithParent(mod_, nullptr, visit);
    // Imports of banned modules are reported even when unused.
    WalkAll(mod_, [&](Node* node) {
      std::vector<std::string> names;
      if (auto* imp = As<Import>(node)) {
        for (Alias* a : imp->names) names.emplace_back(a->name);
      } else if (auto* from = As<ImportFrom>(node)) {
        if (from->module.empty()) return;
        for (Alias* a : from->names)
          names.push_back(std::string(from->module) + "." + std::string(a->name));
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
    for (const auto& [name, fn] : kernels_) {
      if (ViewFn(fn).name != name) continue;  // an alias of another kernel
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

  Module* mod_;
  const Allowlist& allow_;
  Scope imports_;
  std::unordered_map<std::string_view, std::string> module_values_;
  std::unordered_set<std::string_view> module_vars_;
  std::unordered_map<std::string_view, Node*> functions_;
  std::unordered_map<std::string_view, ClassDef*> classes_;
  std::unordered_map<std::string_view, Node*> kernels_;
  std::unordered_set<const Node*> skip_nodes_;
  std::unordered_set<const Node*> on_path_try_;
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
