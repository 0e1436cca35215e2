// The engine's clock: a steady clock, and the milliseconds since a point of it (what every
// phase, wait and deadline of the engine is measured in).
#pragma once

#include <chrono>

namespace tritonrl::eval {

using Clock = std::chrono::steady_clock;

inline double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace tritonrl::eval
