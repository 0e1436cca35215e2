// Memoized questions about the bound names, asked over and over by reachability and the rules: a
// function's local scope (its imports and aliases of imported values), a class's chain of local
// bases, a method found along that chain, the values assigned to self.<attr> anywhere in the chain,
// and the functions a reference may call. One Lookups per analysis, used from one thread; the
// references it returns stay valid as long as it lives. Internal to the analyzer_*.cpp files.
#pragma once

#include <initializer_list>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pyast/ast.h"
#include "verify/analyzer_binding.h"

namespace tritonrl::verify::analyzer {

// A function-like node reached, with the class whose method it is (null for a module function).
struct FnRef {
  pyast::Node* fn = nullptr;
  pyast::ClassDef* owner = nullptr;
};

class Lookups {
 public:
  explicit Lookups(const Bindings& bind) : bind_(bind) {}
  Lookups(const Lookups&) = delete;
  Lookups& operator=(const Lookups&) = delete;

  const Bindings& bind() const { return bind_; }

  // Imports inside fn and single-target assignments of resolvable values, in walk order.
  const Scope& LocalScope(pyast::Node* fn);
  // cls first, then its local bases breadth-first (each once; the reference model not followed).
  const std::vector<pyast::ClassDef*>& ClassChain(pyast::ClassDef* cls);
  // The first def named `name` along the class chain, else null.
  pyast::Node* Method(pyast::ClassDef* cls, std::string_view name);
  // Values assigned to self.<attr> (or <attr> in a class body) along owner's chain; null if none
  // or if owner is null.
  const std::vector<pyast::ExprNode*>* SelfAttr(pyast::ClassDef* owner, std::string_view attr);
  // The functions a load reference may call: a module function, a local class's __init__,
  // __call__ and forward, self.method, a held callable, Cls.method, super().method, and for
  // obj.method on an unknown receiver any local class's method of that name.
  std::vector<FnRef> CallableTargets(pyast::Node* node, pyast::ClassDef* owner, const Scope* scope);

 private:
  using AttrMap = std::unordered_map<std::string_view, std::vector<pyast::ExprNode*>>;

  const AttrMap& SelfAttrs(pyast::ClassDef* cls);
  void AddMethodTargets(pyast::ClassDef* c, std::initializer_list<std::string_view> names,
                        std::vector<FnRef>* out);

  const Bindings& bind_;
  std::unordered_map<const pyast::Node*, Scope> scopes_;
  std::unordered_map<const pyast::ClassDef*, AttrMap> self_attrs_;
  std::unordered_map<const pyast::ClassDef*, std::vector<pyast::ClassDef*>> chains_;
};

}  // namespace tritonrl::verify::analyzer
