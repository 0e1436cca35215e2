#include "verify/analyzer_lookup.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>

#include "verify/analyzer_ast.h"
#include "verify/subset_tables.h"

namespace tritonrl::verify::analyzer {

using namespace pyast;  // NOLINT: the AST vocabulary is used everywhere here

const Scope& Lookups::LocalScope(Node* fn) {
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
    std::string q = bind_.Resolve(assign->value, &scope);
    if (!q.empty()) scope[target->id] = std::move(q);
  });
  return scopes_.emplace(fn, std::move(scope)).first->second;
}

const std::vector<ClassDef*>& Lookups::ClassChain(ClassDef* cls) {
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
      if (name == nullptr || bind_.reference_names.count(name->id)) continue;
      auto it = bind_.classes.find(name->id);
      if (it != bind_.classes.end()) todo.push_back(it->second);
    }
  }
  return chains_.emplace(cls, std::move(chain)).first->second;
}

Node* Lookups::Method(ClassDef* cls, std::string_view name) {
  for (ClassDef* c : ClassChain(cls)) {
    for (StmtNode* stmt : c->body) {
      if (IsFunctionDef(stmt) && ViewFn(stmt).name == name) return stmt;
    }
  }
  return nullptr;
}

const Lookups::AttrMap& Lookups::SelfAttrs(ClassDef* cls) {
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

const std::vector<ExprNode*>* Lookups::SelfAttr(ClassDef* owner, std::string_view attr) {
  if (owner == nullptr) return nullptr;
  const AttrMap& attrs = SelfAttrs(owner);
  auto it = attrs.find(attr);
  return it == attrs.end() ? nullptr : &it->second;
}

void Lookups::AddMethodTargets(ClassDef* c, std::initializer_list<std::string_view> names,
                               std::vector<FnRef>* out) {
  for (std::string_view m : names) {
    if (Node* f = Method(c, m)) out->push_back({f, c});
  }
}

std::vector<FnRef> Lookups::CallableTargets(Node* node, ClassDef* owner, const Scope* scope) {
  std::vector<FnRef> out;
  if (auto* name = As<Name>(node)) {
    if (scope != nullptr && scope->count(name->id)) return out;
    auto f = bind_.functions.find(name->id);
    if (f != bind_.functions.end()) {
      out.push_back({f->second, nullptr});
    } else if (ClassDef* c = bind_.LocalClass(node)) {
      // Making or calling a class runs every special method a helper may define (a dataclass's
      // generated __init__ runs __post_init__; hack adv_linear_tanh_import_dataclass_post_init).
      for (std::string_view m : subset::kHelperDunders) AddMethodTargets(c, {m}, &out);
      AddMethodTargets(c, {"forward"}, &out);
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
        } else if (ClassDef* c = bind_.LocalClass(target)) {
          AddMethodTargets(c, {"__call__", "forward"}, &out);
        } else if (auto* tn = As<Name>(target)) {
          auto fit = bind_.functions.find(tn->id);
          if (fit != bind_.functions.end()) out.push_back({fit->second, nullptr});
        }
      }
    }
  } else if (ClassDef* c = bind_.LocalClass(v)) {
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
  } else if (bind_.Resolve(v, scope).empty()) {
    // obj.method on an unknown receiver: any local class method of that name.
    for (const auto& [cname, klass] : bind_.classes) {
      if (bind_.reference_names.count(cname)) continue;
      for (StmtNode* stmt : klass->body) {
        if (stmt->kind == NodeKind::kFunctionDef && ViewFn(stmt).name == attr->attr) {
          out.push_back({stmt, klass});
        }
      }
    }
  }
  return out;
}

}  // namespace tritonrl::verify::analyzer
