#include "task/literal.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace tritonrl::task {
namespace {

using pyast::As;
using pyast::OperatorKind;

std::optional<Json> Fail(std::string* why, std::string message) {
  if (why != nullptr && why->empty()) *why = std::move(message);
  return std::nullopt;
}

bool IsNumber(const Json& v) {
  return v.is_number() || v.is_boolean();
}
bool IsInt(const Json& v) {
  return v.is_number_integer() || v.is_boolean();
}
int64_t AsInt(const Json& v) {
  return v.is_boolean() ? (v.get<bool>() ? 1 : 0) : v.get<int64_t>();
}
double AsDouble(const Json& v) {
  return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
}

std::optional<Json> IntOp(OperatorKind op, int64_t a, int64_t b, std::string* why) {
  int64_t r = 0;
  switch (op) {
    case OperatorKind::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return Fail(why, "integer overflow");
      return Json(r);
    case OperatorKind::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return Fail(why, "integer overflow");
      return Json(r);
    case OperatorKind::kMult:
      if (__builtin_mul_overflow(a, b, &r)) return Fail(why, "integer overflow");
      return Json(r);
    case OperatorKind::kDiv:
      if (b == 0) return Fail(why, "division by zero");
      return Json(static_cast<double>(a) / static_cast<double>(b));
    case OperatorKind::kFloorDiv:
    case OperatorKind::kMod: {
      if (b == 0) return Fail(why, "division by zero");
      if (a == INT64_MIN && b == -1) return Fail(why, "integer overflow");
      int64_t q = a / b, m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) {  // Python floors toward negative infinity
        q -= 1;
        m += b;
      }
      return Json(op == OperatorKind::kFloorDiv ? q : m);
    }
    case OperatorKind::kPow: {
      if (b < 0) return Json(std::pow(static_cast<double>(a), static_cast<double>(b)));
      int64_t result = 1;
      for (int64_t i = 0; i < b; ++i) {
        if (__builtin_mul_overflow(result, a, &result)) return Fail(why, "integer overflow");
        if (result == 0 || result == 1) break;
      }
      return Json(result);
    }
    case OperatorKind::kLShift:
      if (b < 0 || b > 62 || a < 0 || a > (INT64_MAX >> b)) return Fail(why, "integer overflow");
      return Json(a << b);
    case OperatorKind::kRShift:
      if (b < 0) return Fail(why, "negative shift count");
      return Json(b > 63 ? (a < 0 ? -1 : 0) : (a >> b));
    case OperatorKind::kBitOr:
      return Json(a | b);
    case OperatorKind::kBitAnd:
      return Json(a & b);
    case OperatorKind::kBitXor:
      return Json(a ^ b);
    case OperatorKind::kMatMult:
      break;
  }
  return Fail(why, "unsupported operator on integers");
}

std::optional<Json> FloatOp(OperatorKind op, double a, double b, std::string* why) {
  switch (op) {
    case OperatorKind::kAdd:
      return Json(a + b);
    case OperatorKind::kSub:
      return Json(a - b);
    case OperatorKind::kMult:
      return Json(a * b);
    case OperatorKind::kDiv:
      if (b == 0) return Fail(why, "division by zero");
      return Json(a / b);
    case OperatorKind::kFloorDiv:
      if (b == 0) return Fail(why, "division by zero");
      return Json(std::floor(a / b));
    case OperatorKind::kMod: {
      if (b == 0) return Fail(why, "division by zero");
      double m = std::fmod(a, b);
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return Json(m);
    }
    case OperatorKind::kPow:
      return Json(std::pow(a, b));
    default:
      break;
  }
  return Fail(why, "unsupported operator on floats");
}

