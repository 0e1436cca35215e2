#include "pyast/ast.h"

namespace tritonrl::pyast {

const char* OpName(ExprContext v) {
  static const char* const k[] = {"Load", "Store", "Del"};
  return k[static_cast<int>(v)];
}
const char* OpName(BoolOpKind v) {
  return v == BoolOpKind::kAnd ? "And" : "Or";
}
const char* OpName(OperatorKind v) {
  static const char* const k[] = {"Add",    "Sub",    "Mult",    "MatMult", "Div",
                                  "Mod",    "Pow",    "LShift",  "RShift",  "BitOr",
                                  "BitXor", "BitAnd", "FloorDiv"};
  return k[static_cast<int>(v)];
}
const char* OpName(UnaryOpKind v) {
  static const char* const k[] = {"Invert", "Not", "UAdd", "USub"};
  return k[static_cast<int>(v)];
}
const char* OpName(CmpOpKind v) {
  static const char* const k[] = {"Eq",  "NotEq", "Lt",    "LtE", "Gt",
                                  "GtE", "Is",    "IsNot", "In",  "NotIn"};
  return k[static_cast<int>(v)];
}

const char* KindName(NodeKind kind) {
  static const char* const k[] = {
#define PYAST_KIND_NAME(name, base, py) py,
      PYAST_NODES(PYAST_KIND_NAME)
#undef PYAST_KIND_NAME
  };
  return k[static_cast<int>(kind)];
}

bool IsStmt(NodeKind kind) {
  return kind >= NodeKind::kFunctionDef && kind <= NodeKind::kContinue;
}
bool IsExpr(NodeKind kind) {
  return kind >= NodeKind::kBoolOp && kind <= NodeKind::kSlice;
}
bool IsPattern(NodeKind kind) {
  return kind >= NodeKind::kMatchValue && kind <= NodeKind::kMatchOr;
}

}  // namespace tritonrl::pyast
