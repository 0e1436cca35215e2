#include <gtest/gtest.h>

#include <fstream>

#include "store/store.h"
#include "store_test_util.h"

namespace tritonrl::store {
namespace {

using testing::MakeResult;
using testing::MakeRun;
using testing::RawQueryInt;
using testing::TempDir;

// Writes shard `shard` of n of a 10-sample run, the way `tritonrl eval --shard i/n` would.
void WriteShard(const std::string& path, int shard, int n) {
  auto s = Store::Open(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  RunInfo run = MakeRun("run", "host-" + std::to_string(shard),
                        std::to_string(shard) + "/" + std::to_string(n));
  ASSERT_TRUE(s->BeginRun(run).ok());
  TaskRecord t;
  t.id = "level1/1_ReLU";
  t.content_hash = Sha256Hex("task:level1/1_ReLU");
  t.level = 1;
  ASSERT_TRUE(s->PutTask(t).ok());
  for (int i = shard; i < 10; i += n) {
    ASSERT_TRUE(s->PutResult(MakeResult("run", "level1/1_ReLU", std::to_string(i))).ok());
  }
  ASSERT_TRUE(s->EndRun("run", run.host, run.shard).ok());
}

TEST(Merge, CombinesShardsAndIsIdempotent) {
  TempDir dir;
  std::string a = dir.File("a.db"), b = dir.File("b.db"), out = dir.File("out.db");
  WriteShard(a, 0, 2);
  WriteShard(b, 1, 2);

  auto m = MergeStores(out, {a, b});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->conflicts.empty());
  ASSERT_EQ(m->sources.size(), 2u);
  EXPECT_EQ(m->sources[0].runs_added, 1);
  EXPECT_EQ(m->sources[1].runs_added, 0);  // the same run, second shard
  EXPECT_EQ(m->sources[0].verdicts_added, 5);
  EXPECT_EQ(m->sources[1].verdicts_added, 5);
  EXPECT_EQ(m->sources[0].tasks_added, 1);
  EXPECT_EQ(m->sources[1].tasks_added, 0);

  auto check = [&] {
    auto s = Store::Open(out);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->CheckIntegrity().ok());
    EXPECT_EQ(s->DoneSamples("run")->size(), 10u);
    EXPECT_EQ(s->GetRunParts("run")->size(), 2u);
    EXPECT_FALSE((*s->GetRun("run"))->ended_at.empty());
    auto v = s->GetVerdict({"run", "level1/1_ReLU", "7"});
    ASSERT_TRUE(v.ok() && v->has_value());
    EXPECT_EQ((*v)->trial_stats.size(), 2u);
    EXPECT_EQ((*v)->stage_timings.size(), 2u);
  };
  check();
  const int64_t rows = RawQueryInt(out,
                                   "SELECT (SELECT count(*) FROM verdicts) + (SELECT count(*) "
                                   "FROM stage_timings) + (SELECT count(*) FROM blobs)");

  // Merging again (in any order, or a source twice) changes nothing.
  auto again = MergeStores(out, {b, a, a});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->conflicts.empty());
  for (const auto& src : again->sources) {
    EXPECT_EQ(src.verdicts_added, 0);
    EXPECT_EQ(src.samples_added, 0);
    EXPECT_EQ(src.verdicts_identical, 5);
  }
  check();
  EXPECT_EQ(rows, RawQueryInt(out,
                              "SELECT (SELECT count(*) FROM verdicts) + (SELECT count(*) "
                              "FROM stage_timings) + (SELECT count(*) FROM blobs)"));
  // Merging the destination into itself is a no-op.
  ASSERT_TRUE(MergeStores(out, {out}).ok());
  check();
}

TEST(Merge, CarriesReferenceTimingsAndKeepsTheDestinations) {
  TempDir dir;
  std::string a = dir.File("a.db"), b = dir.File("b.db"), out = dir.File("out.db");
  WriteShard(a, 0, 2);
  WriteShard(b, 1, 2);
  {
    auto s = Store::Open(a);
    ASSERT_TRUE(s->PutReferenceTiming("k1", "level1/1_ReLU", "H200", "{\"from\":\"a\"}").ok());
    ASSERT_TRUE(s->PutReferenceTiming("k2", "level1/1_ReLU", "H200", "{\"from\":\"a\"}").ok());
  }
  {
    auto s = Store::Open(b);
    ASSERT_TRUE(s->PutReferenceTiming("k1", "level1/1_ReLU", "H200", "{\"from\":\"b\"}").ok());
  }
  ASSERT_TRUE(MergeStores(out, {a, b}).ok());
  ASSERT_TRUE(MergeStores(out, {b, a}).ok());  // idempotent
  auto s = Store::Open(out);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(**s->LookupReferenceTiming("k1"), "{\"from\":\"a\"}");  // first writer kept
  EXPECT_EQ(**s->LookupReferenceTiming("k2"), "{\"from\":\"a\"}");
  EXPECT_EQ(RawQueryInt(out, "SELECT count(*) FROM reference_timings"), 2);
}

TEST(Merge, ReportsConflictingDuplicatesAndKeepsTheDestination) {
  TempDir dir;
  std::string a = dir.File("a.db"), c = dir.File("c.db"), out = dir.File("out.db");
  WriteShard(a, 0, 1);
  {
    // Another host re-evaluated sample 3 with a different result.
    auto s = Store::Open(c);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->BeginRun(MakeRun("run", "host-x", "0/1")).ok());
    ASSERT_TRUE(s->PutResult(MakeResult("run", "level1/1_ReLU", "3", "correct", 1.75)).ok());
    ASSERT_TRUE(s->PutResult(MakeResult("run", "level1/1_ReLU", "extra", "incorrect")).ok());
  }
  ASSERT_TRUE(MergeStores(out, {a}).ok());
  auto m = MergeStores(out, {c});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->conflicts.size(), 1u);
  EXPECT_NE(m->conflicts[0].find("level1/1_ReLU 3"), std::string::npos) << m->conflicts[0];
  EXPECT_NE(m->conflicts[0].find(c), std::string::npos);
  EXPECT_EQ(m->sources[0].verdicts_added, 1);  // "extra" is new; "3" conflicts
  auto s = Store::Open(out);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s->GetVerdict({"run", "level1/1_ReLU", "3"}))->speedup, 1.5);  // destination kept
  EXPECT_EQ(s->DoneSamples("run")->size(), 11u);
  EXPECT_TRUE(s->CheckIntegrity().ok());
}

TEST(Merge, BadSourceFailsNamingItAndLeavesDestinationUntouched) {
  TempDir dir;
  std::string a = dir.File("a.db"), bad = dir.File("bad.db"), out = dir.File("out.db");
  WriteShard(a, 0, 1);
  {
    std::ofstream f(bad, std::ios::binary);
    f << std::string(4096, 'x');
  }
  auto m = MergeStores(out, {bad, a});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(bad), std::string::npos) << m.status().message();
  EXPECT_EQ(RawQueryInt(out, "SELECT count(*) FROM verdicts"), 0);
  auto missing = MergeStores(out, {dir.File("nope.db")});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope.db"), std::string::npos);
}

}  // namespace
}  // namespace tritonrl::store
