// Score hands on each engine verdict through Scored (without printing it into the store's record
// and parsing it back); a resumed run reads it back through FromRecord. Both must give the same
// sample, field for field and in the verdict JSON.
#include <gtest/gtest.h>

#include "scoring/records.h"

namespace tritonrl::scoring {
namespace {

eval::Verdict EngineVerdict() {
  eval::Verdict v;
  v.sample = "s1";
  v.task = "level1/1_ReLU";
  v.outcome = "incorrect";
  v.reasons = {{"runtime", "mismatch", "trial 2: max abs error 0.5 at [3, 1]"}};
  v.flags = {"near_tolerance"};
  v.sandbox = {{"level", "full"}, {"seccomp", true}};
  v.timings_ms = {{"import", 812.5}, {"trial", 40.25}};
  v.evidence = {{"trials", nlohmann::json::array(
                               {{{"seed", 7}, {"ok", true}}, {{"seed", 11}, {"ok", false}}})},
                {"timing", {{"candidate_event_ms", {{"p25", 0.125}, {"p75", 0.1875}}}}}};
  v.speedup = 1.0 / 3.0;
  v.device = "cpu";
  v.provisional = true;
  v.syntax_ok = true;
  v.functionality_ok = true;
  v.compiled = true;
  v.wall_ms = 1234;
  return v;
}

TEST(Records, ScoredAgreesWithTheStoredRecordReadBack) {
  const eval::Verdict v = EngineVerdict();
  // The key's sample id is the one stored, whatever the verdict says.
  const store::VerdictRecord r = ToRecord(v, {"run1", "level1/1_ReLU", "stored-id"}, "k", "cpu");
  auto direct = Scored(v, r);
  auto read_back = FromRecord(r);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  ASSERT_TRUE(read_back.ok()) << read_back.status().ToString();
  EXPECT_EQ(direct->verdict, read_back->verdict);
  EXPECT_EQ(direct->verdict["sample"], "stored-id");
  EXPECT_EQ(ToJson(*direct), ToJson(*read_back));
  EXPECT_EQ(direct->id, "stored-id");
  EXPECT_EQ(direct->outcome, vocab::Outcome::kIncorrect);
  EXPECT_TRUE(direct->valid);
  EXPECT_TRUE(direct->compiled);
  EXPECT_FALSE(direct->correct);
  EXPECT_EQ(direct->speedup, v.speedup);
  EXPECT_EQ(direct->flags, v.flags);
}

TEST(Records, ScoredRefusesAnOutcomeOutsideTheVocabulary) {
  eval::Verdict v = EngineVerdict();
  v.outcome = "almost_correct";
  const store::VerdictRecord r = ToRecord(v, {"run1", "level1/1_ReLU", "s1"}, "", "cpu");
  EXPECT_FALSE(Scored(v, r).ok());
}

}  // namespace
}  // namespace tritonrl::scoring
