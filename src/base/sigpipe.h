// SIGPIPE for processes that talk to children over pipes.
#pragma once

namespace tritonrl {

// From now on a write to a pipe whose reader has gone fails with EPIPE instead of killing this
// process: a child (a candidate, a runner) may close its end at any moment. Process-wide and
// idempotent.
void IgnoreSigpipe();

// Between fork and exec: an ignored signal survives exec, and the child should die of SIGPIPE
// as any program would. Async-signal-safe.
void RestoreSigpipeInChild();

}  // namespace tritonrl
