// The results database: runs, tasks, samples, verdicts and timings in one SQLite
// file (WAL mode), a content-addressed verdict cache, resume, and merge.
//
// Thread safety: a Store is one SQLite connection and is NOT thread-safe; use one
// Store per thread (or the VerdictWriter below, which owns its own connection).
// Several connections and processes may open the same file: WAL lets readers run
// beside one writer, and the busy timeout makes writers wait for each other.
//
// Durability: every Put* call is one transaction; a process killed at any point
// (kill -9) leaves every committed result and no partial one. See docs/store.md.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sha256.h"  // Sha256Hex: content hashes of tasks and texts
#include "base/status.h"

namespace tritonrl::store {

// Schema version written to PRAGMA user_version by this build.
inline constexpr int kSchemaVersion = 2;

// What identical work means: the verdict of an evaluation is reused only when all
// of these are byte-identical (the config is canonicalised if it is JSON).
struct CacheKeyInput {
  std::string task_content;       // the task file's bytes
  std::string candidate;          // the exact text the verdict depends on (output or code)
  std::string eval_config_json;   // every option that can change a verdict or a timing
  std::string device_model;       // e.g. "NVIDIA H200" or "cpu"
  std::string evaluator_version;  // tool version; a new verifier invalidates old verdicts
};
// SHA-256 over the length-prefixed fields above (hex).
std::string ComputeCacheKey(const CacheKeyInput& in);

// Current time as ISO 8601 UTC with milliseconds, e.g. "2026-11-30T10:15:02.123Z".
std::string NowUtc();
// A fresh run id: "<UTC yyyymmddThhmmssZ>-<8 random hex>".
std::string NewRunId();

// Identifies one evaluated sample inside a store.
struct SampleKey {
  std::string run_id;
  std::string task_id;    // e.g. "level1/1_ReLU"
  std::string sample_id;  // the "sample" field of the JSONL line
  auto operator<=>(const SampleKey&) const = default;
};

struct RunInfo {
  std::string id;                  // NewRunId() or user-given; shards of one run share it
  std::string started_at;          // ISO 8601 UTC; NowUtc() if empty
  std::string ended_at;            // empty while the run is going
  std::string config_json = "{}";  // the eval configuration (same for all shards)
  std::string host;                // hostname of the writer
  std::string device_model;        // accelerator model, "cpu" if none
  std::string tool_version;        // tritonrl version
  std::string git_revision;        // source revision if known
  std::string sample_file;         // the JSONL the run evaluates (as given)
  std::string sample_file_hash;    // SHA-256 of that file's bytes
  std::string shard = "0/1";       // "i/n" of this writer
};

// One shard's part in a run (a run merged from several hosts has several).
struct RunPart {
  std::string host;
  std::string shard;
  std::string device_model;
  std::string started_at;
  std::string ended_at;
};

struct TaskRecord {
  std::string id;                    // task id, e.g. "level1/1_ReLU"
  std::string content_hash;          // Sha256Hex of the task file; computed from content if empty
  std::string content;               // the task file's bytes (stored once by hash); may be empty
  std::string suite_path;            // the suite folder as given
  int level = 0;                     // 1, 2, 3...; 0 if unknown
  std::string metadata_json = "{}";  // dtype, tolerances, variants...
};

struct SampleRecord {
  SampleKey key;
  std::string task_hash;             // content hash of the task evaluated against
  std::string text_kind = "output";  // "output" (full model output) or "code" (bare code)
  std::string text;                  // the JSONL line's output/code, stored once by hash
  std::string code;                  // code extracted from the output; empty if none
};

// Wall time of one pipeline stage (parse, static, compile, correctness, timing...).
struct StageTiming {
  std::string stage;
  double seconds = 0;
};

// Summary of the timed trials of one subject on one shape variant.
struct TrialStats {
  std::string subject;  // "reference" or "candidate"
  std::string variant;  // shape variant name ("large", "default", ...)
  int trials = 0;
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0, stddev_ms = 0;
};

struct VerdictRecord {
  SampleKey key;
  std::string cache_key;    // ComputeCacheKey(...); empty = never served from the cache
  bool cacheable = true;    // false for verdicts that must not be reused (infra failures)
  bool from_cache = false;  // this verdict was copied from an earlier identical evaluation
  std::string outcome;      // invalid_syntax, invalid_functionality, compile_error,
                            // runtime_error, timeout, incorrect, correct
  bool valid = false;       // syntax_ok && functionality_ok
  bool syntax_ok = false;
  bool functionality_ok = false;
  bool compiled = false;
  bool correct = false;
  std::optional<double> speedup;   // reference / candidate median time; none if not timed
  std::vector<std::string> flags;  // lazy_optimization, timing_inconsistent, implausible_speedup...
  std::vector<std::string> reasons;  // human-readable reasons (hostile text: escape on display)
  std::string evidence_json = "{}";  // full stage evidence (rule ids, spans, checks)
  std::string sandbox_level;         // e.g. "full", "no-seccomp" (degradation is recorded)
  std::string device_model;
  double wall_seconds = 0;  // total evaluation wall time
  std::string created_at;   // NowUtc() if empty
  std::vector<StageTiming> stage_timings;
  std::vector<TrialStats> trial_stats;
};

// A sample and its verdict, written together in one transaction.
struct EvalResult {
  SampleRecord sample;
  VerdictRecord verdict;  // verdict.key is taken from sample.key
};

struct OpenOptions {
  bool read_only = false;
  bool create = true;            // create the file if missing (ignored when read_only)
  int busy_timeout_ms = 30000;   // wait this long for another writer's lock
  bool synchronous_full = true;  // fsync every commit (power-loss safe); false = NORMAL
  bool check_integrity = false;  // run PRAGMA quick_check on open
  // Test hook: called inside each PutResult(s) transaction just before COMMIT.
  std::function<void()> before_commit;
};

// Summary of one merge source.
struct MergeSourceSummary {
  std::string path;
  int64_t runs_added = 0, tasks_added = 0, samples_added = 0, verdicts_added = 0;
  int64_t verdicts_identical = 0;  // already present with the same content (idempotence)
};
struct MergeSummary {
  std::vector<MergeSourceSummary> sources;
  // One line per conflicting duplicate: same key, different content (destination kept).
  std::vector<std::string> conflicts;
};

class Store {
 public:
  // Opens (creating and migrating if needed) the database at `path`. Errors name the file:
  // not a database, corrupt, schema newer than this build, I/O.
  static Result<Store> Open(const std::string& path, const OpenOptions& options = {});
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const;
  // PRAGMA integrity_check; ok or Corruption naming the file and the first problems.
  Status CheckIntegrity();
  // PRAGMA user_version of the open file.
  Result<int> SchemaVersion();

