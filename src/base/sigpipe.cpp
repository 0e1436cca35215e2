#include "base/sigpipe.h"

#include <signal.h>

#include <mutex>

namespace tritonrl {

void IgnoreSigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { signal(SIGPIPE, SIG_IGN); });
}

void RestoreSigpipeInChild() {
  signal(SIGPIPE, SIG_DFL);
}

}  // namespace tritonrl
