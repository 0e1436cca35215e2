// ModelNew: a Triton kernel exists, ModelNew is an nn.Module with a forward that launches one, and
// neither it nor its bases use the reference model.
#include <string>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_reach.h"
#include "verify/analyzer_rules.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;  // NOLINT: the AST vocabulary is used everywhere here

// ModelNew or one of its bases subclasses the reference model (reported) or nn.Module.
bool IsModuleClass(Analysis& a, ClassDef* cls) {
  bool is_module = false;
  for (ClassDef* c : a.look.ClassChain(cls)) {
    for (ExprNode* b : c->bases) {
      if (a.bind.IsReferenceRef(b)) {
        a.Add("func.reference_model", b, "ModelNew subclasses Model");
        is_module = true;
      } else {
        std::string q = a.bind.Resolve(b);
        if (q == "torch.nn.Module" || q == "torch.nn.modules.module.Module") is_module = true;
      }
    }
  }
  return is_module;
}

// The reference model named anywhere in the bodies of ModelNew's class chain (bases aside).
void CheckReferenceInClass(Analysis& a, ClassDef* cls) {
  for (ClassDef* c : a.look.ClassChain(cls)) {
    auto visit = [&](Node* n, Node*) {
      for (ExprNode* b : c->bases) {
        if (b == n) return;
      }
      if (!a.bind.IsReferenceRef(n)) return;
      a.Add("func.reference_model", n, "ModelNew references Model");
    };
    for (StmtNode* stmt : c->body) WalkWithParent(stmt, nullptr, visit);
  }
}

// Everything forward reaches, and whether it launches a kernel of the file.
void CheckLaunched(Analysis& a, ClassDef* model_new, Node* forward) {
  LaunchFacts facts;
  Traverse(a, {{forward, model_new}}, &facts);
  bool launched = facts.direct || (facts.through_param && facts.kernel_passed);
  if (!a.bind.kernel_nodes.empty() && !launched) a.Add("syntax.kernel_not_launched", forward);
}

}  // namespace

void CheckModelNew(Analysis& a) {
  if (a.bind.kernel_nodes.empty()) a.Add("syntax.no_triton_kernel", a.mod);
  auto it = a.bind.classes.find("ModelNew");
  if (it == a.bind.classes.end()) {
    a.Add("syntax.no_modelnew", a.mod);
    return;
  }
  ClassDef* cls = it->second;
  if (!IsModuleClass(a, cls)) a.Add("syntax.modelnew_not_module", cls);
  Node* forward = a.look.Method(cls, "forward");
  if (forward == nullptr) {
    a.Add("syntax.no_forward", cls);
    return;
  }
  CheckReferenceInClass(a, cls);
  CheckLaunched(a, cls, forward);
  CheckMovementAnswer(a, forward);
}

}  // namespace tritonrl::verify::analyzer
