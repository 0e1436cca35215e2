#include "store/store.h"

#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "store/store_internal.h"

namespace tritonrl::store {

namespace {

using sql::Db;
using sql::Stmt;
using sql::Transaction;

#define ASSIGN_OR_RETURN(lhs, expr)           \
  auto lhs##_r = (expr);                      \
  if (!lhs##_r.ok()) return lhs##_r.status(); \
  auto lhs = std::move(lhs##_r).value()

// Migration i takes the schema from version i to i + 1. Never edit a released step:
// add a new one, so that every existing file reaches the same schema.
const char* const kMigrations[] = {
    // 0 -> 1: initial schema.
    R"sql(
CREATE TABLE blobs(
  hash TEXT PRIMARY KEY,
  content TEXT NOT NULL
);
CREATE TABLE runs(
  id TEXT PRIMARY KEY,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  config_json TEXT NOT NULL,
  host TEXT NOT NULL DEFAULT '',
  device_model TEXT NOT NULL DEFAULT '',
  tool_version TEXT NOT NULL DEFAULT '',
  git_revision TEXT NOT NULL DEFAULT '',
  sample_file TEXT NOT NULL DEFAULT '',
  sample_file_hash TEXT NOT NULL DEFAULT '',
  shard TEXT NOT NULL DEFAULT ''
);
CREATE TABLE run_parts(
  run_id TEXT NOT NULL REFERENCES runs(id),
  host TEXT NOT NULL,
  shard TEXT NOT NULL,
  device_model TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL,
  ended_at TEXT,
  PRIMARY KEY(run_id, host, shard)
);
CREATE TABLE tasks(
  id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  suite_path TEXT NOT NULL DEFAULT '',
  level INTEGER NOT NULL DEFAULT 0,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  has_content INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(id, content_hash)
);
CREATE TABLE samples(
  run_id TEXT NOT NULL REFERENCES runs(id),
  task_id TEXT NOT NULL,
  sample_id TEXT NOT NULL,
  task_hash TEXT NOT NULL DEFAULT '',
  text_kind TEXT NOT NULL,
  text_hash TEXT NOT NULL REFERENCES blobs(hash),
  code_hash TEXT REFERENCES blobs(hash),
  PRIMARY KEY(run_id, task_id, sample_id)
);
CREATE TABLE verdicts(
  run_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  sample_id TEXT NOT NULL,
  cache_key TEXT NOT NULL DEFAULT '',
  cacheable INTEGER NOT NULL,
  from_cache INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  valid INTEGER NOT NULL,
  syntax_ok INTEGER NOT NULL,
  functionality_ok INTEGER NOT NULL,
  compiled INTEGER NOT NULL,
  correct INTEGER NOT NULL,
  speedup REAL,
  flags TEXT NOT NULL DEFAULT '[]',
  reasons TEXT NOT NULL DEFAULT '[]',
  evidence_json TEXT NOT NULL DEFAULT '{}',
  sandbox_level TEXT NOT NULL DEFAULT '',
  device_model TEXT NOT NULL DEFAULT '',
  wall_seconds REAL NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  PRIMARY KEY(run_id, task_id, sample_id),
  FOREIGN KEY(run_id, task_id, sample_id) REFERENCES samples(run_id, task_id, sample_id)
);
CREATE INDEX verdicts_by_cache_key ON verdicts(cache_key) WHERE cacheable = 1 AND cache_key <> '';
CREATE TABLE stage_timings(
  run_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  sample_id TEXT NOT NULL,
  stage TEXT NOT NULL,
  seconds REAL NOT NULL,
  PRIMARY KEY(run_id, task_id, sample_id, stage),
  FOREIGN KEY(run_id, task_id, sample_id) REFERENCES verdicts(run_id, task_id, sample_id)
);
CREATE TABLE trial_stats(
  run_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  sample_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  variant TEXT NOT NULL,
  trials INTEGER NOT NULL,
  median_ms REAL NOT NULL,
  mean_ms REAL NOT NULL,
  min_ms REAL NOT NULL,
  max_ms REAL NOT NULL,
  stddev_ms REAL NOT NULL,
  PRIMARY KEY(run_id, task_id, sample_id, subject, variant),
  FOREIGN KEY(run_id, task_id, sample_id) REFERENCES verdicts(run_id, task_id, sample_id)
);
)sql",
    // 1 -> 2: reference timings kept across runs.
    R"sql(
CREATE TABLE reference_timings(
  key TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  device_model TEXT NOT NULL,
  phase_json TEXT NOT NULL,
  created_at TEXT NOT NULL
);
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion, "one migration per schema version");

std::string ToJsonArray(const std::vector<std::string>& v) {
  return nlohmann::json(v).dump();
}

Result<std::vector<std::string>> FromJsonArray(const Db& db, const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array())
    return Status::Corruption(db.path() +
                              ": stored list is not a JSON array: " + text.substr(0, 80));
  std::vector<std::string> out;
  for (const auto& e : j) {
    if (!e.is_string())
      return Status::Corruption(db.path() +
                                ": stored list holds a non-string: " + text.substr(0, 80));
    out.push_back(e.get<std::string>());
  }
  return out;
}

Status PutBlob(const Db& db, const std::string& hash, const std::string& content) {
  ASSIGN_OR_RETURN(st, db.Prepare("INSERT OR IGNORE INTO blobs(hash, content) VALUES(?, ?)"));
  return st.Bind(1, hash).Bind(2, content).Run();
}

Result<std::string> GetBlob(const Db& db, const std::string& hash) {
  ASSIGN_OR_RETURN(st, db.Prepare("SELECT content FROM blobs WHERE hash = ?"));
  st.Bind(1, hash);
  ASSIGN_OR_RETURN(row, st.Step());
  if (!row) return Status::Corruption(db.path() + ": missing blob " + hash);
  return st.Text(0);
}

Status PutSampleRow(const Db& db, const SampleRecord& s) {
  std::string text_hash = Sha256Hex(s.text);
  TRITONRL_RETURN_IF_ERROR(PutBlob(db, text_hash, s.text));
  std::string code_hash;
  if (!s.code.empty()) {
    code_hash = Sha256Hex(s.code);
    TRITONRL_RETURN_IF_ERROR(PutBlob(db, code_hash, s.code));
  }
  // An upsert, not REPLACE: REPLACE would delete the row under an existing verdict.
  ASSIGN_OR_RETURN(st, db.Prepare(R"sql(
INSERT INTO samples(run_id, task_id, sample_id, task_hash, text_kind, text_hash, code_hash)
VALUES(?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(run_id, task_id, sample_id) DO UPDATE SET
  task_hash = excluded.task_hash, text_kind = excluded.text_kind,
  text_hash = excluded.text_hash, code_hash = excluded.code_hash)sql"));
  st.Bind(1, s.key.run_id).Bind(2, s.key.task_id).Bind(3, s.key.sample_id);
  st.Bind(4, s.task_hash).Bind(5, s.text_kind).Bind(6, text_hash);
  if (code_hash.empty()) {
    st.BindNull(7);
  } else {
    st.Bind(7, code_hash);
  }
  return st.Run();
}

Status DeleteVerdictRows(const Db& db, const SampleKey& k) {
  for (const char* table : {"stage_timings", "trial_stats", "verdicts"}) {
    ASSIGN_OR_RETURN(st, db.Prepare(std::string("DELETE FROM ") + table +
                                    " WHERE run_id = ? AND task_id = ? AND sample_id = ?"));
    TRITONRL_RETURN_IF_ERROR(st.Bind(1, k.run_id).Bind(2, k.task_id).Bind(3, k.sample_id).Run());
  }
  return Status::Ok();
}

Status PutVerdictRows(const Db& db, const VerdictRecord& v) {
  if (v.outcome.empty()) return Status::InvalidArgument(db.path() + ": verdict without outcome");
  TRITONRL_RETURN_IF_ERROR(DeleteVerdictRows(db, v.key));
  ASSIGN_OR_RETURN(st, db.Prepare(R"sql(
INSERT INTO verdicts(run_id, task_id, sample_id, cache_key, cacheable, from_cache, outcome,
  valid, syntax_ok, functionality_ok, compiled, correct, speedup, flags, reasons,
  evidence_json, sandbox_level, device_model, wall_seconds, created_at)
VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?))sql"));
  auto b = [](bool x) { return static_cast<int64_t>(x ? 1 : 0); };
  st.Bind(1, v.key.run_id).Bind(2, v.key.task_id).Bind(3, v.key.sample_id);
  st.Bind(4, v.cache_key).Bind(5, b(v.cacheable)).Bind(6, b(v.from_cache)).Bind(7, v.outcome);
  st.Bind(8, b(v.valid)).Bind(9, b(v.syntax_ok)).Bind(10, b(v.functionality_ok));
  st.Bind(11, b(v.compiled)).Bind(12, b(v.correct)).Bind(13, v.speedup);
  st.Bind(14, ToJsonArray(v.flags)).Bind(15, ToJsonArray(v.reasons));
  st.Bind(16, v.evidence_json.empty() ? std::string("{}") : v.evidence_json);
  st.Bind(17, v.sandbox_level).Bind(18, v.device_model).Bind(19, v.wall_seconds);
  st.Bind(20, v.created_at.empty() ? NowUtc() : v.created_at);
  TRITONRL_RETURN_IF_ERROR(st.Run());

  ASSIGN_OR_RETURN(ts, db.Prepare("INSERT INTO stage_timings(run_id, task_id, sample_id, stage, "
                                  "seconds) VALUES(?, ?, ?, ?, ?)"));
  for (const auto& t : v.stage_timings) {
    ts.Reset();
    ts.Bind(1, v.key.run_id).Bind(2, v.key.task_id).Bind(3, v.key.sample_id);
    TRITONRL_RETURN_IF_ERROR(ts.Bind(4, t.stage).Bind(5, t.seconds).Run());
  }
  ASSIGN_OR_RETURN(tr, db.Prepare(R"sql(
INSERT INTO trial_stats(run_id, task_id, sample_id, subject, variant, trials, median_ms, mean_ms,
  min_ms, max_ms, stddev_ms) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?))sql"));
  for (const auto& t : v.trial_stats) {
    tr.Reset();
    tr.Bind(1, v.key.run_id).Bind(2, v.key.task_id).Bind(3, v.key.sample_id);
    tr.Bind(4, t.subject).Bind(5, t.variant).Bind(6, static_cast<int64_t>(t.trials));
    tr.Bind(7, t.median_ms).Bind(8, t.mean_ms).Bind(9, t.min_ms).Bind(10, t.max_ms);
    TRITONRL_RETURN_IF_ERROR(tr.Bind(11, t.stddev_ms).Run());
  }
  return Status::Ok();
}

constexpr const char* kVerdictColumns =
    "run_id, task_id, sample_id, cache_key, cacheable, from_cache, outcome, valid, syntax_ok, "
    "functionality_ok, compiled, correct, speedup, flags, reasons, evidence_json, sandbox_level, "
    "device_model, wall_seconds, created_at";

Result<VerdictRecord> ReadVerdictRow(const Db& db, const Stmt& st) {
  VerdictRecord v;
  v.key = {st.Text(0), st.Text(1), st.Text(2)};
  v.cache_key = st.Text(3);
  v.cacheable = st.Int(4) != 0;
  v.from_cache = st.Int(5) != 0;
  v.outcome = st.Text(6);
  v.valid = st.Int(7) != 0;
  v.syntax_ok = st.Int(8) != 0;
  v.functionality_ok = st.Int(9) != 0;
  v.compiled = st.Int(10) != 0;
  v.correct = st.Int(11) != 0;
  if (!st.IsNull(12)) v.speedup = st.Double(12);
  ASSIGN_OR_RETURN(flags, FromJsonArray(db, st.Text(13)));
  ASSIGN_OR_RETURN(reasons, FromJsonArray(db, st.Text(14)));
  v.flags = std::move(flags);
  v.reasons = std::move(reasons);
  v.evidence_json = st.Text(15);
  v.sandbox_level = st.Text(16);
  v.device_model = st.Text(17);
  v.wall_seconds = st.Double(18);
  v.created_at = st.Text(19);
  return v;
}

Status LoadTimings(const Db& db, VerdictRecord& v) {
  ASSIGN_OR_RETURN(ts, db.Prepare("SELECT stage, seconds FROM stage_timings WHERE run_id = ? AND "
                                  "task_id = ? AND sample_id = ? ORDER BY rowid"));
  ts.Bind(1, v.key.run_id).Bind(2, v.key.task_id).Bind(3, v.key.sample_id);
  for (;;) {
    ASSIGN_OR_RETURN(row, ts.Step());
    if (!row) break;
    v.stage_timings.push_back({ts.Text(0), ts.Double(1)});
  }
  ASSIGN_OR_RETURN(tr, db.Prepare(R"sql(
SELECT subject, variant, trials, median_ms, mean_ms, min_ms, max_ms, stddev_ms FROM trial_stats
WHERE run_id = ? AND task_id = ? AND sample_id = ? ORDER BY rowid)sql"));
  tr.Bind(1, v.key.run_id).Bind(2, v.key.task_id).Bind(3, v.key.sample_id);
  for (;;) {
    ASSIGN_OR_RETURN(row, tr.Step());
    if (!row) break;
    TrialStats t;
    t.subject = tr.Text(0);
    t.variant = tr.Text(1);
    t.trials = static_cast<int>(tr.Int(2));
    t.median_ms = tr.Double(3);
    t.mean_ms = tr.Double(4);
    t.min_ms = tr.Double(5);
    t.max_ms = tr.Double(6);
    t.stddev_ms = tr.Double(7);
    v.trial_stats.push_back(std::move(t));
  }
  return Status::Ok();
}

Result<std::optional<VerdictRecord>> QueryOneVerdict(const Db& db, Stmt& st) {
  ASSIGN_OR_RETURN(row, st.Step());
  if (!row) return std::optional<VerdictRecord>();
  ASSIGN_OR_RETURN(v, ReadVerdictRow(db, st));
  TRITONRL_RETURN_IF_ERROR(LoadTimings(db, v));
  return std::optional<VerdictRecord>(std::move(v));
}

constexpr const char* kRunColumns =
    "id, started_at, ended_at, config_json, host, device_model, tool_version, git_revision, "
    "sample_file, sample_file_hash, shard";

RunInfo ReadRunRow(const Stmt& st) {
  RunInfo r;
  r.id = st.Text(0);
  r.started_at = st.Text(1);
  r.ended_at = st.Text(2);
  r.config_json = st.Text(3);
  r.host = st.Text(4);
  r.device_model = st.Text(5);
  r.tool_version = st.Text(6);
  r.git_revision = st.Text(7);
  r.sample_file = st.Text(8);
  r.sample_file_hash = st.Text(9);
  r.shard = st.Text(10);
  return r;
}

// Brings the file to kSchemaVersion, or explains why it cannot.
Status Migrate(const Db& db, bool read_only) {
  ASSIGN_OR_RETURN(version, db.QueryInt("PRAGMA user_version"));
  ASSIGN_OR_RETURN(app_id, db.QueryInt("PRAGMA application_id"));
  if (version > kSchemaVersion) {
    return Status::FailedPrecondition(db.path() + ": store schema version " +
                                      std::to_string(version) + " is newer than this tritonrl (" +
                                      std::to_string(kSchemaVersion) + "); use a newer tritonrl");
  }
  if (version == 0) {
    ASSIGN_OR_RETURN(tables, db.QueryInt("SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE "
                                         "'sqlite_%'"));
    if (tables > 0 || app_id != 0) {
      return Status::FailedPrecondition(db.path() + ": a SQLite database but not a tritonrl store");
    }
  } else if (app_id != kApplicationId) {
    return Status::FailedPrecondition(db.path() + ": a SQLite database but not a tritonrl store");
  }
  if (version == kSchemaVersion) return Status::Ok();
  if (read_only) {
    return Status::FailedPrecondition(
        db.path() + ": store schema version " + std::to_string(version) + " needs migrating to " +
        std::to_string(kSchemaVersion) + "; open it once read-write (for example tritonrl report)");
  }
  ASSIGN_OR_RETURN(tx, Transaction::Begin(db));
  // Re-read inside the write lock: another process may have migrated meanwhile.
  ASSIGN_OR_RETURN(v2, db.QueryInt("PRAGMA user_version"));
  for (int64_t v = v2; v < kSchemaVersion; ++v) {
    TRITONRL_RETURN_IF_ERROR(db.Exec(kMigrations[v]));
  }
  TRITONRL_RETURN_IF_ERROR(db.Exec("PRAGMA application_id = " + std::to_string(kApplicationId)));
  TRITONRL_RETURN_IF_ERROR(db.Exec("PRAGMA user_version = " + std::to_string(kSchemaVersion)));
  return tx.Commit();
}

}  // namespace

// ---- Open ------------------------------------------------------------------

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Result<Store> Store::Open(const std::string& path, const OpenOptions& options) {
  int flags = SQLITE_OPEN_NOMUTEX;  // one connection per thread (documented)
  if (options.read_only) {
    flags |= SQLITE_OPEN_READONLY;
  } else {
    flags |= SQLITE_OPEN_READWRITE;
    if (options.create) flags |= SQLITE_OPEN_CREATE;
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  {
    auto db = Db::Open(path, flags);
    if (!db.ok()) return db.status();
    impl->db = std::move(db).value();
  }
  const Db& db = impl->db;
  sqlite3_busy_timeout(db.handle(), options.busy_timeout_ms);
  // The first read of the header is where a non-database file shows itself.
  auto probe = db.QueryInt("PRAGMA user_version");
  if (!probe.ok()) {
    return Status(probe.status().code() == StatusCode::kCorruption
                      ? Status::Corruption(probe.status().message() +
                                           " (not a tritonrl store, or a corrupt one)")
                      : probe.status());
  }
  if (!options.read_only) {
    // WAL: readers never block the writer and a crash mid-commit leaves the last
    // committed state (the uncommitted tail of the WAL is ignored on recovery).
    ASSIGN_OR_RETURN(mode, db.QueryText("PRAGMA journal_mode = WAL"));
    if (mode != "wal") {
      return Status::Unavailable(path + ": cannot enable WAL journal mode (got " + mode + ")");
    }
  }
  // FULL: a commit is on disk before PutResult returns, so a verdict that the engine
  // reported survives power loss too; one fsync per verdict is cheap next to seconds
  // of evaluation. NORMAL survives process crashes (kill -9) but not power loss.
  TRITONRL_RETURN_IF_ERROR(db.Exec(options.synchronous_full ? "PRAGMA synchronous = FULL"
                                                            : "PRAGMA synchronous = NORMAL"));
  TRITONRL_RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys = ON"));
  TRITONRL_RETURN_IF_ERROR(Migrate(db, options.read_only));
  Store store(std::move(impl));
  if (options.check_integrity) {
    ASSIGN_OR_RETURN(res, db.QueryText("PRAGMA quick_check"));
    if (res != "ok") return Status::Corruption(path + ": integrity check failed: " + res);
  }
  return store;
}

const std::string& Store::path() const {
  return impl_->db.path();
}

Status Store::CheckIntegrity() {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(st, db.Prepare("PRAGMA integrity_check"));
  std::string problems;
  int n = 0;
  for (;;) {
    ASSIGN_OR_RETURN(row, st.Step());
    if (!row) break;
    std::string line = st.Text(0);
    if (line == "ok") continue;
    if (n++ < 5) problems += (problems.empty() ? "" : "; ") + line;
  }
  ASSIGN_OR_RETURN(fk, db.Prepare("PRAGMA foreign_key_check"));
  for (;;) {
    ASSIGN_OR_RETURN(row, fk.Step());
    if (!row) break;
    if (n++ < 5) problems += (problems.empty() ? "" : "; ") + ("dangling row in " + fk.Text(0));
  }
  if (n == 0) return Status::Ok();
  return Status::Corruption(db.path() + ": integrity check found " + std::to_string(n) +
                            " problem(s): " + problems);
}

Result<int> Store::SchemaVersion() {
  ASSIGN_OR_RETURN(v, impl_->db.QueryInt("PRAGMA user_version"));
  return static_cast<int>(v);
}

// ---- Runs ------------------------------------------------------------------

Status Store::BeginRun(const RunInfo& run) {
  const Db& db = impl_->db;
  if (run.id.empty()) return Status::InvalidArgument(db.path() + ": run without id");
  std::string started = run.started_at.empty() ? NowUtc() : run.started_at;
  ASSIGN_OR_RETURN(tx, Transaction::Begin(db));
  ASSIGN_OR_RETURN(q, db.Prepare("SELECT config_json FROM runs WHERE id = ?"));
  q.Bind(1, run.id);
  ASSIGN_OR_RETURN(exists, q.Step());
  if (exists) {
    if (CanonicalJson(q.Text(0)) != CanonicalJson(run.config_json)) {
      return Status::FailedPrecondition(db.path() + ": run " + run.id +
                                        " exists with a different configuration; resume it with "
                                        "the same options or start a new run");
    }
    ASSIGN_OR_RETURN(u, db.Prepare("UPDATE runs SET ended_at = NULL WHERE id = ?"));
    TRITONRL_RETURN_IF_ERROR(u.Bind(1, run.id).Run());
  } else {
    ASSIGN_OR_RETURN(ins, db.Prepare(std::string("INSERT INTO runs(") + kRunColumns +
                                     ") VALUES(?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)"));
    ins.Bind(1, run.id).Bind(2, started).Bind(3, run.config_json).Bind(4, run.host);
    ins.Bind(5, run.device_model).Bind(6, run.tool_version).Bind(7, run.git_revision);
    ins.Bind(8, run.sample_file).Bind(9, run.sample_file_hash).Bind(10, run.shard);
    TRITONRL_RETURN_IF_ERROR(ins.Run());
  }
  ASSIGN_OR_RETURN(part, db.Prepare(R"sql(
INSERT INTO run_parts(run_id, host, shard, device_model, started_at, ended_at)
VALUES(?, ?, ?, ?, ?, NULL)
ON CONFLICT(run_id, host, shard) DO UPDATE SET ended_at = NULL)sql"));
  part.Bind(1, run.id).Bind(2, run.host).Bind(3, run.shard).Bind(4, run.device_model);
  TRITONRL_RETURN_IF_ERROR(part.Bind(5, started).Run());
  return tx.Commit();
}

Status Store::EndRun(const std::string& run_id, const std::string& host, const std::string& shard,
                     const std::string& ended_at) {
  const Db& db = impl_->db;
  std::string ended = ended_at.empty() ? NowUtc() : ended_at;
  ASSIGN_OR_RETURN(tx, Transaction::Begin(db));
  ASSIGN_OR_RETURN(u, db.Prepare("UPDATE runs SET ended_at = ? WHERE id = ?"));
  TRITONRL_RETURN_IF_ERROR(u.Bind(1, ended).Bind(2, run_id).Run());
  if (db.Changes() == 0) return Status::NotFound(db.path() + ": no run " + run_id);
  ASSIGN_OR_RETURN(p,
                   db.Prepare("UPDATE run_parts SET ended_at = ? WHERE run_id = ? AND host = ? AND "
                              "shard = ?"));
  TRITONRL_RETURN_IF_ERROR(p.Bind(1, ended).Bind(2, run_id).Bind(3, host).Bind(4, shard).Run());
  return tx.Commit();
}

Result<std::optional<RunInfo>> Store::GetRun(const std::string& run_id) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(q, db.Prepare(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?"));
  q.Bind(1, run_id);
  ASSIGN_OR_RETURN(row, q.Step());
  if (!row) return std::optional<RunInfo>();
  return std::optional<RunInfo>(ReadRunRow(q));
}

Result<std::vector<RunPart>> Store::GetRunParts(const std::string& run_id) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(q, db.Prepare("SELECT host, shard, device_model, started_at, ended_at FROM "
                                 "run_parts WHERE run_id = ? ORDER BY shard, host"));
  q.Bind(1, run_id);
  std::vector<RunPart> out;
  for (;;) {
    ASSIGN_OR_RETURN(row, q.Step());
    if (!row) break;
    out.push_back({q.Text(0), q.Text(1), q.Text(2), q.Text(3), q.Text(4)});
  }
  return out;
}

Result<std::vector<RunInfo>> Store::ListRuns() {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(
      q, db.Prepare(std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY started_at, id"));
  std::vector<RunInfo> out;
  for (;;) {
    ASSIGN_OR_RETURN(row, q.Step());
    if (!row) break;
    out.push_back(ReadRunRow(q));
  }
  return out;
}

// ---- Tasks and samples -----------------------------------------------------

Status Store::PutTask(const TaskRecord& task) {
  const Db& db = impl_->db;
  if (task.id.empty()) return Status::InvalidArgument(db.path() + ": task without id");
  std::string hash = task.content_hash;
  if (hash.empty()) hash = Sha256Hex(task.content);
  ASSIGN_OR_RETURN(tx, Transaction::Begin(db));
  bool has_content = !task.content.empty();
  if (has_content) TRITONRL_RETURN_IF_ERROR(PutBlob(db, hash, task.content));
  ASSIGN_OR_RETURN(st, db.Prepare(R"sql(
INSERT INTO tasks(id, content_hash, suite_path, level, metadata_json, has_content)
VALUES(?, ?, ?, ?, ?, ?)
ON CONFLICT(id, content_hash) DO UPDATE SET has_content = max(has_content, excluded.has_content))sql"));
  st.Bind(1, task.id).Bind(2, hash).Bind(3, task.suite_path).Bind(4, int64_t{task.level});
  st.Bind(5, task.metadata_json.empty() ? std::string("{}") : task.metadata_json);
  TRITONRL_RETURN_IF_ERROR(st.Bind(6, int64_t{has_content ? 1 : 0}).Run());
  return tx.Commit();
}

Result<std::vector<TaskRecord>> Store::ListTasks(const std::string& run_id) {
  const Db& db = impl_->db;
  std::string sql =
      run_id.empty()
          ? "SELECT id, content_hash, suite_path, level, metadata_json FROM tasks ORDER BY id"
          : "SELECT DISTINCT t.id, t.content_hash, t.suite_path, t.level, t.metadata_json FROM "
            "tasks t JOIN samples s ON s.task_id = t.id AND s.task_hash = t.content_hash WHERE "
            "s.run_id = ? ORDER BY t.id";
  ASSIGN_OR_RETURN(q, db.Prepare(sql));
  if (!run_id.empty()) q.Bind(1, run_id);
  std::vector<TaskRecord> out;
  for (;;) {
    ASSIGN_OR_RETURN(row, q.Step());
    if (!row) break;
    TaskRecord t;
    t.id = q.Text(0);
    t.content_hash = q.Text(1);
    t.suite_path = q.Text(2);
    t.level = static_cast<int>(q.Int(3));
    t.metadata_json = q.Text(4);
    out.push_back(std::move(t));
  }
  return out;
}

Status Store::PutSample(const SampleRecord& sample) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(tx, Transaction::Begin(db));
  TRITONRL_RETURN_IF_ERROR(PutSampleRow(db, sample));
  return tx.Commit();
}

Result<std::optional<SampleRecord>> Store::GetSample(const SampleKey& key) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(q, db.Prepare("SELECT task_hash, text_kind, text_hash, code_hash FROM samples "
                                 "WHERE run_id = ? AND task_id = ? AND sample_id = ?"));
  q.Bind(1, key.run_id).Bind(2, key.task_id).Bind(3, key.sample_id);
  ASSIGN_OR_RETURN(row, q.Step());
  if (!row) return std::optional<SampleRecord>();
  SampleRecord s;
  s.key = key;
  s.task_hash = q.Text(0);
  s.text_kind = q.Text(1);
  ASSIGN_OR_RETURN(text, GetBlob(db, q.Text(2)));
  s.text = std::move(text);
  if (!q.IsNull(3)) {
    ASSIGN_OR_RETURN(code, GetBlob(db, q.Text(3)));
    s.code = std::move(code);
  }
  return std::optional<SampleRecord>(std::move(s));
}

// ---- Results ---------------------------------------------------------------

Status Store::PutResult(const EvalResult& result) {
  return PutResults({result});
}

Status Store::PutResults(const std::vector<EvalResult>& results) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(tx, Transaction::Begin(db));
  for (const auto& r : results) {
    TRITONRL_RETURN_IF_ERROR(PutSampleRow(db, r.sample));
    VerdictRecord v = r.verdict;
    v.key = r.sample.key;
    TRITONRL_RETURN_IF_ERROR(PutVerdictRows(db, v));
  }
  if (impl_->options.before_commit) impl_->options.before_commit();
  return tx.Commit();
}

Result<std::optional<VerdictRecord>> Store::Lookup(const std::string& cache_key) {
  const Db& db = impl_->db;
  if (cache_key.empty()) return std::optional<VerdictRecord>();
  ASSIGN_OR_RETURN(q, db.Prepare(std::string("SELECT ") + kVerdictColumns +
                                 " FROM verdicts WHERE cache_key = ? AND cacheable = 1 AND "
                                 "cache_key <> '' ORDER BY created_at DESC, rowid DESC LIMIT 1"));
  q.Bind(1, cache_key);
  return QueryOneVerdict(db, q);
}

Result<std::optional<std::string>> Store::LookupReferenceTiming(const std::string& key) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(q, db.Prepare("SELECT phase_json FROM reference_timings WHERE key = ?"));
  q.Bind(1, key);
  ASSIGN_OR_RETURN(row, q.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(q.Text(0));
}

Status Store::PutReferenceTiming(const std::string& key, const std::string& task_id,
                                 const std::string& device_model, const std::string& phase_json) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(st, db.Prepare("INSERT OR REPLACE INTO reference_timings(key, task_id, "
                                  "device_model, phase_json, created_at) VALUES(?, ?, ?, ?, ?)"));
  return st.Bind(1, key)
      .Bind(2, task_id)
      .Bind(3, device_model)
      .Bind(4, phase_json)
      .Bind(5, NowUtc())
      .Run();
}

Result<std::vector<SampleKey>> Store::DoneSamples(const std::string& run_id) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(q, db.Prepare("SELECT task_id, sample_id FROM verdicts WHERE run_id = ? ORDER "
                                 "BY task_id, sample_id"));
  q.Bind(1, run_id);
  std::vector<SampleKey> out;
  for (;;) {
    ASSIGN_OR_RETURN(row, q.Step());
    if (!row) break;
    out.push_back({run_id, q.Text(0), q.Text(1)});
  }
  return out;
}

Result<std::vector<VerdictRecord>> Store::LoadVerdicts(const std::string& run_id) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(q, db.Prepare(std::string("SELECT ") + kVerdictColumns +
                                 " FROM verdicts WHERE run_id = ? ORDER BY task_id, sample_id"));
  q.Bind(1, run_id);
  std::vector<VerdictRecord> out;
  for (;;) {
    ASSIGN_OR_RETURN(row, q.Step());
    if (!row) break;
    ASSIGN_OR_RETURN(v, ReadVerdictRow(db, q));
    out.push_back(std::move(v));
  }
  for (auto& v : out) TRITONRL_RETURN_IF_ERROR(LoadTimings(db, v));
  return out;
}

Result<std::optional<VerdictRecord>> Store::GetVerdict(const SampleKey& key) {
  const Db& db = impl_->db;
  ASSIGN_OR_RETURN(q, db.Prepare(std::string("SELECT ") + kVerdictColumns +
                                 " FROM verdicts WHERE run_id = ? AND task_id = ? AND "
                                 "sample_id = ?"));
  q.Bind(1, key.run_id).Bind(2, key.task_id).Bind(3, key.sample_id);
  return QueryOneVerdict(db, q);
}

}  // namespace tritonrl::store
