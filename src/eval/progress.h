// Progress of an evaluation run: a redrawn one-line bar on a terminal
// (done/total, rate, ETA, outcome counts), plain lines otherwise.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>

namespace tritonrl::eval {

class Progress {
 public:
  // `start`: when the work began (the rate counts from there, not from the first sample done).
  Progress(std::size_t total, bool terminal, std::FILE* out,
           std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now());
  // One sample finished with `outcome`; `label` names it on plain lines.
  void Done(const std::string& outcome, const std::string& label);
  void Finish();
  // The bar as drawn now (exposed for tests).
  std::string Line() const;

 private:
  std::size_t total_, done_ = 0;
  bool terminal_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, std::size_t> counts_;
};

// "1m05s", "42s", "--" for unknown.
std::string FormatDuration(double seconds);

}  // namespace tritonrl::eval
