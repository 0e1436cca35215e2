// The tritonrl command. Exit codes: 0 success, 1 the command's negative answer
// (invalid sample, syntax error, failed check), 2 usage or I/O error.
#include <cstdio>
#include <exception>
#include <map>

#include "cli/command.h"

int main(int argc, char** argv) {
  CLI::App app{"tritonrl: verify, evaluate and train LLM-written Triton kernels"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tritonrl 0.1.0");
  std::map<CLI::App*, tritonrl::cli::CommandAction> actions;
  for (const auto& spec : tritonrl::cli::RegisteredCommands()) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.help);
    actions[sub] = spec.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  for (auto& [sub, action] : actions) {
    if (sub->parsed()) {
      try {
        return action();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "tritonrl %s: error: %s\n", sub->get_name().c_str(), e.what());
        return 2;
      }
    }
  }
  return 2;
}
