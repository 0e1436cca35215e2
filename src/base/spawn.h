// Fork and exec of a child process with a chosen set of file descriptors: the one owner of
// fork/exec in the project (the evaluation workers of src/eval/process.cpp build their sandbox on
// it; the task audit's runner, src/task/audit.cpp, uses it as is).
//
// Callable from any thread. The child runs only async-signal-safe code between fork and exec
// (everything it needs is prepared here before fork), so other threads holding locks cannot
// deadlock it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/child_fds.h"
#include "base/status.h"

namespace tritonrl {

// argv and environment as exec wants them, built before fork (the child may not allocate).
struct PreparedExec {
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  bool search_path = false;
};

struct ExecSpec {
  std::vector<std::string> argv;  // argv[0]: a path, or a name looked up in PATH (search_path)
  std::vector<std::string> env;   // the complete environment ("KEY=VALUE")
  bool search_path = false;
  std::vector<FdMapping> fds;  // what the child holds; every other descriptor is closed
  bool new_session = false;    // setsid(): its own process group, killable as a whole
  // PR_SET_PDEATHSIG: killed when the spawning *thread* ends (the kernel's rule), so a child
  // meant to outlive a worker thread must be spawned with this off.
  bool die_with_parent = true;
  // Runs in the child after the fds are in place, instead of the plain exec (async-signal-safe
  // only; must exec or _exit: one that returns ends the child with 127, never in the plain exec).
  // The sandboxed workers put their sandbox up here. (Not [[noreturn]]: the attribute belongs to
  // functions, not pointers, and Clang refuses it.)
  void (*child_main)(const PreparedExec& exec, void* context) = nullptr;
  void* context = nullptr;
};

// Ignores SIGPIPE in this process from now on (a child may close its pipes at any moment); the
// child gets the default back. Returns the child's pid.
Result<pid_t> ForkExec(const ExecSpec& spec);

// execve / execvpe of spec.argv with spec.env, for a child_main; returns only on failure.
void ExecInChild(const PreparedExec& exec);

}  // namespace tritonrl
