// The rule catalogue: ids, messages and policy classes (docs/rules.md describes each rule).
#pragma once

#include <string_view>

namespace tritonrl::verify {

struct RuleInfo {
  std::string_view id;
  std::string_view message;
  bool strict_only;   // a warning under the standard policy
  bool warning_only;  // a warning under every policy
};

// Null for an unknown id.
const RuleInfo* FindRule(std::string_view id);
// All rules, in catalogue order; `count` receives their number.
const RuleInfo* AllRules(size_t* count);

}  // namespace tritonrl::verify
