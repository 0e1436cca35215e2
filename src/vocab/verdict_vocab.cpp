#include "vocab/verdict_vocab.h"

#include <algorithm>
#include <iterator>

namespace tritonrl::vocab {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kInvalidSyntax:
      return "invalid_syntax";
    case Outcome::kInvalidFunctionality:
      return "invalid_functionality";
    case Outcome::kCompileError:
      return "compile_error";
    case Outcome::kRuntimeError:
      return "runtime_error";
    case Outcome::kTimeout:
      return "timeout";
    case Outcome::kResourceExhausted:
      return "resource_exhausted";
    case Outcome::kIncorrect:
      return "incorrect";
    case Outcome::kCorrect:
      return "correct";
  }
  return "runtime_error";  // unreachable: every enumerator is listed above
}

std::optional<Outcome> ParseOutcome(std::string_view name) {
  for (Outcome o : kAllOutcomes) {
    if (OutcomeName(o) == name) return o;
  }
  return std::nullopt;
}

namespace {

template <std::size_t N>
bool Contains(const std::string_view (&set)[N], std::string_view name) {
  return std::find(std::begin(set), std::end(set), name) != std::end(set);
}

template <std::size_t N>
std::vector<std::string> Owned(const std::string_view (&set)[N]) {
  return {std::begin(set), std::end(set)};
}

}  // namespace

bool VoidsSpeedup(std::string_view flag_name) {
  return Contains(kSpeedupVoidFlags, flag_name);
}
bool FailsStrict(std::string_view flag_name) {
  return Contains(kStrictFailFlags, flag_name);
}
std::vector<std::string> SpeedupVoidFlags() {
  return Owned(kSpeedupVoidFlags);
}
std::vector<std::string> StrictFailFlags() {
  return Owned(kStrictFailFlags);
}
std::vector<std::string> SpeedupLoadFlags() {
  return Owned(kSpeedupLoadFlags);
}

std::vector<std::string> RewardVoidFlags() {
  return Owned(kRewardVoidFlags);
}

}  // namespace tritonrl::vocab
