// Internal to the CLI: the progress of a scoring call on stderr, for every command that scores
// a batch (eval, data synth, data distill). A bar redrawn on a terminal, a line per verdict
// otherwise (eval::Progress); verdicts resumed from the store are not counted. OnVerdict is
// called from the scorer's callback (one call at a time, Callbacks' contract).
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "eval/progress.h"
#include "scoring/score_batch.h"
#include "vocab/verdict_vocab.h"

namespace tritonrl::cli {

class ScoringProgress {
 public:
  void OnVerdict(const scoring::ScoredSample& s, std::size_t done, std::size_t total) {
    if (s.resumed) return;
    // Resumed verdicts come first, so what is left when the first new one arrives is the total.
    // The rate counts from the start of scoring: timed from the first verdict, it read as
    // 110,204/s when that verdict came.
    if (!bar_) bar_ = std::make_unique<eval::Progress>(total - done + 1, terminal_, stderr, start_);
    bar_->Done(std::string(vocab::OutcomeName(s.outcome)), fmt::format("{} {}", s.task, s.id));
  }
  void Finish() {
    if (bar_) bar_->Finish();
  }

 private:
  const bool terminal_ = isatty(fileno(stderr)) != 0;
  // Made just before the scorer is called; verdicts resumed from the store come before any work.
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::unique_ptr<eval::Progress> bar_;  // made at the first new verdict
};

}  // namespace tritonrl::cli
