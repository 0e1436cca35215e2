// Python 3.12 abstract syntax tree, mirroring CPython's `ast` module: the same
// node kinds, the same field names and order, the same positions (lineno and
// end_lineno 1-based, col_offset and end_col_offset 0-based in UTF-8 bytes).
//
// Nodes are plain structs allocated in an Arena owned by the ParsedModule
// (parse.h); they stay valid as long as it lives. Every node starts with
// `kind` and `pos`. Downcast with As<T>(node), which returns nullptr on a kind
// mismatch. Walk children with ForEachChild or, for field names too, with
// VisitFields (both in field order, as CPython's ast.iter_child_nodes does).
//
// Representation choices:
// - Identifier is a string_view; an empty one means the optional field is
//   None (e.g. alias.asname, ExceptHandler.name, keyword.arg for `**kw`).
// - An optional child is a null pointer (FunctionDef.returns, Return.value).
//   Dict.keys holds nullptr for a `**mapping` entry, as CPython holds None.
// - Constant values carry their kind; ints are decimal text of any size.
// - str constants are UTF-8 text; a lone surrogate from an escape such as
//   "\ud800" is kept as its 3-byte generalised UTF-8 form.
// - type_comment fields and TypeIgnore are not represented: ast.parse without
//   type_comments=True never fills them.
#pragma once

#include <cstdint>
#include <string_view>