  // Records a run. If the id exists with the same config_json this resumes it (and adds this
  // host/shard part); a different config_json is FailedPrecondition.
  Status BeginRun(const RunInfo& run);
  // Sets ended_at (NowUtc() if empty) on the run and on this host/shard part.
  Status EndRun(const std::string& run_id, const std::string& host, const std::string& shard,
                const std::string& ended_at = "");
  Result<std::optional<RunInfo>> GetRun(const std::string& run_id);
  Result<std::vector<RunPart>> GetRunParts(const std::string& run_id);
  // All runs, oldest first.
  Result<std::vector<RunInfo>> ListRuns();

  // Idempotent insert of a task version (id, content_hash).
  Status PutTask(const TaskRecord& task);
  // All task versions referenced by a run's samples (or all tasks if run_id is empty);
  // `content` is not loaded (it can be large).
  Result<std::vector<TaskRecord>> ListTasks(const std::string& run_id = "");

  // Stores a sample without a verdict (optional; PutResult stores it too).
  Status PutSample(const SampleRecord& sample);
  Result<std::optional<SampleRecord>> GetSample(const SampleKey& key);

  // Stores sample + verdict + timings in one transaction; a verdict already stored under the
  // same key is replaced.
  Status PutResult(const EvalResult& result);
  // Several results in one transaction (all or none).
  Status PutResults(const std::vector<EvalResult>& results);

  // The cache: the newest cacheable verdict stored under `cache_key` (any run), or nullopt.
  Result<std::optional<VerdictRecord>> Lookup(const std::string& cache_key);

  // Resume: the (task, sample) keys of run_id that have a verdict, sorted.
  Result<std::vector<SampleKey>> DoneSamples(const std::string& run_id);

  // Reference timings kept across runs (the engine's TimingPhase as JSON), keyed by a hash
  // of the task file, the timed variant's protocol settings, the GPU model and the evaluator.
  Result<std::optional<std::string>> LookupReferenceTiming(const std::string& key);
  Status PutReferenceTiming(const std::string& key, const std::string& task_id,
                            const std::string& device_model, const std::string& phase_json);
  // The verdicts of a run with their timings, sorted by (task, sample).
  Result<std::vector<VerdictRecord>> LoadVerdicts(const std::string& run_id);
  Result<std::optional<VerdictRecord>> GetVerdict(const SampleKey& key);

 private:
  struct Impl;
  friend struct StoreAccess;  // merge and the writer reach the connection through it
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Merges the stores at `src_paths` into `dst_path` (created if missing). Rows are matched by
// natural keys, so merging the same source twice adds nothing. A duplicate key with different
// content is a conflict: the destination's row is kept and the conflict is listed. A source
// that cannot be opened aborts the merge before anything from it is written.
Result<MergeSummary> MergeStores(const std::string& dst_path,
                                 const std::vector<std::string>& src_paths);

// Writes EvalResults from a background thread with its own connection, committing in small
// batches (at most max_batch results or max_delay_ms after the first queued one). Submit is
// thread-safe. The first write error is kept and returned by Flush/Close; later Submits are
// dropped once an error happened (the caller sees it at the next Flush).
struct WriterOptions {
  OpenOptions open;
  int max_batch = 8;
  int max_delay_ms = 200;
};
class VerdictWriter {
 public:
  static Result<std::unique_ptr<VerdictWriter>> Open(const std::string& path,
                                                     const WriterOptions& options = {});
  ~VerdictWriter();  // Close()s; errors are lost, so call Close() yourself
  void Submit(EvalResult result);
  // Blocks until everything submitted so far is committed; returns the first error.
  Status Flush();
  // Flushes and stops the thread; idempotent.
  Status Close();

 private:
  struct Impl;
  explicit VerdictWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tritonrl::store
