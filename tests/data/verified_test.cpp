// data::RejectionOf: the one rule that decides whether a synthetic solution (or a distilled
// output) stands, on verdicts built by hand.
#include <gtest/gtest.h>

#include "data/verified.h"

namespace tritonrl::data {
namespace {

scoring::ScoredSample Verdict(vocab::Outcome outcome, nlohmann::json reasons,
                              std::vector<std::string> flags = {}) {
  scoring::ScoredSample s;
  s.task = "s0001_pointwise_relu";
  s.id = "s0001_pointwise_relu";
  s.outcome = outcome;
  s.correct = outcome == vocab::Outcome::kCorrect;
  s.flags = std::move(flags);
  s.verdict = {{"reasons", std::move(reasons)}};
  return s;
}

TEST(RejectionOf, CorrectStands) {
  EXPECT_EQ(RejectionOf(Verdict(vocab::Outcome::kCorrect, nlohmann::json::array())), "");
}

TEST(RejectionOf, NamesTheOutcomeAndTheFirstReason) {
  const nlohmann::json reasons = {{{"stage", "runtime"}, {"code", "mismatch"}},
                                  {{"stage", "runtime"}, {"code", "nan"}}};
  EXPECT_EQ(RejectionOf(Verdict(vocab::Outcome::kIncorrect, reasons)),
            "incorrect:runtime.mismatch");
  EXPECT_EQ(RejectionOf(Verdict(vocab::Outcome::kCompileError, nlohmann::json::array())),
            "compile_error");
}

TEST(RejectionOf, AWeakTaskNeverStandsEvenWhenCorrect) {
  EXPECT_EQ(RejectionOf(Verdict(vocab::Outcome::kCorrect, nlohmann::json::array(), {"weak_task"})),
            "weak_task");
  const nlohmann::json reasons = {{{"stage", "runtime"}, {"code", "mismatch"}}};
  EXPECT_EQ(RejectionOf(Verdict(vocab::Outcome::kIncorrect, reasons, {"weak_task"})),
            "weak_task:runtime.mismatch");
}

}  // namespace
}  // namespace tritonrl::data
