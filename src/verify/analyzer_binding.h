// Name binding: what each name of the file denotes. BindModule reads the module once and fills
// Bindings (imports, module-level functions, classes and values, kernels under every name, the
// reference model under every name, the reference copies to skip); Resolve turns a name,
// attribute chain or constant getattr into the qualified value it denotes, re-exports folded.
// Bindings is built once per analysis and only read afterwards; it points into the module's tree,
// which must outlive it. Internal to the analyzer_*.cpp files.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pyast/ast.h"

namespace tritonrl::verify::analyzer {

using Scope = std::unordered_map<std::string_view, std::string>;
using NameSetView = std::unordered_set<std::string_view>;

inline const Scope kEmptyScope{};

// base.attr, where a re-exported module is itself (kReexports).
std::string Step(std::string base, std::string_view attr);
// A dotted import path with every re-export folded (from triton.runtime.jit import threading).
std::string Canonical(std::string_view dotted);
// Binds the names an import or from-import statement introduces into `table`.
void BindImport(pyast::Node* stmt, Scope* table);

struct Bindings {
  Scope imports;
  std::unordered_map<std::string_view, std::string> module_values;  // aliases of imported values
  std::unordered_map<std::string_view, std::vector<pyast::ExprNode*>> module_assigns;
  NameSetView module_vars;      // every name a module-level assignment binds
  NameSetView bound_names;      // every name bound anywhere in the file
  NameSetView reference_names;  // the reference model's names (Model, aliases, imports of it)
  std::unordered_map<std::string_view, pyast::Node*> functions;    // module-level defs and lambdas
  std::unordered_map<std::string_view, pyast::ClassDef*> classes;  // module-level classes
  // Names bound to kernels, nested defs included.
  std::unordered_map<std::string_view, pyast::Node*> kernels;
  NameSetView file_class_names;  // every class the file defines
  std::unordered_set<const pyast::Node*> kernel_nodes;
  // Each kernel function once, in the order found.
  std::vector<std::pair<pyast::Identifier, pyast::Node*>> kernel_defs;
  std::unordered_set<const pyast::Node*> skip_nodes;  // the reference copies (kReferenceCopies)

  // The qualified value a name, attribute chain or constant getattr denotes, re-exports folded;
  // empty when it is not rooted at an import (locals, parameters, literals).
  std::string Resolve(const pyast::Node* node, const Scope* scope = nullptr) const;
  // The function a triton.jit(fn) / triton.autotune(...)(triton.jit(fn)) call turns into a kernel.
  pyast::Node* KernelFromCall(const pyast::Node* v) const;
  // A def decorated with a Triton decorator (kTritonDecorators).
  bool IsKernelDef(pyast::Node* fn) const;
  bool IsKernelNode(const pyast::Node* fn) const { return kernel_nodes.count(fn) > 0; }
  // The reference model under any name: Model, an alias of it, `from task import Model as M`, or
  // task_module.Model.
  bool IsReferenceRef(const pyast::Node* n, const Scope* scope = nullptr) const;
  // A module-level class of the file named by `n` (not the reference model), else null.
  pyast::ClassDef* LocalClass(const pyast::Node* n) const;
};

// Fills `out` (empty on entry) from the module. Rules iterate some of these maps, so the order of
// findings follows the order in which this function inserts into them.
void BindModule(pyast::Module* mod, Bindings* out);

}  // namespace tritonrl::verify::analyzer
