// Literal evaluation of module-level Python expressions, the subset
// ast.literal_eval accepts plus arithmetic on numbers and names bound earlier
// in the module (`N = 2048 * 2`, `dim = batch_size * 4`). Values map to JSON:
// int -> integer, float -> number, str, bool, None -> null, list/tuple -> array,
// dict with str keys -> object (file order kept).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pyast/ast.h"

namespace tritonrl::task {

using Json = nlohmann::ordered_json;

// The value of `expr`, or nullopt with *why set ("a call is not a literal", ...).
// `names` holds the module constants bound so far (an object).
std::optional<Json> EvalLiteral(const pyast::ExprNode* expr, const Json& names, std::string* why);

}  // namespace tritonrl::task
