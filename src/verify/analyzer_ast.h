// The syntax shapes the analyzer reads, as pure functions of the tree: tests on dotted names,
// function-like nodes seen alike, constant getattr, load references, the main guard, and walks that
// hand each node its parent or the path down to it. Internal to the analyzer_*.cpp files; no state.
#pragma once

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "pyast/ast.h"

namespace tritonrl::verify::analyzer {

template <typename Range>
bool Contains(const Range& range, std::string_view s) {
  return std::find(std::begin(range), std::end(range), s) != std::end(range);
}

inline bool StartsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
inline bool IsDunder(std::string_view s) {
  return s.size() > 4 && StartsWith(s, "__") && s.substr(s.size() - 2) == "__";
}
// q is root or below it (torch.nn is rooted at torch, torchvision is not).
inline bool RootedAt(std::string_view q, std::string_view root) {
  return q == root || (StartsWith(q, root) && q.size() > root.size() && q[root.size()] == '.');
}

// A function-like node: FunctionDef, AsyncFunctionDef or Lambda.
struct FnView {
  pyast::Identifier name;
  pyast::Span<pyast::ExprNode*> decorators;
  pyast::Span<pyast::StmtNode*> body;
  pyast::Arguments* args = nullptr;
};

inline bool IsFunctionDef(const pyast::Node* n) {
  return n != nullptr && (n->kind == pyast::NodeKind::kFunctionDef ||
                          n->kind == pyast::NodeKind::kAsyncFunctionDef);
}

inline FnView ViewFn(pyast::Node* n) {
  if (auto* f = pyast::As<pyast::FunctionDef>(n)) {
    return {f->name, f->decorator_list, f->body, f->args};
  }
  if (auto* f = pyast::As<pyast::AsyncFunctionDef>(n)) {
    return {f->name, f->decorator_list, f->body, f->args};
  }
  if (auto* f = pyast::As<pyast::Lambda>(n)) return {{}, {}, {}, f->args};
  return {};
}

inline const pyast::ConstantValue* StrConstant(const pyast::Node* n) {
  auto* c = pyast::As<pyast::Constant>(n);
  return c != nullptr && c->value.kind == pyast::ConstantKind::kStr ? &c->value : nullptr;
}

// getattr(obj, "name") with a constant name: the receiver and the name, else {nullptr, ""}.
inline std::pair<const pyast::Node*, std::string_view> ConstGetattr(const pyast::Node* n) {
  auto* call = pyast::As<pyast::Call>(n);
  if (call == nullptr || call->args.size() < 2) return {nullptr, {}};
  auto* fn = pyast::As<pyast::Name>(call->func);
  if (fn == nullptr || fn->id != "getattr") return {nullptr, {}};
  const pyast::ConstantValue* s = StrConstant(call->args[1]);
  if (s == nullptr) return {nullptr, {}};
  return {call->args[0], s->text};
}

// A name, attribute or constant getattr that reads a value.
inline bool IsLoadRef(const pyast::Node* n) {
  if (auto* name = pyast::As<pyast::Name>(n)) return name->ctx == pyast::ExprContext::kLoad;
  if (auto* attr = pyast::As<pyast::Attribute>(n)) return attr->ctx == pyast::ExprContext::kLoad;
  return ConstGetattr(n).first != nullptr;
}

// `if __name__ == "__main__":` (never runs when the evaluator imports the file).
inline bool IsMainGuard(const pyast::Node* n) {
  auto* s = pyast::As<pyast::If>(n);
  auto* cmp = s != nullptr ? pyast::As<pyast::Compare>(s->test) : nullptr;
  if (cmp == nullptr || cmp->comparators.size() != 1) return false;
  auto* left = pyast::As<pyast::Name>(cmp->left);
  const pyast::ConstantValue* right = StrConstant(cmp->comparators[0]);
  return left != nullptr && left->id == "__name__" && right != nullptr && right->text == "__main__";
}

// Pre-order walk over every node below root (root included).
template <typename Fn>
void WalkAll(pyast::Node* root, Fn&& fn) {
  pyast::Walk(root, [&](pyast::Node* n) {
    fn(n);
    return true;
  });
}

// Pre-order walk that also hands each node its parent (no parent table to build).
template <typename Fn>
void WalkWithParent(pyast::Node* n, pyast::Node* parent, Fn& fn) {
  fn(n, parent);
  pyast::ForEachChild(n, [&](pyast::Node* child) { WalkWithParent(child, n, fn); });
}

// The chain of nodes from root down to target (inclusive); false if target is not below root.
inline bool PathTo(pyast::Node* root, const pyast::Node* target, std::vector<pyast::Node*>* path) {
  path->push_back(root);
  if (root == target) return true;
  bool found = false;
  pyast::ForEachChild(root, [&](pyast::Node* child) {
    if (!found) found = PathTo(child, target, path);
  });
  if (!found) path->pop_back();
  return found;
}

// Every parameter name of a function, in order (positional-only, positional, keyword-only, *, **).
template <typename Fn>
void ForEachParam(pyast::Arguments* a, Fn&& fn) {
  if (a == nullptr) return;
  for (pyast::Arg* x : a->posonlyargs) fn(x->arg);
  for (pyast::Arg* x : a->args) fn(x->arg);
  for (pyast::Arg* x : a->kwonlyargs) fn(x->arg);
  if (a->vararg != nullptr) fn(a->vararg->arg);
  if (a->kwarg != nullptr) fn(a->kwarg->arg);
}

}  // namespace tritonrl::verify::analyzer
