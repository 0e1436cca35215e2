// Where the runner and its interpreter are: the binary may run from a build
// folder, an installed copy, or a carried $BIN on another machine.
#pragma once

#include <string>

#include "base/status.h"

namespace tritonrl::eval {

// The folder holding tritonrl_runner/worker.py: `hint`, else $TRITONRL_RUNNER_DIR,
// else <executable dir>/python or <executable dir>/../python, else the source
// checkout's python/.
Result<std::string> LocateRunner(const std::string& hint);
// An absolute interpreter path: `hint`, else $TRITONRL_PYTHON, else
// <runner dir>/../.venv/bin/python, else python3 from PATH.
Result<std::string> LocateInterpreter(const std::string& hint, const std::string& runner_dir);

}  // namespace tritonrl::eval
