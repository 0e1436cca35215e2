#include "verify/analyzer_reach.h"

#include <utility>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_rules.h"
#include "verify/analyzer_tables.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;            // NOLINT: the AST vocabulary is used everywhere here
using namespace analyzer_tables;  // NOLINT: the tables are this file's vocabulary

// A value stored for later use (self attribute, hook argument, decorator argument): torch
// functions referenced in it are compute; lambdas and local functions in it are reachable.
void HeldValue(Analysis& a, Node* val, ClassDef* owner, std::vector<FnRef>* work) {
  if (!a.reach.held_seen.insert(val).second) return;
  CheckCompute(a, val, val, owner, kEmptyScope, /*kernel=*/false, /*calls=*/false);
  WalkAll(val, [&](Node* n) {
    if (n->kind == NodeKind::kLambda) {
      work->push_back({n, owner});
    } else if (IsLoadRef(n)) {
      for (const FnRef& t : a.look.CallableTargets(n, owner, nullptr)) work->push_back(t);
    }
  });
}

// A held value built by a call that is handed a kernel (self.launch = Launcher(kernel)).
void KernelsPassedIn(Analysis& a, Node* val, ClassDef* owner, LaunchFacts* facts) {
  WalkAll(val, [&](Node* n) {
    auto* call = As<Call>(n);
    if (call == nullptr) return;
    for (ExprNode* arg : call->args) {
      if (IsKernelValue(a.look, arg, owner, nullptr)) facts->kernel_passed = true;
    }
    for (Keyword* k : call->keywords) {
      if (IsKernelValue(a.look, k->value, owner, nullptr)) facts->kernel_passed = true;
    }
  });
}

// Plain Python functions a kernel body calls (under the interpreter they run as Python).
void KernelCallees(Analysis& a, Node* kernel, std::vector<FnRef>* work) {
  WalkAll(kernel, [&](Node* n) {
    auto* call = As<Call>(n);
    auto* name = call != nullptr ? As<Name>(call->func) : nullptr;
    if (name == nullptr) return;
    auto f = a.bind.functions.find(name->id);
    if (f != a.bind.functions.end() && !a.bind.IsKernelNode(f->second)) {
      work->push_back({f->second, nullptr});
    }
  });
}

// One import-time root: compute in it, and the lambdas and functions it refers to.
void ImportTimeRoot(Analysis& a, Node* n, ClassDef* owner, std::vector<FnRef>* work) {
  CheckCompute(a, n, n, owner, kEmptyScope, /*kernel=*/false, /*calls=*/true);
  WalkAll(n, [&](Node* sub) {
    if (sub->kind == NodeKind::kLambda) work->push_back({sub, owner});
    if (IsLoadRef(sub)) {
      for (const FnRef& t : a.look.CallableTargets(sub, owner, nullptr)) work->push_back(t);
    }
  });
}

// The import-time roots of a module or class body, in order: a def's decorators and defaults, a
// class's bases, keywords, decorators and body, every other statement; the main guard's `else`.
void ImportTimeBody(Analysis& a, Span<StmtNode*> stmts, ClassDef* owner, std::vector<FnRef>* work) {
  for (StmtNode* stmt : stmts) {
    if (a.bind.skip_nodes.count(stmt)) continue;
    if (IsFunctionDef(stmt)) {
      FnView f = ViewFn(stmt);
      for (ExprNode* d : f.decorators) ImportTimeRoot(a, d, owner, work);
      if (f.args != nullptr) {
        for (ExprNode* d : f.args->defaults) ImportTimeRoot(a, d, owner, work);
        for (ExprNode* d : f.args->kw_defaults) {
          if (d != nullptr) ImportTimeRoot(a, d, owner, work);
        }
      }
    } else if (auto* cls = As<ClassDef>(stmt)) {
      for (ExprNode* b : cls->bases) ImportTimeRoot(a, b, owner, work);
      for (Keyword* k : cls->keywords) ImportTimeRoot(a, k->value, owner, work);
      for (ExprNode* d : cls->decorator_list) ImportTimeRoot(a, d, owner, work);
      ImportTimeBody(a, cls->body, cls, work);
    } else if (IsMainGuard(stmt)) {
      ImportTimeBody(a, As<If>(stmt)->orelse, owner, work);
    } else {
      ImportTimeRoot(a, stmt, owner, work);
    }
  }
}

// Hooks handed to Triton anywhere: k.add_pre_run_hook(f), pre_hook=/post_hook=/do_bench=.
void LaunchHooks(Analysis& a, std::vector<FnRef>* work) {
  WalkAll(a.mod, [&](Node* n) {
    auto* call = As<Call>(n);
    if (call == nullptr || a.bind.skip_nodes.count(n)) return;
    auto* attr = As<Attribute>(call->func);
    if (attr != nullptr && attr->attr == "add_pre_run_hook") {
      for (ExprNode* arg : call->args) HeldValue(a, arg, nullptr, work);
    }
    for (Keyword* k : call->keywords) {
      if (Contains(kLaunchHookKeywords, k->arg)) HeldValue(a, k->value, nullptr, work);
    }
  });
}

}  // namespace

void Traverse(Analysis& a, std::vector<FnRef> work, LaunchFacts* facts) {
  while (!work.empty()) {
    FnRef ref = work.back();
    work.pop_back();
    if (a.reach.seen.count(ref.fn)) continue;
    a.reach.seen.insert(ref.fn);
    if (a.bind.IsKernelNode(ref.fn)) {
      KernelCallees(a, ref.fn, &work);
      continue;
    }
    a.reach.fns.push_back(ref);
    if (facts != nullptr) FindLaunches(a.look, ref.fn, ref.owner, facts);
    const Scope& scope = a.look.LocalScope(ref.fn);
    WalkAll(ref.fn, [&](Node* n) {
      if (!IsLoadRef(n)) return;
      for (const FnRef& t : a.look.CallableTargets(n, ref.owner, &scope)) {
        if (t.fn != ref.fn) work.push_back(t);
      }
      // self.<attr> read where <attr> is no method: the values held there.
      auto* attr = As<Attribute>(n);
      auto* base = attr != nullptr ? As<Name>(attr->value) : nullptr;
      if (base == nullptr || (base->id != "self" && base->id != "cls") || ref.owner == nullptr ||
          a.look.Method(ref.owner, attr->attr) != nullptr) {
        return;
      }
      if (const auto* vals = a.look.SelfAttr(ref.owner, attr->attr)) {
        for (ExprNode* val : *vals) {
          HeldValue(a, val, ref.owner, &work);
          if (facts != nullptr) KernelsPassedIn(a, val, ref.owner, facts);
        }
      }
    });
  }
}

void ReachFromImportTime(Analysis& a) {
  std::vector<FnRef> work;
  ImportTimeBody(a, a.mod->body, nullptr, &work);
  for (const auto& [name, kernel] : a.bind.kernel_defs) {
    CheckCompute(a, kernel, kernel, nullptr, a.look.LocalScope(kernel), /*kernel=*/true,
                 /*calls=*/true);
    KernelCallees(a, kernel, &work);
  }
  LaunchHooks(a, &work);
  Traverse(a, std::move(work), nullptr);
}

void CheckReachableCode(Analysis& a) {
  ReachFromImportTime(a);
  for (const FnRef& ref : a.reach.fns) CheckReachableFn(a, ref.fn, ref.owner);
}

}  // namespace tritonrl::verify::analyzer
