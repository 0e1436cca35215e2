// The part of starting a child process that runs between fork and exec (or, in a forked zygote
// child, between fork and the worker's main): putting the inherited file descriptors in place.
// Async-signal-safe and libc-only, so that it can also be compiled into the sandbox library that
// a Python zygote loads (src/eval/sandbox_child.h).
#pragma once

namespace tritonrl {

struct FdMapping {
  int child_fd;   // the number the child sees
  int parent_fd;  // the descriptor it is a copy of
};

// Makes each mapping's child_fd a copy of its parent_fd (close-on-exec cleared), then closes every
// other descriptor from 0 up (standard streams not mapped are closed too). Returns false if a dup
// failed. Safe when a parent_fd equals another mapping's child_fd.
bool ArrangeChildFds(const FdMapping* mappings, int count);

}  // namespace tritonrl
