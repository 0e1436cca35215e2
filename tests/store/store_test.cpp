#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <set>

#include "store/store.h"
#include "store_test_util.h"

namespace tritonrl::store {
namespace {

using testing::MakeResult;
using testing::MakeRun;
using testing::RawQueryInt;
using testing::TempDir;

TEST(CacheKey, ChangesWithEveryField) {
  CacheKeyInput base{"task", "code", R"({"a":1,"b":2})", "NVIDIA H200", "0.1.0"};
  std::string k = ComputeCacheKey(base);
  EXPECT_EQ(k.size(), 64u);
  auto with = [&](auto edit) {
    CacheKeyInput c = base;
    edit(c);
    return ComputeCacheKey(c);
  };
  EXPECT_NE(k, with([](CacheKeyInput& c) { c.task_content = "task2"; }));
  EXPECT_NE(k, with([](CacheKeyInput& c) { c.candidate = "code2"; }));
  EXPECT_NE(k, with([](CacheKeyInput& c) { c.eval_config_json = R"({"a":1,"b":3})"; }));
  EXPECT_NE(k, with([](CacheKeyInput& c) { c.device_model = "NVIDIA L40S"; }));
  EXPECT_NE(k, with([](CacheKeyInput& c) { c.evaluator_version = "0.2.0"; }));
  // Field boundaries matter: moving bytes between fields changes the key.
  EXPECT_NE(ComputeCacheKey({"ab", "c", "{}", "d", "v"}),
            ComputeCacheKey({"a", "bc", "{}", "d", "v"}));
  // Key order and whitespace of a JSON config do not.
  EXPECT_EQ(k, with([](CacheKeyInput& c) { c.eval_config_json = "{ \"b\": 2,\n \"a\": 1 }"; }));
}

TEST(Store, CreatesVersionedSchemaInWalMode) {
  TempDir dir;
  std::string path = dir.File("s.db");
  {
    auto s = Store::Open(path);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    auto v = s->SchemaVersion();
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(*v, kSchemaVersion);
    EXPECT_TRUE(s->CheckIntegrity().ok());
  }
  EXPECT_EQ(RawQueryInt(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(RawQueryInt(path, "PRAGMA application_id"), 0x54524C31);
  EXPECT_EQ(RawQueryInt(path,
                        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name "
                        "IN ('runs','run_parts','tasks','samples','blobs','verdicts',"
                        "'stage_timings','trial_stats')"),
            8);
  // WAL is persistent in the file header: file format versions 2/2 at offsets 18-19.
  std::ifstream f(path, std::ios::binary);
  char header[20];
  f.read(header, sizeof header);
  EXPECT_EQ(header[18], 2);
  EXPECT_EQ(header[19], 2);
  // Reopening an existing store does not migrate again.
  auto again = Store::Open(path);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
}

TEST(Store, RoundTripsRunTaskSampleVerdict) {
  TempDir dir;
  auto s = Store::Open(dir.File("s.db"));
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->BeginRun(MakeRun("r1")).ok());
  TaskRecord t;
  t.id = "level1/1_ReLU";
  t.content = "class Model: ...";
  t.suite_path = "tasks";
  t.level = 1;
  t.metadata_json = R"({"dtype":"float32"})";
  ASSERT_TRUE(s->PutTask(t).ok());
  ASSERT_TRUE(s->PutTask(t).ok());  // idempotent

  EvalResult r = MakeResult("r1", "level1/1_ReLU", "0");
  r.sample.task_hash = Sha256Hex(t.content);
  r.verdict.flags = {"implausible_speedup"};
  r.verdict.speedup = 12.5;
  ASSERT_TRUE(s->PutResult(r).ok());

  auto v = s->GetVerdict(r.sample.key);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_TRUE(v->has_value());
  const VerdictRecord& got = **v;
  EXPECT_EQ(got.key, r.sample.key);
  EXPECT_EQ(got.outcome, "correct");
  EXPECT_TRUE(got.valid && got.syntax_ok && got.functionality_ok && got.compiled && got.correct);
  EXPECT_EQ(got.speedup, 12.5);
  EXPECT_EQ(got.flags, std::vector<std::string>{"implausible_speedup"});
  EXPECT_EQ(got.reasons, std::vector<std::string>{"reason for 0"});
  EXPECT_EQ(got.evidence_json, R"({"stage":"timing"})");
  EXPECT_EQ(got.cache_key, r.verdict.cache_key);
  EXPECT_EQ(got.sandbox_level, "full");
  EXPECT_DOUBLE_EQ(got.wall_seconds, 2.5);
  ASSERT_EQ(got.stage_timings.size(), 2u);
  EXPECT_EQ(got.stage_timings[1].stage, "correctness");
  EXPECT_DOUBLE_EQ(got.stage_timings[1].seconds, 1.25);
  ASSERT_EQ(got.trial_stats.size(), 2u);
  EXPECT_EQ(got.trial_stats[1].subject, "candidate");
  EXPECT_EQ(got.trial_stats[1].trials, 10);
  EXPECT_DOUBLE_EQ(got.trial_stats[1].median_ms, 1.0);
  EXPECT_FALSE(got.created_at.empty());

  auto sample = s->GetSample(r.sample.key);
  ASSERT_TRUE(sample.ok() && sample->has_value());
  EXPECT_EQ((*sample)->text, r.sample.text);
  EXPECT_EQ((*sample)->code, r.sample.code);
  EXPECT_EQ((*sample)->text_kind, "output");

  auto tasks = s->ListTasks("r1");
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].level, 1);
  EXPECT_EQ((*tasks)[0].content_hash, Sha256Hex(t.content));

