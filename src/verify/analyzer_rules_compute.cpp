// Torch compute: references and calls of torch functions outside the allowlist, tensor-method
// compute, nn layers called from reachable code, the @ operator, and .handle in a kernel body.
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_names.h"
#include "verify/analyzer_rules.h"
#include "verify/analyzer_tables.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;            // NOLINT: the AST vocabulary is used everywhere here
using namespace analyzer_tables;  // NOLINT: the tables are this file's vocabulary

// node sits in a branch of fn whose test reads a device attribute (x.is_cuda, x.device, ...).
bool InDeviceGuard(const Node* node, Node* fn) {
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
        if (auto* attr = As<Attribute>(n);
            attr != nullptr && Contains(kDeviceGuardAttrs, attr->attr)) {
          guard = true;
        }
        return !guard;
      });
      if (guard) return true;
    }
  }
  return false;
}

// Reports compute under `rule`, or as func.torch_fallback inside a device-guarded branch.
void Compute(Analysis& a, const Node* node, Node* fn, std::string detail,
             std::string_view rule = "func.torch_compute") {
  if (InDeviceGuard(node, fn)) {
    a.Add("func.torch_fallback", node, std::move(detail));
  } else {
    a.Add(rule, node, std::move(detail));
  }
}

// A value built from a torch.nn name outside the allowlist (an nn layer or its constructor call).
bool IsNnValue(const Analysis& a, ExprNode* val) {
  const Node* target = val;
  if (auto* c = As<Call>(val)) target = c->func;
  std::string tq = a.bind.Resolve(target);
  return StartsWith(tq, "torch.nn.") && !a.allow.torch_functions.count(tq);
}

// self.<attr>(...): an nn layer or the reference model held in self.<attr>.
void CheckSelfCall(Analysis& a, Call* call, Node* fn, ClassDef* owner, Identifier attr) {
  if (const auto* vals = a.look.SelfAttr(owner, attr)) {
    for (ExprNode* val : *vals) {
      const Node* target = val;
      if (auto* c = As<Call>(val)) target = c->func;
      if (IsNnValue(a, val))
        Compute(a, call, fn, "self." + std::string(attr), "func.nn_layer_call");
      if (a.bind.IsReferenceRef(target))
        a.Add("func.reference_model", call, "calls a Model instance");
    }
  }
}

// self.layer.forward(x) and self.layers[0](x) with an nn layer held in self.<attr>.
void CheckHeldLayerCall(Analysis& a, Call* call, Node* fn, ClassDef* owner) {
  ExprNode* func = call->func;
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
  if (self == nullptr || self->id != "self") return;
  if (const auto* vals = a.look.SelfAttr(owner, inner_attr->attr)) {
    for (ExprNode* val : *vals) {
      if (IsNnValue(a, val) && (subscript || forward_like)) {
        Compute(a, call, fn, "self." + std::string(inner_attr->attr), "func.nn_layer_call");
      }
    }
  }
}

void CheckCall(Analysis& a, Call* call, Node* fn, ClassDef* owner, const Scope& scope,
               bool kernel) {
  ExprNode* func = call->func;
  std::string q = a.bind.Resolve(func, &scope);
  if (!q.empty()) {
    if (StartsWith(q, "torch.") && TorchBanned(a.allow, q) && BannedRule(q).empty()) {
      std::string_view last = std::string_view(q).substr(q.rfind('.') + 1);
      if (StartsWith(q, "torch.nn.") && !StartsWith(q, "torch.nn.functional") && !last.empty() &&
          last[0] >= 'A' && last[0] <= 'Z') {
        Compute(a, call, fn, q, "func.nn_layer_call");
      } else {
        Compute(a, call, fn, q);
      }
    }
    return;
  }
  if (kernel) return;  // Triton tensors have methods named like torch's (x.to, x.sum)
  if (auto* attr = As<Attribute>(func)) {
    auto* self = As<Name>(attr->value);
    if (self != nullptr && self->id == "self") {
      CheckSelfCall(a, call, fn, owner, attr->attr);
      return;
    }
  }
  CheckHeldLayerCall(a, call, fn, owner);
  if (auto* attr = As<Attribute>(func)) {
    if (a.allow.tensor_compute_methods.count(attr->attr) &&
        a.look.CallableTargets(func, owner, &scope).empty()) {
      Compute(a, call, fn, "." + std::string(attr->attr) + "()");
    }
  } else if (auto [receiver, literal] = ConstGetattr(func);
             receiver != nullptr && a.allow.tensor_compute_methods.count(literal) &&
             a.bind.Resolve(receiver, &scope).empty()) {
    Compute(a, call, fn, "." + std::string(literal) + "()");
  }
}

