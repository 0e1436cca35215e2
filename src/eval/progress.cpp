#include "eval/progress.h"

#include <cmath>

#include <fmt/format.h>

namespace tritonrl::eval {

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--";
  const long s = std::lround(seconds);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

Progress::Progress(std::size_t total, bool terminal, std::FILE* out,
                   std::chrono::steady_clock::time_point start)
    : total_(total), terminal_(terminal), out_(out), start_(start) {}

std::string Progress::Line() const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : NAN;
  constexpr int kWidth = 24;
  const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::string counts;
  for (const auto& [outcome, n] : counts_) counts += fmt::format(" {}={}", outcome, n);
  return fmt::format("[{}] {}/{} {:.2f}/s ETA {}{}", bar, done_, total_, rate, FormatDuration(eta),
                     counts);
}

void Progress::Done(const std::string& outcome, const std::string& label) {
  ++done_;
  ++counts_[outcome];
  if (terminal_) {
    fmt::print(out_, "\r\033[2K{}", Line());
  } else {
    fmt::print(out_, "eval: {}/{} {} -> {}\n", done_, total_, label, outcome);
  }
  std::fflush(out_);
}

void Progress::Finish() {
  if (terminal_) fmt::print(out_, "\r\033[2K{}\n", Line());
  std::fflush(out_);
}

}  // namespace tritonrl::eval
