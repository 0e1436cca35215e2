// Driver of the null-model audit: runs python/tritonrl_runner/audit.py (see its
// docstring for the checks and the line protocol) in a child process over the
// tasks of a suite, with a per-task time limit enforced from here as well
// (a task that hangs in native code is killed and the run resumes after it).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "task/task.h"

namespace tritonrl::task {

// AuditOptions::variants = {kEvalVariants}: per task, the variants `tritonrl eval` runs on the
// audit's device (taskmod.eval_variants).
inline constexpr std::string_view kEvalVariants = "@eval";

struct AuditOptions {
  std::vector<std::string> variants;  // empty: every variant of each task; or {kEvalVariants}
  std::string device = "cpu";         // "cpu" or "cuda"
  std::string python;        // interpreter; empty: LocateInterpreter (base/runner_locate.h)
  std::string runner_dir;    // folder holding tritonrl_runner/; empty: LocateRunner
  double timeout_s = 300;    // per task (all its variants together)
  double max_memory_gb = 0;  // address-space limit of the runner; 0: none
  int seed = 42;
  int jobs = 1;  // runner processes in parallel, each over every jobs-th task
};

struct AuditResult {
  std::string task;
  std::string variant;  // "*" when the whole task failed (error, timeout, crash)
  std::string status;   // ok, fail, error, timeout, skipped
  Json detail;          // the runner's record (checks, null models, stats, error)
};

// Audits `tasks` with options.jobs runners in parallel; calls on_result (serialised) for each
// record as it arrives and returns them in the order of `tasks`. Fails only if a runner cannot
// be started or dies before auditing anything.
Result<std::vector<AuditResult>> RunAudit(const std::vector<TaskInfo>& tasks,
                                          const AuditOptions& options,
                                          const std::function<void(const AuditResult&)>& on_result);

// RunAudit that survives being stopped: each task's records are appended to `cache_path` (one
// JSONL line per task, keyed on the file's sha256 and the options that change a verdict) as soon
// as the task is over, and a task whose line is there is not audited again. Tasks with an error
// or timeout record are not kept, so a rerun tries them again. A line cut short by a kill is
// skipped. `resumed`, when given, receives how many tasks came from the cache.
Result<std::vector<AuditResult>> RunAuditResumable(
    const std::vector<TaskInfo>& tasks, const AuditOptions& options, const std::string& cache_path,
    const std::function<void(const AuditResult&)>& on_result, std::size_t* resumed = nullptr);

// Names of the null models that passed the correctness check (audit failures).
std::vector<std::string> PassedNullModels(const AuditResult& result);

}  // namespace tritonrl::task
