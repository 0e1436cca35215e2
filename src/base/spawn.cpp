#include "base/spawn.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/sigpipe.h"

namespace tritonrl {

void ExecInChild(const PreparedExec& exec) {
  if (exec.search_path) {
    execvpe(exec.argv[0], exec.argv, exec.envp);
  } else {
    execve(exec.argv[0], exec.argv, exec.envp);
  }
}

Result<pid_t> ForkExec(const ExecSpec& spec) {
  if (spec.argv.empty()) return Status::InvalidArgument("spawn: empty argv");
  IgnoreSigpipe();
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const PreparedExec exec{argv.data(), envp.data(), spec.search_path};
  const pid_t pid = fork();
  if (pid < 0) return Status::Unavailable(std::string("fork failed: ") + std::strerror(errno));
  if (pid > 0) return pid;
  if (spec.new_session) setsid();
  if (spec.die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL);
  RestoreSigpipeInChild();
  if (!ArrangeChildFds(spec.fds.data(), static_cast<int>(spec.fds.size()))) _exit(126);
  if (spec.child_main != nullptr) {
    spec.child_main(exec, spec.context);
    _exit(127);  // a child_main that returned must not fall through to the unsandboxed exec
  }
  ExecInChild(exec);
  _exit(127);
}

}  // namespace tritonrl
