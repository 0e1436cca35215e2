// Shared helpers for the store tests: a scratch directory and result builders.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "store/store.h"

namespace tritonrl::store::testing {

// A fresh directory under the system temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tritonrl-store-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    EXPECT_NE(p, nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline RunInfo MakeRun(const std::string& id, const std::string& host = "host-a",
                       const std::string& shard = "0/1") {
  RunInfo r;
  r.id = id;
  r.config_json = R"({"trials": 5, "seeds": [1, 2]})";
  r.host = host;
  r.device_model = "cpu";
  r.tool_version = "0.1.0";
  r.sample_file = "samples.jsonl";
  r.shard = shard;
  return r;
}

// A result whose fields are all derived from the key, so tests can check any of them.
inline EvalResult MakeResult(const std::string& run, const std::string& task,
                             const std::string& sample, const std::string& outcome = "correct",
                             std::optional<double> speedup = 1.5) {
  EvalResult r;
  r.sample.key = {run, task, sample};
  r.sample.task_hash = Sha256Hex("task:" + task);
  r.sample.text = "<think>plan</think>\n```python\n# " + task + " " + sample + "\n```";
  r.sample.code = "# " + task + " " + sample;
  VerdictRecord& v = r.verdict;
  v.cache_key = ComputeCacheKey({"task:" + task, r.sample.code, "{}", "cpu", "0.1.0"});
  v.outcome = outcome;
  v.syntax_ok = outcome != "invalid_syntax";
  v.functionality_ok = v.syntax_ok && outcome != "invalid_functionality";
  v.valid = v.syntax_ok && v.functionality_ok;
  v.compiled = v.valid && outcome != "compile_error";
  v.correct = outcome == "correct";
  v.speedup = v.correct ? speedup : std::nullopt;
  v.reasons = {"reason for " + sample};
  v.evidence_json = R"({"stage":"timing"})";
  v.sandbox_level = "full";
  v.device_model = "cpu";
  v.wall_seconds = 2.5;
  v.stage_timings = {{"static", 0.001}, {"correctness", 1.25}};
  v.trial_stats = {{"reference", "large", 10, 2.0, 2.1, 1.9, 2.5, 0.1},
                   {"candidate", "large", 10, 1.0, 1.1, 0.9, 1.5, 0.05}};
  return r;
}

// One integer from a raw SQLite query on `path` (independent of the store's code).
inline int64_t RawQueryInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t v = -1;
  if (st && sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

}  // namespace tritonrl::store::testing