  auto run = s->GetRun("r1");
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_EQ((*run)->host, "host-a");
  EXPECT_TRUE((*run)->ended_at.empty());
  ASSERT_TRUE(s->EndRun("r1", "host-a", "0/1").ok());
  run = s->GetRun("r1");
  EXPECT_FALSE((*run)->ended_at.empty());
  EXPECT_EQ(s->EndRun("nope", "h", "0/1").code(), StatusCode::kNotFound);
}

TEST(Store, ReplacingAVerdictReplacesItsTimings) {
  TempDir dir;
  auto s = Store::Open(dir.File("s.db"));
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->BeginRun(MakeRun("r1")).ok());
  EvalResult r = MakeResult("r1", "level1/1_ReLU", "0");
  ASSERT_TRUE(s->PutResult(r).ok());
  r.verdict.outcome = "timeout";
  r.verdict.correct = false;
  r.verdict.stage_timings = {{"compile", 9.0}};
  r.verdict.trial_stats.clear();
  ASSERT_TRUE(s->PutResult(r).ok());
  auto v = s->GetVerdict(r.sample.key);
  ASSERT_TRUE(v.ok() && v->has_value());
  EXPECT_EQ((*v)->outcome, "timeout");
  ASSERT_EQ((*v)->stage_timings.size(), 1u);
  EXPECT_EQ((*v)->stage_timings[0].stage, "compile");
  EXPECT_TRUE((*v)->trial_stats.empty());
}

TEST(Store, StoresIdenticalTextOnce) {
  TempDir dir;
  std::string path = dir.File("s.db");
  {
    auto s = Store::Open(path);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->BeginRun(MakeRun("r1")).ok());
    EvalResult a = MakeResult("r1", "level1/1_ReLU", "0");
    EvalResult b = MakeResult("r1", "level1/1_ReLU", "1");
    b.sample.text = a.sample.text;
    b.sample.code = a.sample.code;
    ASSERT_TRUE(s->PutResults({a, b}).ok());
  }
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM samples"), 2);
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM blobs"), 2);  // the text and the code
}

