// Where the Python runner (python/tritonrl_runner/) and its interpreter are: the
// binary may run from a build folder, an installed copy, or a carried $BIN on
// another machine. The one lookup of the eval engine and the task audit. Reads
// the environment and the file system only; any thread.
#pragma once

#include <string>

#include "base/status.h"

namespace tritonrl {

// The folder holding tritonrl_runner/<script> (worker.py for the engine, audit.py for the
// audit): `hint`, else $TRITONRL_RUNNER_DIR, else <executable dir>/python or
// <executable dir>/../python, else the source checkout's python/.
Result<std::string> LocateRunner(const std::string& hint, const std::string& script = "worker.py");
// An absolute interpreter path: `hint`, else $TRITONRL_PYTHON, else
// <runner dir>/../.venv/bin/python, else the source checkout's .venv/bin/python, else python3
// from PATH.
Result<std::string> LocateInterpreter(const std::string& hint, const std::string& runner_dir);

}  // namespace tritonrl