namespace tritonrl::pyast {

using Identifier = std::string_view;

// A read-only array of arena-owned elements.
template <typename T>
struct Span {
  T* data = nullptr;
  uint32_t count = 0;
  T* begin() const { return data; }
  T* end() const { return data + count; }
  uint32_t size() const { return count; }
  bool empty() const { return count == 0; }
  T& operator[](uint32_t i) const { return data[i]; }
};

struct Position {
  int32_t lineno = 0;
  int32_t col_offset = 0;  // UTF-8 bytes from the start of the line
  int32_t end_lineno = 0;
  int32_t end_col_offset = 0;
};

enum class ExprContext : uint8_t { kLoad, kStore, kDel };
enum class BoolOpKind : uint8_t { kAnd, kOr };
enum class OperatorKind : uint8_t {
  kAdd,
  kSub,
  kMult,
  kMatMult,
  kDiv,
  kMod,
  kPow,
  kLShift,
  kRShift,
  kBitOr,
  kBitXor,
  kBitAnd,
  kFloorDiv,
};
enum class UnaryOpKind : uint8_t { kInvert, kNot, kUAdd, kUSub };
enum class CmpOpKind : uint8_t { kEq, kNotEq, kLt, kLtE, kGt, kGtE, kIs, kIsNot, kIn, kNotIn };

// CPython's class names for the enums above ("Load", "Add", "NotIn", ...).
const char* OpName(ExprContext v);
const char* OpName(BoolOpKind v);
const char* OpName(OperatorKind v);
const char* OpName(UnaryOpKind v);
const char* OpName(CmpOpKind v);

enum class ConstantKind : uint8_t {
  kNone,
  kTrue,
  kFalse,
  kEllipsis,
  kInt,      // text: decimal digits (no sign; literals are never negative)
  kFloat,    // number
  kComplex,  // number: the imaginary part (literals are pure imaginary)
  kStr,      // text: UTF-8
  kBytes,    // text: raw bytes
};

struct ConstantValue {
  ConstantKind kind = ConstantKind::kNone;
  std::string_view text;
  double number = 0;
};

// Each node: PYAST_FIELDS_<Name>(F) lists its fields as F(type, name) in
// CPython's _fields order. PYAST_NODES(N) lists N(Name, Base, "python name").
#define PYAST_FIELDS_Module(F) F(Span<StmtNode*>, body)
#define PYAST_FIELDS_FunctionDef(F) \
  F(Identifier, name)               \
  F(Arguments*, args)               \
  F(Span<StmtNode*>, body)          \
  F(Span<ExprNode*>, decorator_list) F(ExprNode*, returns) F(Span<TypeParamNode*>, type_params)
#define PYAST_FIELDS_AsyncFunctionDef(F) PYAST_FIELDS_FunctionDef(F)
#define PYAST_FIELDS_ClassDef(F) \
  F(Identifier, name)            \
  F(Span<ExprNode*>, bases)      \
  F(Span<Keyword*>, keywords)    \
  F(Span<StmtNode*>, body) F(Span<ExprNode*>, decorator_list) F(Span<TypeParamNode*>, type_params)
#define PYAST_FIELDS_Return(F) F(ExprNode*, value)
#define PYAST_FIELDS_Delete(F) F(Span<ExprNode*>, targets)
#define PYAST_FIELDS_Assign(F) F(Span<ExprNode*>, targets) F(ExprNode*, value)
#define PYAST_FIELDS_TypeAlias(F) \
  F(ExprNode*, name) F(Span<TypeParamNode*>, type_params) F(ExprNode*, value)
#define PYAST_FIELDS_AugAssign(F) F(ExprNode*, target) F(OperatorKind, op) F(ExprNode*, value)
#define PYAST_FIELDS_AnnAssign(F) \
  F(ExprNode*, target) F(ExprNode*, annotation) F(ExprNode*, value) F(int, simple)
#define PYAST_FIELDS_For(F) \
  F(ExprNode*, target) F(ExprNode*, iter) F(Span<StmtNode*>, body) F(Span<StmtNode*>, orelse)
#define PYAST_FIELDS_AsyncFor(F) PYAST_FIELDS_For(F)
#define PYAST_FIELDS_While(F) F(ExprNode*, test) F(Span<StmtNode*>, body) F(Span<StmtNode*>, orelse)
#define PYAST_FIELDS_If(F) F(ExprNode*, test) F(Span<StmtNode*>, body) F(Span<StmtNode*>, orelse)
#define PYAST_FIELDS_With(F) F(Span<WithItem*>, items) F(Span<StmtNode*>, body)
#define PYAST_FIELDS_AsyncWith(F) PYAST_FIELDS_With(F)
#define PYAST_FIELDS_Match(F) F(ExprNode*, subject) F(Span<MatchCase*>, cases)
#define PYAST_FIELDS_Raise(F) F(ExprNode*, exc) F(ExprNode*, cause)
#define PYAST_FIELDS_Try(F) \
  F(Span<StmtNode*>, body)  \
  F(Span<ExceptHandler*>, handlers) F(Span<StmtNode*>, orelse) F(Span<StmtNode*>, finalbody)
#define PYAST_FIELDS_TryStar(F) PYAST_FIELDS_Try(F)
#define PYAST_FIELDS_Assert(F) F(ExprNode*, test) F(ExprNode*, msg)
#define PYAST_FIELDS_Import(F) F(Span<Alias*>, names)
#define PYAST_FIELDS_ImportFrom(F) F(Identifier, module) F(Span<Alias*>, names) F(int, level)
#define PYAST_FIELDS_Global(F) F(Span<Identifier>, names)
#define PYAST_FIELDS_Nonlocal(F) F(Span<Identifier>, names)
#define PYAST_FIELDS_Expr(F) F(ExprNode*, value)
#define PYAST_FIELDS_Pass(F)
#define PYAST_FIELDS_Break(F)
#define PYAST_FIELDS_Continue(F)

#define PYAST_FIELDS_BoolOp(F) F(BoolOpKind, op) F(Span<ExprNode*>, values)
#define PYAST_FIELDS_NamedExpr(F) F(ExprNode*, target) F(ExprNode*, value)
#define PYAST_FIELDS_BinOp(F) F(ExprNode*, left) F(OperatorKind, op) F(ExprNode*, right)
#define PYAST_FIELDS_UnaryOp(F) F(UnaryOpKind, op) F(ExprNode*, operand)
#define PYAST_FIELDS_Lambda(F) F(Arguments*, args) F(ExprNode*, body)
#define PYAST_FIELDS_IfExp(F) F(ExprNode*, test) F(ExprNode*, body) F(ExprNode*, orelse)
#define PYAST_FIELDS_Dict(F) F(Span<ExprNode*>, keys) F(Span<ExprNode*>, values)
#define PYAST_FIELDS_Set(F) F(Span<ExprNode*>, elts)
#define PYAST_FIELDS_ListComp(F) F(ExprNode*, elt) F(Span<Comprehension*>, generators)
#define PYAST_FIELDS_SetComp(F) F(ExprNode*, elt) F(Span<Comprehension*>, generators)
#define PYAST_FIELDS_DictComp(F) \
  F(ExprNode*, key) F(ExprNode*, value) F(Span<Comprehension*>, generators)
#define PYAST_FIELDS_GeneratorExp(F) F(ExprNode*, elt) F(Span<Comprehension*>, generators)
#define PYAST_FIELDS_Await(F) F(ExprNode*, value)
#define PYAST_FIELDS_Yield(F) F(ExprNode*, value)
#define PYAST_FIELDS_YieldFrom(F) F(ExprNode*, value)
#define PYAST_FIELDS_Compare(F) \
  F(ExprNode*, left) F(Span<CmpOpKind>, ops) F(Span<ExprNode*>, comparators)
#define PYAST_FIELDS_Call(F) F(ExprNode*, func) F(Span<ExprNode*>, args) F(Span<Keyword*>, keywords)
// conversion: -1 none, 's' 115, 'r' 114, 'a' 97. format_spec is a JoinedStr or null.
#define PYAST_FIELDS_FormattedValue(F) \
  F(ExprNode*, value) F(int, conversion) F(ExprNode*, format_spec)
#define PYAST_FIELDS_JoinedStr(F) F(Span<ExprNode*>, values)
// str_kind is CPython's Constant.kind ("u" for a u-prefixed string, else empty =
// None), renamed so it does not hide Node::kind.
#define PYAST_FIELDS_Constant(F) F(ConstantValue, value) F(Identifier, str_kind)
#define PYAST_FIELDS_Attribute(F) F(ExprNode*, value) F(Identifier, attr) F(ExprContext, ctx)
#define PYAST_FIELDS_Subscript(F) F(ExprNode*, value) F(ExprNode*, slice) F(ExprContext, ctx)
#define PYAST_FIELDS_Starred(F) F(ExprNode*, value) F(ExprContext, ctx)
#define PYAST_FIELDS_Name(F) F(Identifier, id) F(ExprContext, ctx)
#define PYAST_FIELDS_List(F) F(Span<ExprNode*>, elts) F(ExprContext, ctx)
#define PYAST_FIELDS_Tuple(F) F(Span<ExprNode*>, elts) F(ExprContext, ctx)
#define PYAST_FIELDS_Slice(F) F(ExprNode*, lower) F(ExprNode*, upper) F(ExprNode*, step)

#define PYAST_FIELDS_Comprehension(F) \
  F(ExprNode*, target) F(ExprNode*, iter) F(Span<ExprNode*>, ifs) F(int, is_async)
#define PYAST_FIELDS_ExceptHandler(F) \
  F(ExprNode*, type) F(Identifier, name) F(Span<StmtNode*>, body)
#define PYAST_FIELDS_Arguments(F) \
  F(Span<Arg*>, posonlyargs)      \
  F(Span<Arg*>, args)             \
  F(Arg*, vararg)                 \
  F(Span<Arg*>, kwonlyargs)       \
  F(Span<ExprNode*>, kw_defaults) F(Arg*, kwarg) F(Span<ExprNode*>, defaults)
#define PYAST_FIELDS_Arg(F) F(Identifier, arg) F(ExprNode*, annotation)
#define PYAST_FIELDS_Keyword(F) F(Identifier, arg) F(ExprNode*, value)
#define PYAST_FIELDS_Alias(F) F(Identifier, name) F(Identifier, asname)
#define PYAST_FIELDS_WithItem(F) F(ExprNode*, context_expr) F(ExprNode*, optional_vars)
#define PYAST_FIELDS_MatchCase(F) \
  F(PatternNode*, pattern) F(ExprNode*, guard) F(Span<StmtNode*>, body)

#define PYAST_FIELDS_MatchValue(F) F(ExprNode*, value)
#define PYAST_FIELDS_MatchSingleton(F) F(ConstantValue, value)
#define PYAST_FIELDS_MatchSequence(F) F(Span<PatternNode*>, patterns)
#define PYAST_FIELDS_MatchMapping(F) \
  F(Span<ExprNode*>, keys) F(Span<PatternNode*>, patterns) F(Identifier, rest)
#define PYAST_FIELDS_MatchClass(F) \
  F(ExprNode*, cls)                \
  F(Span<PatternNode*>, patterns) F(Span<Identifier>, kwd_attrs) F(Span<PatternNode*>, kwd_patterns)
#define PYAST_FIELDS_MatchStar(F) F(Identifier, name)
#define PYAST_FIELDS_MatchAs(F) F(PatternNode*, pattern) F(Identifier, name)
#define PYAST_FIELDS_MatchOr(F) F(Span<PatternNode*>, patterns)

#define PYAST_FIELDS_TypeVar(F) F(Identifier, name) F(ExprNode*, bound)
#define PYAST_FIELDS_ParamSpec(F) F(Identifier, name)
#define PYAST_FIELDS_TypeVarTuple(F) F(Identifier, name)

#define PYAST_NODES(N)                              \
  N(Module, Node, "Module")                         \
  N(FunctionDef, StmtNode, "FunctionDef")           \
  N(AsyncFunctionDef, StmtNode, "AsyncFunctionDef") \
  N(ClassDef, StmtNode, "ClassDef")                 \
  N(Return, StmtNode, "Return")                     \
  N(Delete, StmtNode, "Delete")                     \
  N(Assign, StmtNode, "Assign")                     \
  N(TypeAlias, StmtNode, "TypeAlias")               \
  N(AugAssign, StmtNode, "AugAssign")               \
  N(AnnAssign, StmtNode, "AnnAssign")               \
  N(For, StmtNode, "For")                           \
  N(AsyncFor, StmtNode, "AsyncFor")                 \
  N(While, StmtNode, "While")                       \
  N(If, StmtNode, "If")                             \
  N(With, StmtNode, "With")                         \
  N(AsyncWith, StmtNode, "AsyncWith")               \
  N(Match, StmtNode, "Match")                       \
  N(Raise, StmtNode, "Raise")                       \
  N(Try, StmtNode, "Try")                           \
  N(TryStar, StmtNode, "TryStar")                   \
  N(Assert, StmtNode, "Assert")                     \
  N(Import, StmtNode, "Import")                     \
  N(ImportFrom, StmtNode, "ImportFrom")             \
  N(Global, StmtNode, "Global")                     \
  N(Nonlocal, StmtNode, "Nonlocal")                 \
  N(Expr, StmtNode, "Expr")                         \
  N(Pass, StmtNode, "Pass")                         \
  N(Break, StmtNode, "Break")                       \
  N(Continue, StmtNode, "Continue")                 \
  N(BoolOp, ExprNode, "BoolOp")                     \
  N(NamedExpr, ExprNode, "NamedExpr")               \
  N(BinOp, ExprNode, "BinOp")                       \
  N(UnaryOp, ExprNode, "UnaryOp")                   \
  N(Lambda, ExprNode, "Lambda")                     \
  N(IfExp, ExprNode, "IfExp")                       \
  N(Dict, ExprNode, "Dict")                         \
  N(Set, ExprNode, "Set")                           \
  N(ListComp, ExprNode, "ListComp")                 \
  N(SetComp, ExprNode, "SetComp")                   \
  N(DictComp, ExprNode, "DictComp")                 \
  N(GeneratorExp, ExprNode, "GeneratorExp")         \
  N(Await, ExprNode, "Await")                       \
  N(Yield, ExprNode, "Yield")                       \
  N(YieldFrom, ExprNode, "YieldFrom")               \
  N(Compare, ExprNode, "Compare")                   \
  N(Call, ExprNode, "Call")                         \
  N(FormattedValue, ExprNode, "FormattedValue")     \
  N(JoinedStr, ExprNode, "JoinedStr")               \
  N(Constant, ExprNode, "Constant")                 \
  N(Attribute, ExprNode, "Attribute")               \
  N(Subscript, ExprNode, "Subscript")               \
  N(Starred, ExprNode, "Starred")                   \
  N(Name, ExprNode, "Name")                         \
  N(List, ExprNode, "List")                         \
  N(Tuple, ExprNode, "Tuple")                       \
  N(Slice, ExprNode, "Slice")                       \
  N(Comprehension, Node, "comprehension")           \
  N(ExceptHandler, Node, "ExceptHandler")           \
  N(Arguments, Node, "arguments")                   \
  N(Arg, Node, "arg")                               \
  N(Keyword, Node, "keyword")                       \
  N(Alias, Node, "alias")                           \
  N(WithItem, Node, "withitem")                     \
  N(MatchCase, Node, "match_case")                  \
  N(MatchValue, PatternNode, "MatchValue")          \
  N(MatchSingleton, PatternNode, "MatchSingleton")  \
  N(MatchSequence, PatternNode, "MatchSequence")    \
  N(MatchMapping, PatternNode, "MatchMapping")      \
  N(MatchClass, PatternNode, "MatchClass")          \
  N(MatchStar, PatternNode, "MatchStar")            \
  N(MatchAs, PatternNode, "MatchAs")                \
  N(MatchOr, PatternNode, "MatchOr")                \
  N(TypeVar, TypeParamNode, "TypeVar")              \
  N(ParamSpec, TypeParamNode, "ParamSpec")          \
  N(TypeVarTuple, TypeParamNode, "TypeVarTuple")

enum class NodeKind : uint8_t {
#define PYAST_KIND_ENUM(name, base, py) k##name,
  PYAST_NODES(PYAST_KIND_ENUM)
#undef PYAST_KIND_ENUM
};

// CPython's class name of a node kind ("Call", "arguments", "match_case").
const char* KindName(NodeKind kind);

struct Node {
  NodeKind kind;
  // Zero for the kinds CPython gives no position (Module, arguments,
  // comprehension, withitem, match_case).
  Position pos;
};
struct StmtNode : Node {};
struct ExprNode : Node {};
struct PatternNode : Node {};
struct TypeParamNode : Node {};

struct Module;
struct Arguments;
struct Comprehension;
struct ExceptHandler;
struct Arg;
struct Keyword;
struct Alias;
struct WithItem;
struct MatchCase;

#define PYAST_DECLARE_FIELD(type, field) type field{};
#define PYAST_DECLARE_NODE(name, base, py)               \
  struct name : base {                                   \
    static constexpr NodeKind kKind = NodeKind::k##name; \
    PYAST_FIELDS_##name(PYAST_DECLARE_FIELD)             \
  };
PYAST_NODES(PYAST_DECLARE_NODE)
#undef PYAST_DECLARE_NODE
#undef PYAST_DECLARE_FIELD

bool IsStmt(NodeKind kind);
bool IsExpr(NodeKind kind);
bool IsPattern(NodeKind kind);

template <typename T>
T* As(Node* node) {
  return node != nullptr && node->kind == T::kKind ? static_cast<T*>(node) : nullptr;
}
template <typename T>
const T* As(const Node* node) {
  return node != nullptr && node->kind == T::kKind ? static_cast<const T*>(node) : nullptr;
}

// Calls visitor(const char* field_name, FieldType& value) for every field of
// `node` in CPython's order. FieldType is one of the types in PYAST_FIELDS_*.
template <typename Visitor>
void VisitFields(Node* node, Visitor&& visitor) {
  switch (node->kind) {
#define PYAST_VISIT_FIELD(type, field) visitor(#field, n->field);
#define PYAST_VISIT_NODE(name, base, py)                 \
  case NodeKind::k##name: {                              \
    [[maybe_unused]] auto* n = static_cast<name*>(node); \
    PYAST_FIELDS_##name(PYAST_VISIT_FIELD) break;        \
  }
    PYAST_NODES(PYAST_VISIT_NODE)
#undef PYAST_VISIT_NODE
#undef PYAST_VISIT_FIELD
  }
}

namespace detail {
template <typename Fn>
struct ChildVisitor {
  Fn& fn;
  template <typename T>
  void operator()(const char*, T* child) {
    if (child != nullptr) fn(static_cast<Node*>(child));
  }
  template <typename T>
  void operator()(const char*, Span<T*>& children) {
    for (T* child : children) {
      if (child != nullptr) fn(static_cast<Node*>(child));
    }
  }
  template <typename T>
  void operator()(const char*, T&) {}
};
}  // namespace detail

// Calls fn(Node*) for each direct child node (non-null), in field order.
template <typename Fn>
void ForEachChild(Node* node, Fn&& fn) {
  detail::ChildVisitor<Fn> v{fn};
  VisitFields(node, v);
}

// Pre-order walk of the whole subtree; fn(Node*) returns false to skip a node's children.
template <typename Fn>
void Walk(Node* node, Fn&& fn) {
  if (node == nullptr || !fn(node)) return;
  ForEachChild(node, [&](Node* child) { Walk(child, fn); });
}

}  // namespace tritonrl::pyast
