#include "base/child_fds.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace tritonrl {

bool ArrangeChildFds(const FdMapping* mappings, int count) {
  constexpr int kMaxMappings = 16;
  if (count < 0 || count > kMaxMappings) return false;
  int highest = 2;
  for (int i = 0; i < count; ++i) {
    if (mappings[i].child_fd < 0 || mappings[i].child_fd > kMaxMappings + 2) return false;
    if (mappings[i].child_fd > highest) highest = mappings[i].child_fd;
  }
  // Copies above every target first, so that placing one mapping cannot clobber another's source.
  int moved[kMaxMappings];
  for (int i = 0; i < count; ++i) {
    moved[i] = fcntl(mappings[i].parent_fd, F_DUPFD, highest + 1 + kMaxMappings);
    if (moved[i] < 0) return false;
  }
  for (int i = 0; i < count; ++i) {
    if (dup2(moved[i], mappings[i].child_fd) < 0) return false;
  }
  bool mapped[kMaxMappings + 3] = {};
  for (int i = 0; i < count; ++i) mapped[mappings[i].child_fd] = true;
  for (int fd = 0; fd <= highest; ++fd) {
    if (!mapped[fd]) close(fd);
  }
  if (syscall(SYS_close_range, static_cast<unsigned>(highest + 1), ~0u, 0u) != 0) {
    for (int fd = highest + 1; fd < 65536; ++fd) close(fd);
  }
  return true;
}

}  // namespace tritonrl