std::optional<Json> EvalConstant(const pyast::Constant& c, std::string* why) {
  using pyast::ConstantKind;
  switch (c.value.kind) {
    case ConstantKind::kNone:
      return Json(nullptr);
    case ConstantKind::kTrue:
      return Json(true);
    case ConstantKind::kFalse:
      return Json(false);
    case ConstantKind::kInt: {
      int64_t v = 0;
      auto text = c.value.text;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size()) {
        return Fail(why, "integer literal too large");
      }
      return Json(v);
    }
    case ConstantKind::kFloat:
      return Json(c.value.number);
    case ConstantKind::kStr:
      return Json(std::string(c.value.text));
    default:
      return Fail(why, "unsupported constant (complex, bytes or Ellipsis)");
  }
}

}  // namespace

std::optional<Json> EvalLiteral(const pyast::ExprNode* expr, const Json& names, std::string* why) {
  if (expr == nullptr) return Fail(why, "missing expression");
  if (const auto* c = As<pyast::Constant>(expr)) return EvalConstant(*c, why);
  if (const auto* n = As<pyast::Name>(expr)) {
    std::string key(n->id);
    if (names.is_object() && names.contains(key)) return names.at(key);
    return Fail(why, "name '" + key + "' is not a module-level constant defined earlier");
  }
  if (const auto* u = As<pyast::UnaryOp>(expr)) {
    auto v = EvalLiteral(u->operand, names, why);
    if (!v) return v;
    if (u->op == pyast::UnaryOpKind::kNot && v->is_boolean()) return Json(!v->get<bool>());
    if (!IsNumber(*v)) return Fail(why, "unary operator on a non-number");
    if (u->op == pyast::UnaryOpKind::kUAdd) return IsInt(*v) ? Json(AsInt(*v)) : *v;
    if (u->op == pyast::UnaryOpKind::kUSub) {
      if (IsInt(*v)) {
        int64_t x = AsInt(*v);
        if (x == INT64_MIN) return Fail(why, "integer overflow");
        return Json(-x);
      }
      return Json(-v->get<double>());
    }
    if (u->op == pyast::UnaryOpKind::kInvert && IsInt(*v)) return Json(~AsInt(*v));
    return Fail(why, "unsupported unary operator");
  }
  if (const auto* b = As<pyast::BinOp>(expr)) {
    auto l = EvalLiteral(b->left, names, why);
    if (!l) return l;
    auto r = EvalLiteral(b->right, names, why);
    if (!r) return r;
    if (l->is_string() && r->is_string() && b->op == OperatorKind::kAdd) {
      return Json(l->get<std::string>() + r->get<std::string>());
    }
    if (!IsNumber(*l) || !IsNumber(*r)) return Fail(why, "arithmetic on a non-number");
    if (IsInt(*l) && IsInt(*r)) return IntOp(b->op, AsInt(*l), AsInt(*r), why);
    return FloatOp(b->op, AsDouble(*l), AsDouble(*r), why);
  }
  if (As<pyast::List>(expr) != nullptr || As<pyast::Tuple>(expr) != nullptr) {
    const auto& elts =
        As<pyast::List>(expr) ? As<pyast::List>(expr)->elts : As<pyast::Tuple>(expr)->elts;
    Json out = Json::array();
    for (const pyast::ExprNode* e : elts) {
      auto v = EvalLiteral(e, names, why);
      if (!v) return v;
      out.push_back(std::move(*v));
    }
    return out;
  }
  if (const auto* d = As<pyast::Dict>(expr)) {
    Json out = Json::object();
    for (uint32_t i = 0; i < d->keys.size(); ++i) {
      if (d->keys[i] == nullptr) return Fail(why, "'**' in a dict literal");
      auto k = EvalLiteral(d->keys[i], names, why);
      if (!k) return k;
      if (!k->is_string()) return Fail(why, "dict keys must be strings");
      auto v = EvalLiteral(d->values[i], names, why);
      if (!v) return v;
      out[k->get<std::string>()] = std::move(*v);
    }
    return out;
  }
  return Fail(why,
              std::string("a ") + pyast::KindName(expr->kind) + " expression is not a literal");
}

}  // namespace tritonrl::task
