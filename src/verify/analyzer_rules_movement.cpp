// Data movement that is the whole answer: forward returning a materialised copy of an input
// (x.t().contiguous() for a transpose task) or a buffer filled by copy_ from an input, with no
// kernel ever writing it: torch did the work.
#include <string_view>
#include <unordered_map>
#include <vector>

#include "verify/analyzer_ast.h"
#include "verify/analyzer_rules.h"
#include "verify/analyzer_tables.h"

namespace tritonrl::verify::analyzer {
namespace {

using namespace pyast;            // NOLINT: the AST vocabulary is used everywhere here
using namespace analyzer_tables;  // NOLINT: the tables are this file's vocabulary

// The name under a chain of tensor-method calls and subscripts (null if the chain has anything
// else); `materializes` is set when a link copies its receiver.
const Name* ChainRoot(const Allowlist& allow, const Node* e, bool* materializes) {
  while (true) {
    if (auto* call = As<Call>(e)) {
      auto* attr = As<Attribute>(call->func);
      if (attr == nullptr || !allow.tensor_methods.count(attr->attr)) return nullptr;
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

// What forward's body says about its values: the returns, the assignments and copy_ calls that
// fill each name, and the names handed to a call other than a tensor method.
struct ForwardFlow {
  NameSetView fed;  // names handed to a call as arguments (kernels, helpers, allocators)
  std::unordered_map<std::string_view, std::vector<const Node*>> sources;
  std::vector<const Return*> returns;
};

ForwardFlow ReadFlow(const Allowlist& allow, Node* forward) {
  ForwardFlow flow;
  WalkAll(forward, [&](Node* n) {
    if (auto* r = As<Return>(n); r != nullptr && r->value != nullptr) flow.returns.push_back(r);
    if (auto* assign = As<Assign>(n); assign != nullptr && assign->targets.size() == 1) {
      if (auto* t = As<Name>(assign->targets[0])) flow.sources[t->id].push_back(assign->value);
    }
    auto* call = As<Call>(n);
    if (call == nullptr) return;
    auto* attr = As<Attribute>(call->func);
    if (attr != nullptr && attr->attr == "copy_" && !call->args.empty()) {
      if (auto* recv = As<Name>(attr->value)) flow.sources[recv->id].push_back(call);
    }
    if (attr != nullptr && allow.tensor_methods.count(attr->attr)) return;
    auto mark = [&](Node* arg) {
      WalkAll(arg, [&](Node* x) {
        if (auto* name = As<Name>(x)) flow.fed.insert(name->id);
      });
    };
    for (ExprNode* arg : call->args) mark(arg);
    for (Keyword* k : call->keywords) mark(k->value);
  });
  return flow;
}

}  // namespace

void CheckMovementAnswer(Analysis& a, Node* forward) {
  NameSetView params;
  ForEachParam(ViewFn(forward).args, [&](Identifier p) {
    if (p != "self") params.insert(p);
  });
  ForwardFlow flow = ReadFlow(a.allow, forward);
  auto from_input = [&](const Node* v, bool need_copy) {
    bool copies = false;
    const Name* root = ChainRoot(a.allow, v, &copies);
    return root != nullptr && params.count(root->id) && (copies || !need_copy);
  };
  for (const Return* r : flow.returns) {
    bool copies = false;
    const Name* root = ChainRoot(a.allow, r->value, &copies);
    if (root == nullptr) continue;
    if (params.count(root->id)) {
      if (copies) a.Add("func.torch_compute", r, "data movement of an input is the output");
      continue;
    }
    if (flow.fed.count(root->id)) continue;
    auto it = flow.sources.find(root->id);
    if (it == flow.sources.end()) continue;
    for (const Node* src : it->second) {
      auto* call = As<Call>(src);
      auto* attr = call != nullptr ? As<Attribute>(call->func) : nullptr;
      bool copy_from_input = attr != nullptr && attr->attr == "copy_" &&
                             from_input(call->args[0], /*need_copy=*/false);
      if (copy_from_input || from_input(src, /*need_copy=*/true)) {
        a.Add("func.torch_compute", src, "data movement of an input is the output");
      }
    }
  }
}

}  // namespace tritonrl::verify::analyzer
