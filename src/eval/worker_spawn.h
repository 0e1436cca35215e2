// How a runner worker is started: its private folder (tmp/, home/, triton-cache/) and the spawn
// spec of a runner script with the scrubbed environment and the configured sandbox. Below the
// engine, the worker driver and the sandbox self-check, which all start workers this way.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "eval/process.h"
#include "eval/types.h"

namespace tritonrl::eval {

// A private worker folder under `parent` (with tmp/, home/ and triton-cache/).
Result<std::string> MakeWorkDir(const std::string& parent);

// How a runner script (python/tritonrl_runner/<script>) is spawned for the folder `dir`: the
// scrubbed environment, the scratch folders, the log, the configured sandbox.
SpawnSpec WorkerSpawnSpec(const EngineConfig& config, const std::string& dir,
                          const std::string& script, const std::vector<std::string>& args,
                          const std::string& log_name);

}  // namespace tritonrl::eval
