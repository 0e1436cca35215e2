#include "base/sigpipe.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <gtest/gtest.h>

namespace tritonrl {
namespace {

// A pipe whose reader is already closed.
struct BrokenPipe {
  int fds[2] = {-1, -1};
  BrokenPipe() {
    EXPECT_EQ(pipe(fds), 0);
    close(fds[0]);
  }
  ~BrokenPipe() { close(fds[1]); }
};

TEST(Sigpipe, IgnoredWritesFailWithEpipeAndAChildGetsTheDefaultBack) {
  IgnoreSigpipe();
  IgnoreSigpipe();  // idempotent
  {
    BrokenPipe p;
    errno = 0;
    EXPECT_EQ(write(p.fds[1], "x", 1), -1);
    EXPECT_EQ(errno, EPIPE);  // still alive to see it
  }
  BrokenPipe p;
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RestoreSigpipeInChild();
    (void)!write(p.fds[1], "x", 1);
    _exit(0);  // reached only if SIGPIPE stayed ignored
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGPIPE);
}

}  // namespace
}  // namespace tritonrl
