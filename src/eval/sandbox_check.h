// Before a run: does the device start inside the sandbox on this machine?
//
// Some platforms refuse a sandbox feature in a way that only shows when the
// device initialises (a driver that fails inside a namespace or under a filter).
// The engine then runs anyway with the strongest sandbox under which the probe
// (python/tritonrl_runner/sandbox_probe.py: a CUDA context and an allocation
// through the driver API) passes, and every verdict records the level reached.
#pragma once

#include <linux/filter.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"
#include "eval/types.h"
#include "eval/process.h"

namespace tritonrl::eval {

// The sandbox features a probe may switch off, strongest last (the order in
// which ChooseSandbox gives them up): private_proc, netns, rofs (read-only
// filesystem view), rlimits, pidns, caps, seccomp. "rlimits" means the memory rlimits (address
// space, data).
const std::vector<std::string>& SandboxFeatureNames();

// Switches the named features off ("pidns,seccomp"); an unknown name is an error.
Status DisableSandboxFeatures(SandboxOptions& options, const std::string& comma_list);

struct SandboxProbe {
  std::string dropped;  // comma list of the features switched off; empty: none
  bool ok = false;
  std::string detail;  // "ok 1 device(s)" or the failure (the probe's last output lines)
  SandboxReport report;
  double ms = 0;
};

// One probe run under `options` with the worker's environment.
SandboxProbe RunSandboxProbe(const EngineConfig& config, const SandboxOptions& options,
                             const std::string& dropped);

struct SandboxChoice {
  SandboxOptions options;
  std::vector<SandboxProbe> tried;  // in order; the last one passed unless none did
  bool ok = false;  // some setting passed (the first tried, when nothing is dropped)
};

// The configured sandbox if its probe passes; else the first setting that
// passes with one feature off, then two, in the order of SandboxFeatureNames;
// else no sandbox at all (dropped "all"). When the probe fails even without a
// sandbox, the device itself is broken: `ok` is false and `options` is the
// configured sandbox, so samples fail visibly rather than run unsandboxed.
SandboxChoice ChooseSandbox(const EngineConfig& config);

}  // namespace tritonrl::eval
