// Text of a node exactly as CPython 3.12's ast.dump(node) prints it
// (annotate_fields=True, indent=None; include_attributes as given, which adds
// lineno, col_offset, end_lineno, end_col_offset to the nodes that have them).
#pragma once

#include <string>

#include "pyast/ast.h"

namespace tritonrl::pyast {

std::string Dump(const Node* node, bool include_attributes = false);
void DumpTo(const Node* node, std::string& out, bool include_attributes = false);

// Whether CPython gives this kind of node position attributes.
bool HasPosition(NodeKind kind);

// Python's repr() of the constant (str/bytes quoting, float shortest repr, ...).
void AppendConstantRepr(const ConstantValue& value, std::string& out);

}  // namespace tritonrl::pyast
