// Subcommand registry: each cmd_*.cpp registers a CommandSpec at static-init
// time. The setup function declares options on its CLI11 subcommand and returns
// the action to run if that subcommand is chosen; the action returns the exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace tritonrl::cli {

using CommandAction = std::function<int()>;
using CommandSetup = std::function<CommandAction(CLI::App& sub)>;

struct CommandSpec {
  std::string name;
  std::string help;
  CommandSetup setup;
};

// Returns true so it can initialise a namespace-scope bool in each cmd file.
bool RegisterCommand(CommandSpec spec);
const std::vector<CommandSpec>& RegisteredCommands();

}  // namespace tritonrl::cli