TEST(Store, ReferenceTimingsRoundTripAndReplace) {
  TempDir dir;
  auto s = Store::Open(dir.File("s.db"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto none = s->LookupReferenceTiming("k1");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(s->PutReferenceTiming("k1", "level1/1_ReLU", "NVIDIA H200", "{\"a\":1}").ok());
  ASSERT_TRUE(s->PutReferenceTiming("k1", "level1/1_ReLU", "NVIDIA H200", "{\"a\":2}").ok());
  auto got = s->LookupReferenceTiming("k1");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(**got, "{\"a\":2}");
  EXPECT_FALSE(s->LookupReferenceTiming("k2")->has_value());
}

TEST(Store, VersionOneFileGainsTheReferenceTimingsTable) {
  TempDir dir;
  const std::string path = dir.File("old.db");
  { ASSERT_TRUE(Store::Open(path).ok()); }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "DROP TABLE reference_timings; PRAGMA user_version = 1;", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  auto s = Store::Open(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s->SchemaVersion(), 2);
  EXPECT_TRUE(s->PutReferenceTiming("k", "t", "gpu", "{}").ok());
}

TEST(Store, CacheHitsOnlyForIdenticalWork) {
  TempDir dir;
  auto s = Store::Open(dir.File("s.db"));
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->BeginRun(MakeRun("r1")).ok());
  CacheKeyInput in{"task", "code", R"({"trials":5})", "NVIDIA H200", "0.1.0"};
  EvalResult r = MakeResult("r1", "level1/1_ReLU", "0", "correct", 2.25);
  r.verdict.cache_key = ComputeCacheKey(in);
  ASSERT_TRUE(s->PutResult(r).ok());

  auto hit = s->Lookup(ComputeCacheKey(in));
  ASSERT_TRUE(hit.ok());
  ASSERT_TRUE(hit->has_value());
  EXPECT_EQ((*hit)->outcome, "correct");
  EXPECT_EQ((*hit)->speedup, 2.25);
  EXPECT_EQ((*hit)->key, r.sample.key);
  EXPECT_EQ((*hit)->trial_stats.size(), 2u);

  CacheKeyInput other_device = in;
  other_device.device_model = "NVIDIA L40S";
  CacheKeyInput other_config = in;
  other_config.eval_config_json = R"({"trials":6})";
  for (const auto& miss : {other_device, other_config}) {
    auto m = s->Lookup(ComputeCacheKey(miss));
    ASSERT_TRUE(m.ok());
    EXPECT_FALSE(m->has_value());
  }
  EXPECT_FALSE(s->Lookup("")->has_value());

  // A verdict marked not cacheable (an infrastructure failure) is never served.
  CacheKeyInput flaky = in;
  flaky.candidate = "flaky";
  EvalResult f = MakeResult("r1", "level1/1_ReLU", "1", "timeout");
  f.verdict.cache_key = ComputeCacheKey(flaky);
  f.verdict.cacheable = false;
  ASSERT_TRUE(s->PutResult(f).ok());
  EXPECT_FALSE(s->Lookup(ComputeCacheKey(flaky))->has_value());

  // The newest cacheable verdict wins.
  EvalResult newer = MakeResult("r1", "level1/1_ReLU", "2", "correct", 3.0);
  newer.verdict.cache_key = ComputeCacheKey(in);
  newer.verdict.created_at = "2999-01-01T00:00:00.000Z";
  ASSERT_TRUE(s->PutResult(newer).ok());
  EXPECT_EQ((*s->Lookup(ComputeCacheKey(in)))->speedup, 3.0);
}

TEST(Store, DoneSamplesListsExactlyTheVerdictsOfTheRun) {
  TempDir dir;
  auto s = Store::Open(dir.File("s.db"));
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->BeginRun(MakeRun("r1")).ok());
  ASSERT_TRUE(s->BeginRun(MakeRun("r2")).ok());
  ASSERT_TRUE(s->PutResult(MakeResult("r1", "level1/2_AddBroadcast", "b")).ok());
  ASSERT_TRUE(s->PutResult(MakeResult("r1", "level1/1_ReLU", "a")).ok());
  ASSERT_TRUE(s->PutResult(MakeResult("r2", "level1/1_ReLU", "z")).ok());
  SampleRecord pending = MakeResult("r1", "level1/3_Softmax", "c").sample;
  ASSERT_TRUE(s->PutSample(pending).ok());  // a sample without verdict is not done
  auto done = s->DoneSamples("r1");
  ASSERT_TRUE(done.ok());
  std::vector<SampleKey> want = {{"r1", "level1/1_ReLU", "a"},
                                 {"r1", "level1/2_AddBroadcast", "b"}};
  EXPECT_EQ(*done, want);
  EXPECT_TRUE(s->DoneSamples("r3")->empty());
}

TEST(Store, ResumingARunNeedsTheSameConfig) {
  TempDir dir;
  auto s = Store::Open(dir.File("s.db"));
  ASSERT_TRUE(s.ok());
  RunInfo r = MakeRun("r1");
  ASSERT_TRUE(s->BeginRun(r).ok());
  ASSERT_TRUE(s->EndRun("r1", r.host, r.shard).ok());
  r.config_json = "{\"seeds\":[1,2],  \"trials\":5}";  // same JSON, other spelling
  ASSERT_TRUE(s->BeginRun(r).ok());
  EXPECT_TRUE((*s->GetRun("r1"))->ended_at.empty());  // running again
  r.config_json = R"({"trials": 6})";
  Status st = s->BeginRun(r);
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("r1"), std::string::npos);
  // A second shard of the same run adds a part.
  ASSERT_TRUE(s->BeginRun(MakeRun("r1", "host-b", "1/2")).ok());
  EXPECT_EQ(s->GetRunParts("r1")->size(), 2u);
  EXPECT_EQ(s->ListRuns()->size(), 1u);
}

