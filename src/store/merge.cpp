// Merging stores written by several hosts (each evaluating a shard of one sample file).
// Every table has a natural key, so a merge is INSERT OR IGNORE by key, which makes it
// idempotent; keys present on both sides with different content are reported.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"
#include "store/store_internal.h"

namespace tritonrl::store {

namespace {

using sql::Db;

#define ASSIGN_OR_RETURN(lhs, expr)           \
  auto lhs##_r = (expr);                      \
  if (!lhs##_r.ok()) return lhs##_r.status(); \
  auto lhs = std::move(lhs##_r).value()

// Content columns of a verdict: equal in all of these means the same verdict.
constexpr const char* kVerdictDiffers =
    "m.outcome IS NOT s.outcome OR m.valid IS NOT s.valid OR m.syntax_ok IS NOT s.syntax_ok OR "
    "m.functionality_ok IS NOT s.functionality_ok OR m.compiled IS NOT s.compiled OR "
    "m.correct IS NOT s.correct OR m.speedup IS NOT s.speedup OR m.flags IS NOT s.flags OR "
    "m.reasons IS NOT s.reasons OR m.cache_key IS NOT s.cache_key OR "
    "m.evidence_json IS NOT s.evidence_json";

constexpr const char* kSameKey =
    "m.run_id = s.run_id AND m.task_id = s.task_id AND m.sample_id = s.sample_id";

Result<int64_t> ExecCount(const Db& db, const std::string& sql) {
  TRITONRL_RETURN_IF_ERROR(db.Exec(sql));
  return db.Changes();
}

std::string SpeedupText(const sql::Stmt& q, int col) {
  return q.IsNull(col) ? std::string("none") : std::to_string(q.Double(col));
}

Status CollectConflicts(const Db& db, const std::string& src_path,
                        std::vector<std::string>& conflicts) {
  {
    ASSIGN_OR_RETURN(q, db.Prepare("SELECT s.id, m.config_json, s.config_json FROM src.runs s "
                                   "JOIN main.runs m ON m.id = s.id"));
    for (;;) {
      ASSIGN_OR_RETURN(row, q.Step());
      if (!row) break;
      if (CanonicalJson(q.Text(1)) != CanonicalJson(q.Text(2))) {
        conflicts.push_back("run " + q.Text(0) + ": configuration differs in " + src_path +
                            " (kept the destination's)");
      }
    }
  }
  {
    ASSIGN_OR_RETURN(q, db.Prepare(std::string("SELECT s.run_id, s.task_id, s.sample_id FROM "
                                               "src.samples s JOIN main.samples m ON ") +
                                   kSameKey +
                                   " WHERE m.text_hash IS NOT s.text_hash OR m.task_hash IS NOT "
                                   "s.task_hash ORDER BY 1, 2, 3"));
    for (;;) {
      ASSIGN_OR_RETURN(row, q.Step());
      if (!row) break;
      conflicts.push_back("sample " + q.Text(0) + " " + q.Text(1) + " " + q.Text(2) +
                          ": different text or task in " + src_path + " (kept the destination's)");
    }
  }
  {
    ASSIGN_OR_RETURN(q, db.Prepare(std::string("SELECT s.run_id, s.task_id, s.sample_id, "
                                               "m.outcome, m.speedup, s.outcome, s.speedup FROM "
                                               "src.verdicts s JOIN main.verdicts m ON ") +
                                   kSameKey + " WHERE " + kVerdictDiffers + " ORDER BY 1, 2, 3"));
    for (;;) {
      ASSIGN_OR_RETURN(row, q.Step());
      if (!row) break;
      conflicts.push_back("verdict " + q.Text(0) + " " + q.Text(1) + " " + q.Text(2) +
                          ": destination has " + q.Text(3) + " (speedup " + SpeedupText(q, 4) +
                          "), " + src_path + " has " + q.Text(5) + " (speedup " +
                          SpeedupText(q, 6) + "); kept the destination's");
    }
  }
  return Status::Ok();
}

Status MergeOne(const Db& db, const std::string& src_path, MergeSourceSummary& sum,
                std::vector<std::string>& conflicts) {
  ASSIGN_OR_RETURN(tx, sql::Transaction::Begin(db));
  TRITONRL_RETURN_IF_ERROR(CollectConflicts(db, src_path, conflicts));
  {
    ASSIGN_OR_RETURN(q, db.Prepare(std::string("SELECT count(*) FROM src.verdicts s JOIN "
                                               "main.verdicts m ON ") +
                                   kSameKey + " WHERE NOT (" + kVerdictDiffers + ")"));
    ASSIGN_OR_RETURN(row, q.Step());
    if (row) sum.verdicts_identical = q.Int(0);
  }
  // Verdicts to add: absent in the destination and not sitting on a conflicting sample.
  TRITONRL_RETURN_IF_ERROR(db.Exec(std::string(R"sql(
DROP TABLE IF EXISTS temp.merge_new;
CREATE TEMP TABLE merge_new AS
SELECT s.run_id, s.task_id, s.sample_id FROM src.verdicts s
WHERE NOT EXISTS (SELECT 1 FROM main.verdicts m WHERE )sql") +
                                   kSameKey + R"sql()
  AND NOT EXISTS (SELECT 1 FROM main.samples m JOIN src.samples ss
                  ON ss.run_id = m.run_id AND ss.task_id = m.task_id AND ss.sample_id = m.sample_id
                  WHERE )sql" + kSameKey +
                                   R"sql( AND (m.text_hash IS NOT ss.text_hash OR
                                               m.task_hash IS NOT ss.task_hash));
)sql"));
  TRITONRL_RETURN_IF_ERROR(db.Exec(
      "INSERT OR IGNORE INTO main.blobs(hash, content) SELECT hash, content FROM src.blobs"));
  ASSIGN_OR_RETURN(runs, ExecCount(db, R"sql(
INSERT OR IGNORE INTO main.runs(id, started_at, ended_at, config_json, host, device_model,
  tool_version, git_revision, sample_file, sample_file_hash, shard)
SELECT id, started_at, ended_at, config_json, host, device_model, tool_version, git_revision,
  sample_file, sample_file_hash, shard FROM src.runs)sql"));
  sum.runs_added = runs;
  // A run present on both sides (shards of one run) spans both time ranges.
  TRITONRL_RETURN_IF_ERROR(db.Exec(R"sql(
UPDATE main.runs SET
  started_at = min(started_at, (SELECT s.started_at FROM src.runs s WHERE s.id = runs.id)),
  ended_at = nullif(max(coalesce(ended_at, ''),
                        coalesce((SELECT s.ended_at FROM src.runs s WHERE s.id = runs.id), '')), '')
WHERE id IN (SELECT id FROM src.runs))sql"));
  TRITONRL_RETURN_IF_ERROR(db.Exec(R"sql(
INSERT OR IGNORE INTO main.run_parts(run_id, host, shard, device_model, started_at, ended_at)
SELECT run_id, host, shard, device_model, started_at, ended_at FROM src.run_parts)sql"));
  ASSIGN_OR_RETURN(tasks, ExecCount(db, R"sql(
INSERT OR IGNORE INTO main.tasks(id, content_hash, suite_path, level, metadata_json, has_content)
SELECT id, content_hash, suite_path, level, metadata_json, has_content FROM src.tasks)sql"));
  sum.tasks_added = tasks;
  ASSIGN_OR_RETURN(samples, ExecCount(db, R"sql(
INSERT OR IGNORE INTO main.samples(run_id, task_id, sample_id, task_hash, text_kind, text_hash,
  code_hash)
SELECT run_id, task_id, sample_id, task_hash, text_kind, text_hash, code_hash FROM src.samples)sql"));
  sum.samples_added = samples;
  ASSIGN_OR_RETURN(verdicts, ExecCount(db, R"sql(
INSERT INTO main.verdicts(run_id, task_id, sample_id, cache_key, cacheable, from_cache, outcome,
  valid, syntax_ok, functionality_ok, compiled, correct, speedup, flags, reasons, evidence_json,
  sandbox_level, device_model, wall_seconds, created_at)
SELECT run_id, task_id, sample_id, cache_key, cacheable, from_cache, outcome, valid, syntax_ok,
  functionality_ok, compiled, correct, speedup, flags, reasons, evidence_json, sandbox_level,
  device_model, wall_seconds, created_at FROM src.verdicts
WHERE (run_id, task_id, sample_id) IN (SELECT run_id, task_id, sample_id FROM temp.merge_new))sql"));
  sum.verdicts_added = verdicts;
  TRITONRL_RETURN_IF_ERROR(db.Exec(R"sql(
INSERT INTO main.stage_timings(run_id, task_id, sample_id, stage, seconds)
SELECT run_id, task_id, sample_id, stage, seconds FROM src.stage_timings
WHERE (run_id, task_id, sample_id) IN (SELECT run_id, task_id, sample_id FROM temp.merge_new)
ORDER BY rowid;
INSERT INTO main.trial_stats(run_id, task_id, sample_id, subject, variant, trials, median_ms,
  mean_ms, min_ms, max_ms, stddev_ms)
SELECT run_id, task_id, sample_id, subject, variant, trials, median_ms, mean_ms, min_ms, max_ms,
  stddev_ms FROM src.trial_stats
WHERE (run_id, task_id, sample_id) IN (SELECT run_id, task_id, sample_id FROM temp.merge_new)
ORDER BY rowid;
DROP TABLE temp.merge_new;
INSERT OR IGNORE INTO main.reference_timings(key, task_id, device_model, phase_json, created_at)
SELECT key, task_id, device_model, phase_json, created_at FROM src.reference_timings;)sql"));
  return tx.Commit();
}

}  // namespace

Result<MergeSummary> MergeStores(const std::string& dst_path,
                                 const std::vector<std::string>& src_paths) {
  ASSIGN_OR_RETURN(dst, Store::Open(dst_path));
  const Db& db = StoreAccess::Db(dst);
  MergeSummary summary;
  std::error_code ec;
  auto dst_canon = std::filesystem::weakly_canonical(dst_path, ec);
  for (const auto& src_path : src_paths) {
    MergeSourceSummary sum;
    sum.path = src_path;
    std::error_code ec2;
    if (!ec && std::filesystem::weakly_canonical(src_path, ec2) == dst_canon && !ec2) {
      summary.sources.push_back(sum);  // merging a store into itself adds nothing
      continue;
    }
    {
      // Validates the source (exists, is a store, same schema) before touching dst.
      OpenOptions ro;
      ro.read_only = true;
      ASSIGN_OR_RETURN(src, Store::Open(src_path, ro));
      TRITONRL_RETURN_IF_ERROR(src.CheckIntegrity());
    }
    {
      ASSIGN_OR_RETURN(att, db.Prepare("ATTACH DATABASE ? AS src"));
      TRITONRL_RETURN_IF_ERROR(att.Bind(1, src_path).Run());
    }
    Status st = MergeOne(db, src_path, sum, summary.conflicts);
    Status detach = db.Exec("DETACH DATABASE src");
    if (!st.ok()) return st;
    TRITONRL_RETURN_IF_ERROR(detach);
    summary.sources.push_back(sum);
  }
  return summary;
}

}  // namespace tritonrl::store
