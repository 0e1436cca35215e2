#include "cli/command.h"

#include <algorithm>

namespace tritonrl::cli {
namespace {
std::vector<CommandSpec>& Registry() {
  static std::vector<CommandSpec> commands;
  return commands;
}
}  // namespace

bool RegisterCommand(CommandSpec spec) {
  Registry().push_back(std::move(spec));
  return true;
}

const std::vector<CommandSpec>& RegisteredCommands() {
  auto& r = Registry();
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return r;
}

}  // namespace tritonrl::cli