TEST(Store, ResultWithoutRunIsRejectedAndWritesNothing) {
  TempDir dir;
  std::string path = dir.File("s.db");
  {
    auto s = Store::Open(path);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->BeginRun(MakeRun("r1")).ok());
    // The batch holds one good and one bad result: all or nothing.
    Status st = s->PutResults({MakeResult("r1", "t", "0"), MakeResult("missing-run", "t", "1")});
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find(path), std::string::npos);
  }
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM verdicts"), 0);
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM samples"), 0);
}

TEST(Store, NotADatabaseIsACorruptionErrorNamingTheFile) {
  TempDir dir;
  std::string path = dir.File("garbage.db");
  {
    std::ofstream f(path, std::ios::binary);
    for (int i = 0; i < 8192; ++i) f.put(static_cast<char>((i * 7919) & 0xff));
  }
  auto s = Store::Open(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption);
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().message();
}

TEST(Store, CorruptPagesAreReportedNamingTheFile) {
  TempDir dir;
  std::string path = dir.File("s.db");
  {
    auto s = Store::Open(path);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->BeginRun(MakeRun("r1")).ok());
    std::vector<EvalResult> many;
    for (int i = 0; i < 200; ++i)
      many.push_back(MakeResult("r1", "level1/1_ReLU", std::to_string(i)));
    ASSERT_TRUE(s->PutResults(many).ok());
  }  // last connection closed: the WAL is checkpointed into the main file
  auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 16u * 4096u);
  {
    // Overwrite the middle pages (not the header) with garbage.
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(4096 * 4));
    for (int i = 0; i < 4096 * 8; ++i) f.put(static_cast<char>(0xA5 ^ (i & 0xff)));
  }
  OpenOptions o;
  o.check_integrity = true;
  auto s = Store::Open(path, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption);
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status().message();
}

TEST(Store, ForeignSqliteFileAndNewerSchemaAreRefused) {
  TempDir dir;
  std::string foreign = dir.File("foreign.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto f = Store::Open(foreign);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find(foreign), std::string::npos);
  EXPECT_NE(f.status().message().find("not a tritonrl store"), std::string::npos);

  std::string newer = dir.File("newer.db");
  { ASSERT_TRUE(Store::Open(newer).ok()); }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
    std::string sql = "PRAGMA user_version = " + std::to_string(kSchemaVersion + 1);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto n = Store::Open(newer);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(n.status().message().find("newer"), std::string::npos);

  OpenOptions ro;
  ro.read_only = true;
  auto missing = Store::Open(dir.File("missing.db"), ro);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing.db"), std::string::npos);
}

TEST(Store, ReadOnlyOpenCannotWrite) {
  TempDir dir;
  std::string path = dir.File("s.db");
  { ASSERT_TRUE(Store::Open(path).ok()); }
  OpenOptions ro;
  ro.read_only = true;
  auto s = Store::Open(path, ro);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->BeginRun(MakeRun("r1")).ok());
}

TEST(VerdictWriter, BatchesAndFlushes) {
  TempDir dir;
  std::string path = dir.File("s.db");
  {
    auto s = Store::Open(path);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->BeginRun(MakeRun("r1")).ok());
  }
  WriterOptions o;
  o.max_batch = 4;
  o.max_delay_ms = 5;
  auto w = VerdictWriter::Open(path, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int i = 0; i < 30; ++i) (*w)->Submit(MakeResult("r1", "level1/1_ReLU", std::to_string(i)));
  ASSERT_TRUE((*w)->Flush().ok());
  // Flush means committed: a separate connection sees all of them.
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM verdicts"), 30);
  for (int i = 30; i < 35; ++i) (*w)->Submit(MakeResult("r1", "level1/1_ReLU", std::to_string(i)));
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM verdicts"), 35);
  EXPECT_TRUE((*w)->Close().ok());  // idempotent
}

TEST(VerdictWriter, ReportsTheFirstError) {
  TempDir dir;
  std::string path = dir.File("s.db");
  auto w = VerdictWriter::Open(path);
  ASSERT_TRUE(w.ok());
  (*w)->Submit(MakeResult("no-such-run", "t", "0"));  // violates the run foreign key
  Status st = (*w)->Flush();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(path), std::string::npos);
  EXPECT_FALSE((*w)->Close().ok());
}

}  // namespace
}  // namespace tritonrl::store