// A tensor compute method taken as a value, not called here (key=out.apply_, partial(reduce,
// out.addmm_, ...), a dataclass default_factory): whoever calls it later, C or trusted code,
// runs the same computation as a call would, where the call monitor may not see it.
void CheckComputeMethodValue(Analysis& a, Node* n, Node* fn, ClassDef* owner, const Scope& scope) {
  const Node* receiver = nullptr;
  std::string_view method;
  if (auto* attr = As<Attribute>(n)) {
    receiver = attr->value;
    method = attr->attr;
  } else {
    std::tie(receiver, method) = ConstGetattr(n);
  }
  if (receiver == nullptr || !a.allow.tensor_compute_methods.count(method)) return;
  if (!a.bind.Resolve(receiver, &scope).empty()) return;  // a module's member: the name rules'
  // An attribute of the candidate's own objects (self.tile, ModelNew.Kernels.relu): its values
  // are read where they are assigned (held values, reachable code). Not one of a value held in
  // them (self.buf.map_ is a tensor's method).
  if (auto* name = As<Name>(receiver);
      name != nullptr && (name->id == "self" || name->id == "cls")) {
    return;
  }
  const Node* root = receiver;
  while (auto* attr = As<Attribute>(root)) root = attr->value;
  if (a.bind.LocalClass(root) != nullptr) return;
  if (!a.look.CallableTargets(n, owner, &scope).empty()) return;  // the file's own
  Compute(a, n, fn, "." + std::string(method) + " taken as a value");
}

}  // namespace

void CheckCompute(Analysis& a, Node* root, Node* fn, ClassDef* owner, const Scope& scope,
                  bool kernel, bool calls) {
  auto visit = [&](Node* n, Node* parent) {
    if (calls && !kernel) {
      if (auto* b = As<BinOp>(n); b != nullptr && b->op == OperatorKind::kMatMult) {
        Compute(a, n, fn, "the @ operator");
      }
      if (auto* aug = As<AugAssign>(n); aug != nullptr && aug->op == OperatorKind::kMatMult) {
        Compute(a, n, fn, "the @= operator");
      }
    }
    if (auto* call = As<Call>(n); call != nullptr && calls) {
      CheckCall(a, call, fn, owner, scope, kernel);
    }
    // Under the interpreter a Triton value's .handle holds the raw numpy data; compiled
    // kernels have no use for it.
    if (auto* attr = As<Attribute>(n); kernel && attr != nullptr && attr->attr == "handle") {
      a.Add("func.introspection", n, "interpreter internals (.handle) in a kernel body");
    }
    if (auto [receiver, literal] = ConstGetattr(n); kernel && literal == "handle") {
      a.Add("func.introspection", n, "interpreter internals (getattr .handle) in a kernel body");
    }
    if (!IsLoadRef(n)) return;
    if (parent != nullptr && parent->kind == NodeKind::kAttribute) return;
    if (auto* call = As<Call>(parent); call != nullptr && call->func == n) return;
    if (!kernel) CheckComputeMethodValue(a, n, fn, owner, scope);
    std::string q = a.bind.Resolve(n, &scope);
    if (StartsWith(q, "torch.") && TorchBanned(a.allow, q) && BannedRule(q).empty()) {
      Compute(a, n, fn, q);
    }
  };
  WalkWithParent(root, nullptr, visit);
}

}  // namespace tritonrl::verify::analyzer
