// Score hands on each engine verdict through Scored (without printing it into the store's record
// and parsing it back); a resumed run reads it back through FromRecord. Both must give the same
// sample, field for field and in the verdict JSON.
#include <gtest/gtest.h>

#include <cmath>

#include "eval/evidence.h"
#include "scoring/records.h"
#include "scoring/rollout_verdict.h"

namespace tritonrl::scoring {
namespace {

eval::Verdict EngineVerdict() {
  eval::Verdict v;
  v.sample = "s1";
  v.task = "level1/1_ReLU";
  v.outcome = vocab::Outcome::kIncorrect;
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

TEST(Records, TheStoredOutcomeIsVocabsSpelling) {
  const eval::Verdict v = EngineVerdict();
  const store::VerdictRecord r = ToRecord(v, {"run1", "level1/1_ReLU", "s1"}, "k", "cpu");
  EXPECT_EQ(r.outcome, "incorrect");
  EXPECT_EQ(RecordJson(r)["outcome"], "incorrect");
  EXPECT_FALSE(r.correct);
  auto cached = CachedVerdict(r, "cpu");
  ASSERT_TRUE(cached.ok()) << cached.status().ToString();
  EXPECT_EQ(cached->outcome, vocab::Outcome::kIncorrect);
  EXPECT_TRUE(cached->from_cache);
}

TEST(Records, AStoredOutcomeOutsideTheVocabularyIsCorruptionNamingTheRecord) {
  const eval::Verdict v = EngineVerdict();
  store::VerdictRecord r = ToRecord(v, {"run1", "level1/1_ReLU", "s1"}, "", "cpu");
  r.outcome = "almost_correct";
  const Status from_record = FromRecord(r).status();
  const Status scored = Scored(v, r).status();
  const Status cached = CachedVerdict(r, "cpu").status();
  for (const Status& st : {from_record, scored, cached}) {
    EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
    EXPECT_NE(st.message().find("level1/1_ReLU s1 in run run1"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("unknown outcome \"almost_correct\""), std::string::npos)
        << st.message();
  }
}

// The timing evidence's two series (written as the timing stage writes them, src/eval/evidence.h)
// become the store's timing rows, and their quartiles the reward's speedup interval.
TEST(Records, TimedCallsBecomeTimingRowsAndTheSpeedupInterval) {
  eval::Verdict v = EngineVerdict();
  v.outcome = vocab::Outcome::kCorrect;
  eval::Stats ref, cand;
  ref.n = 20;
  ref.median = 3;
  ref.p25 = 2;
  ref.p75 = 4;
  ref.mean = 3.5;
  ref.min = 1;
  ref.max = 9;
  ref.stddev = 0.5;
  cand.n = 20;
  cand.median = 1;
  cand.p25 = 0.5;
  cand.p75 = 2;
  v.evidence["timing"] = eval::TimedCallsEvidence{"large", ref, cand};
  v.evidence["timing"]["baseline"] = "eager";  // the rest of the judgement, unread
  const store::VerdictRecord r = ToRecord(v, {"run1", "level1/1_ReLU", "s1"}, "k", "cuda");
  ASSERT_EQ(r.trial_stats.size(), 2u);
  EXPECT_EQ(r.trial_stats[0].subject, "reference");
  EXPECT_EQ(r.trial_stats[0].variant, "large");
  EXPECT_EQ(r.trial_stats[0].trials, 20);
  EXPECT_EQ(r.trial_stats[0].median_ms, 3.0);
  EXPECT_EQ(r.trial_stats[0].mean_ms, 3.5);
  EXPECT_EQ(r.trial_stats[0].min_ms, 1.0);
  EXPECT_EQ(r.trial_stats[0].max_ms, 9.0);
  EXPECT_EQ(r.trial_stats[0].stddev_ms, 0.5);
  EXPECT_EQ(r.trial_stats[1].subject, "candidate");
  EXPECT_EQ(r.trial_stats[1].median_ms, 1.0);
  auto s = FromRecord(r);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const rl::RolloutVerdict rv = RolloutVerdictOf(*s);
  EXPECT_EQ(rv.speedup_low, 2.0 / 2.0);   // reference p25 / candidate p75
  EXPECT_EQ(rv.speedup_high, 4.0 / 0.5);  // reference p75 / candidate p25

  // No reference series (a CPU run, or a sample not timed): no rows for it, no interval.
  v.evidence["timing"] = eval::TimedCallsEvidence{"large", std::nullopt, cand};
  const store::VerdictRecord one = ToRecord(v, {"run1", "level1/1_ReLU", "s1"}, "k", "cuda");
  ASSERT_EQ(one.trial_stats.size(), 1u);
  EXPECT_EQ(one.trial_stats[0].subject, "candidate");
  auto s1 = FromRecord(one);
  ASSERT_TRUE(s1.ok());
  EXPECT_TRUE(std::isnan(RolloutVerdictOf(*s1).speedup_low));
}

}  // namespace
}  // namespace tritonrl::scoring
