// Text of a node exactly as CPython 3.12's ast.dump(node) prints it (default
// arguments: annotate_fields=True, include_attributes=False, indent=None).
#pragma once

#include <string>

#include "pyast/ast.h"

namespace tritonrl::pyast {

std::string Dump(const Node* node);
void DumpTo(const Node* node, std::string& out);

// Python's repr() of the constant (str/bytes quoting, float shortest repr, ...).
void AppendConstantRepr(const ConstantValue& value, std::string& out);

}  // namespace tritonrl::pyast
