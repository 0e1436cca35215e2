// The typed evidence (src/eval/evidence.h) writes the JSON the pool and the timing stage wrote as
// literals before it existed, byte for byte (stored verdicts and the benchmarks' scripts read
// those keys), and reads back what it writes. The expected texts below are written by hand.
#include "eval/evidence.h"

#include <gtest/gtest.h>

#include <limits>

namespace tritonrl::eval {
namespace {

using nlohmann::json;

TEST(EvidenceTest, PoolWritesItsOptionalKeysOnlyWhenSet) {
  PoolEvidence e{3, 1.5, 20.25, true};
  EXPECT_EQ(json(e).dump(), R"({"end_ms":20.25,"ran_reference":true,"start_ms":1.5,"thread":3})");
  e.ran_reference = false;
  e.reference_kept = true;
  e.reference_oom_reruns = {"beside others, 4480 MiB admitted", "alone"};
  EXPECT_EQ(json(e).dump(),
            R"({"end_ms":20.25,"ran_reference":false,"reference_kept":true,)"
            R"("reference_oom_reruns":["beside others, 4480 MiB admitted","alone"],)"
            R"("start_ms":1.5,"thread":3})");
  const PoolEvidence back = json(e).get<PoolEvidence>();
  EXPECT_EQ(back.thread, 3);
  EXPECT_EQ(back.start_ms, 1.5);
  EXPECT_EQ(back.end_ms, 20.25);
  EXPECT_FALSE(back.ran_reference);
  EXPECT_TRUE(back.reference_kept);
  EXPECT_EQ(back.reference_oom_reruns, e.reference_oom_reruns);
}

TEST(EvidenceTest, AdmissionAndOomRerunKeys) {
  const AdmissionEvidence a{1ull << 33, 7, 0, 80ull << 30};
  EXPECT_EQ(json(a).dump(), R"({"device_budget_bytes":85899345920,"device_bytes_estimate":7,)"
                            R"("host_budget_bytes":0,"host_bytes_estimate":8589934592})");
  const auto back = json(a).get<AdmissionEvidence>();
  EXPECT_EQ(back.host_bytes_estimate, 1ull << 33);
  EXPECT_EQ(back.device_budget_bytes, 80ull << 30);
  const OomRerunEvidence o{"RuntimeError: CUDA out of memory", 12.5};
  EXPECT_EQ(json(o).dump(), R"({"first_run":"RuntimeError: CUDA out of memory","wait_ms":12.5})");
  EXPECT_EQ(json(o).get<OomRerunEvidence>().first_run, o.first_run);
}

TEST(EvidenceTest, AutoTritonWritesTheEngineOutcomeOnlyWhenSet) {
  AutoTritonEvidence a{true, false, ""};
  EXPECT_EQ(json(a).dump(), R"({"is_triton":true,"outputs_match":false})");
  a.outputs_match = true;
  a.engine_outcome = "incorrect";
  EXPECT_EQ(json(a).dump(),
            R"({"engine_outcome":"incorrect","is_triton":true,"outputs_match":true})");
  const auto back = json(a).get<AutoTritonEvidence>();
  EXPECT_TRUE(back.is_triton);
  EXPECT_TRUE(back.outputs_match);
  EXPECT_EQ(back.engine_outcome, "incorrect");
}

TEST(EvidenceTest, WriteAndReadUnderTheKeyOfTheVerdictsEvidence) {
  json evidence = json::object();
  WriteEvidence(evidence, PoolEvidence{1, 0, 2, true});
  WriteEvidence(evidence, OomRerunEvidence{"m", 1});
  EXPECT_TRUE(evidence.contains("pool"));
  EXPECT_TRUE(evidence.contains("out_of_memory_rerun"));
  EXPECT_EQ(ReadEvidence<PoolEvidence>(evidence)->thread, 1);
  EXPECT_FALSE(ReadEvidence<AdmissionEvidence>(evidence));
  EXPECT_FALSE(ReadEvidence<PoolEvidence>(json::array()));
  EXPECT_FALSE(ReadEvidence<PoolEvidence>(json{{"pool", "not an object"}}));
}

TEST(EvidenceTest, StatsKeepTheirKeysAndTypes) {
  Stats s;
  s.n = 5;
  s.median = 0.5;
  s.p25 = 0.25;
  s.p75 = 0.75;
  s.iqr = 0.5;
  s.mean = 0.5;
  s.stddev = 0.125;
  s.cv = 0.25;
  s.min = 0.125;
  s.max = 1;
  EXPECT_EQ(json(s).dump(),
            R"({"cv":0.25,"iqr":0.5,"max":1.0,"mean":0.5,"median":0.5,"min":0.125,"n":5,)"
            R"("p25":0.25,"p75":0.75,"stddev":0.125})");
  const Stats back = json(s).get<Stats>();
  EXPECT_EQ(back.n, 5);
  EXPECT_EQ(back.p75, 0.75);
  EXPECT_EQ(back.max, 1.0);
  // Lenient: a missing or non-numeric key reads as 0.
  const Stats partial = json{{"n", "five"}, {"p25", 0.125}}.get<Stats>();
  EXPECT_EQ(partial.n, 0);
  EXPECT_EQ(partial.p25, 0.125);
  EXPECT_EQ(partial.median, 0.0);
}

TEST(EvidenceTest, TimedCallsWriteTheirSeriesAndReadLeniently) {
  Stats r, c;
  r.n = c.n = 2;
  r.median = 4;
  c.median = 2;
  TimedCallsEvidence t{"large", r, c};
  const json j = t;
  EXPECT_EQ(j["variant"], "large");
  EXPECT_EQ(j["reference_event_ms"], json(r));
  EXPECT_EQ(j["candidate_event_ms"], json(c));
  EXPECT_EQ(j.size(), 3u);
  t.candidate_event_ms.reset();
  EXPECT_FALSE(json(t).contains("candidate_event_ms"));

  // What the timing stage writes when it did not time: no series, no variant.
  const auto skipped =
      ReadEvidence<TimedCallsEvidence>(json{{"timing", {{"skipped", "timing disabled"}}}});
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->variant, "");
  EXPECT_FALSE(skipped->reference_event_ms);
  EXPECT_FALSE(skipped->candidate_event_ms);
  // Malformed stored evidence does not throw: wrong types read as absent.
  const auto bad = ReadEvidence<TimedCallsEvidence>(
      json{{"timing", {{"variant", 3}, {"reference_event_ms", "x"}, {"candidate_event_ms", c}}}});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->variant, "");
  EXPECT_FALSE(bad->reference_event_ms);
  ASSERT_TRUE(bad->candidate_event_ms);
  EXPECT_EQ(bad->candidate_event_ms->median, 2.0);
}

}  // namespace
}  // namespace tritonrl::eval
