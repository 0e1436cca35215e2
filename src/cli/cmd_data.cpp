// `tritonrl data synth|sft|import kernelbook`: training data (docs/data.md).
// synth writes candidate tasks and solutions, checks every solution with our own
// evaluator (in-process through src/scoring, data/verified.h: static + runtime) and every
// reference with the null-model audit, and keeps only tasks that pass both; the manifest, splits
// and statistics are rewritten atomically at the end, so a killed run leaves no half-written
// manifest (rerun it: generation is deterministic).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "cli/command.h"
#include "cli/scoring_progress.h"
#include "data/distill.h"
#include "data/sft.h"
#include "data/synth.h"
#include "data/verified.h"
#include "scoring/score_batch.h"
#include "task/audit.h"
#include "task/task.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using tritonrl::Result;
namespace data = tritonrl::data;
namespace sc = tritonrl::scoring;

struct SynthOptions {
  int n = 0;
  std::uint64_t seed = 0;
  std::string out;
  std::string device = "cpu";
  int jobs = 1;
  bool no_verify = false;
  bool keep_work = false;
  std::string python;
};

int WriteOrFail(const std::string& path, const std::string& text) {
  if (auto s = tritonrl::WriteFileAtomic(path, text); !s.ok()) {
    std::fprintf(stderr, "tritonrl data: %s\n", s.message().c_str());
    return 2;
  }
  return 0;
}

// Sample id -> why it is rejected ("" if verified), judged by our evaluator in-process
// (static + runtime, no timing; data/verified.h); a sample of a task the suite could not load
// has none. `db` keeps the verdicts, so a rerun resumes
// the samples it already judged (the run id derives from the batch).
Result<std::map<std::string, std::string>> Evaluate(const std::string& tasks_dir,
                                                    const std::vector<sc::Sample>& samples,
                                                    const std::string& db,
                                                    const std::string& device, int jobs,
                                                    const std::string& python) {
  sc::ScoringConfig config;
  config.tasks = tasks_dir;
  config.db = db;
  config.device = device;
  config.jobs = jobs;
  config.no_timing = true;
  config.python = python;
  auto scorer = sc::Scorer::Open(config);
  if (!scorer.ok()) return scorer.status();
  // A task file the suite could not load gets no verdict (its reader names it).
  std::vector<sc::Sample> known;
  for (const auto& s : samples) {
    if ((*scorer)->CheckTask(s.task).ok()) known.push_back(s);
  }
  std::fprintf(stderr, "tritonrl data: evaluating %zu samples on %s\n", known.size(),
               device.c_str());
  tritonrl::cli::ScoringProgress progress;
  sc::Callbacks callbacks;
  callbacks.on_note = [](const std::string& line) {
    std::fprintf(stderr, "tritonrl data: %s\n", line.c_str());
  };
  callbacks.on_verdict = [&](const sc::ScoredSample& s, std::size_t done, std::size_t total) {
    progress.OnVerdict(s, done, total);
  };
  auto judged = data::Judge(**scorer, known, callbacks);
  progress.Finish();
  return judged;
}

json Counts(const std::map<std::string, int>& m) {
  return json(m);
}

// Writes every generated task and its solution under OUT/tasks and OUT/solutions (emptied first).
int WriteCandidates(const SynthOptions& o, const std::vector<data::SynthTask>& tasks) {
  std::error_code ec;
  for (const char* sub : {"tasks", "solutions"}) {
    fs::remove_all(fs::path(o.out) / sub, ec);
    fs::create_directories(fs::path(o.out) / sub, ec);
    if (ec) {
      std::fprintf(stderr, "tritonrl data synth: cannot create %s/%s: %s\n", o.out.c_str(), sub,
                   ec.message().c_str());
      return 2;
    }
  }
  for (const auto& t : tasks) {
    if (int rc = WriteOrFail(o.out + "/tasks/" + t.id + ".py", t.reference); rc) return rc;
    if (int rc = WriteOrFail(o.out + "/solutions/" + t.id + ".py", t.solution); rc) return rc;
  }
  return 0;
}

// Our evaluator on every solution: task id -> why rejected, into `rejected`. A task the suite
// could not load has no verdict ("eval.no_verdict"; the audit names it malformed).
int VerifySolutions(const SynthOptions& o, const std::vector<data::SynthTask>& tasks,
                    const std::string& work, std::map<std::string, std::string>& rejected) {
  auto verdicts = Evaluate(o.out + "/tasks", data::SolutionSamples(tasks), work + "/verify.db",
                           o.device, o.jobs, o.python);
  if (!verdicts.ok()) {
    std::fprintf(stderr, "tritonrl data synth: evaluator: %s\n",
                 verdicts.status().message().c_str());
    return 2;
  }
  for (const auto& t : tasks) {
    auto it = verdicts->find(t.id);
    if (it == verdicts->end()) {
      rejected[t.id] = "eval.no_verdict";
    } else if (!it->second.empty()) {
      rejected[t.id] = it->second;
    }
  }
  return 0;
}

// The null-model audit of the references (zeros, mean, unchanged input must all fail), resumed
// from WORK/audit.jsonl; a failing or malformed task goes into `rejected`.
int AuditReferences(const SynthOptions& o, const std::string& work,
                    std::map<std::string, std::string>& rejected) {
  auto suite = tritonrl::task::LoadSuite(o.out + "/tasks");
  if (!suite.ok()) {
    std::fprintf(stderr, "tritonrl data synth: %s\n", suite.status().message().c_str());
    return 2;
  }
  for (const auto& e : suite->errors) {
    std::fprintf(stderr, "%s\n", e.ToString().c_str());
    rejected[fs::path(e.file).stem().string()] = "task.malformed";
  }
  tritonrl::task::AuditOptions audit;
  audit.device = o.device;
  audit.python = o.python;
  audit.jobs = o.jobs;
  if (o.device == "cpu") audit.variants = {"small"};
  std::fprintf(stderr, "tritonrl data synth: null-model audit of %zu references\n",
               suite->tasks.size());
  // Kept beside verify.db: an audit stopped part-way resumes after its last finished task.
  std::size_t audits_resumed = 0;
  auto results = tritonrl::task::RunAuditResumable(
      suite->tasks, audit, work + "/audit.jsonl", [](const auto&) {}, &audits_resumed);
  if (!results.ok()) {
    std::fprintf(stderr, "tritonrl data synth: audit: %s\n", results.status().message().c_str());
    return 2;
  }
  if (audits_resumed > 0)
    std::fprintf(stderr, "tritonrl data synth: %zu audits resumed from %s/audit.jsonl\n",
                 audits_resumed, work.c_str());
  for (const auto& r : *results) {
    if (r.status == "ok" || r.status == "skipped") continue;
    std::string why = "audit." + r.status;
    const auto passed = tritonrl::task::PassedNullModels(r);
    if (!passed.empty()) why += ":" + passed.front();
    rejected.emplace(r.task, why);
  }
  return 0;
}

// What `data synth` writes besides the task files, and what it prints.
struct SynthTally {
  std::string manifest;
  json splits = {{"train", json::array()},
                 {"heldout_pattern", json::array()},
                 {"heldout_shape", json::array()}};
  std::map<std::string, int> per_pattern, per_family, per_dtype, per_split, per_reason;
  json rejected_list = json::array();
};

// Drops the rejected tasks' files and tallies the kept ones.
SynthTally Tally(const SynthOptions& o, const std::vector<data::SynthTask>& tasks,
                 const std::map<std::string, std::string>& rejected) {
  SynthTally y;
  std::error_code ec;
  for (const auto& t : tasks) {
    auto it = rejected.find(t.id);
    if (it != rejected.end()) {
      fs::remove(fs::path(o.out) / "tasks" / (t.id + ".py"), ec);
      fs::remove(fs::path(o.out) / "solutions" / (t.id + ".py"), ec);
      y.rejected_list.push_back({{"task", t.id}, {"pattern", t.pattern}, {"reason", it->second}});
      ++y.per_reason[it->second.substr(0, it->second.find(':'))];
      continue;
    }
    y.manifest += data::ManifestRecord(t, !o.no_verify).dump() + "\n";
    y.splits[t.split].push_back(t.id);
    ++y.per_pattern[t.pattern];
    ++y.per_family[t.family];
    ++y.per_dtype[t.dtype];
    ++y.per_split[t.split];
  }
  return y;
}

int WriteSynthOutputs(const SynthOptions& o, std::size_t generated, std::size_t rejected,
                      const SynthTally& y) {
  json stats = {{"n", o.n},
                {"seed", o.seed},
                {"verified", !o.no_verify},
                {"device", o.no_verify ? "" : o.device},
                {"generated", generated},
                {"kept", generated - rejected},
                {"rejected", rejected},
                {"per_family", Counts(y.per_family)},
                {"per_pattern", Counts(y.per_pattern)},
                {"per_dtype", Counts(y.per_dtype)},
                {"per_split", Counts(y.per_split)},
                {"rejected_by_reason", Counts(y.per_reason)},
                {"rejected_tasks", y.rejected_list}};
  if (int rc = WriteOrFail(o.out + "/manifest.jsonl", y.manifest); rc) return rc;
  if (int rc = WriteOrFail(o.out + "/splits.json", y.splits.dump(2) + "\n"); rc) return rc;
  return WriteOrFail(o.out + "/stats.json", stats.dump(2) + "\n");
}

void PrintSynthSummary(const SynthOptions& o, std::size_t generated, std::size_t rejected,
                       const SynthTally& y) {
  fmt::print("generated {}  kept {}  rejected {}{}\n", generated, generated - rejected, rejected,
             o.no_verify ? "  (not verified: --no-verify)" : "");
  auto table = [](const char* title, const std::map<std::string, int>& m) {
    fmt::print("\n{:<40} {:>6}\n", title, "tasks");
    for (const auto& [k, v] : m) fmt::print("{:<40} {:>6}\n", k, v);
  };
  table("family", y.per_family);
  table("dtype", y.per_dtype);
  table("split", y.per_split);
  table("pattern", y.per_pattern);
  if (!y.per_reason.empty()) table("rejected because", y.per_reason);
  for (const auto& r : y.rejected_list) {
    fmt::print("rejected {} ({}): {}\n", r["task"].get<std::string>(),
               r["pattern"].get<std::string>(), r["reason"].get<std::string>());
  }
}

int RunSynth(const SynthOptions& o) {
  if (o.n < 1) {
    std::fprintf(stderr, "tritonrl data synth: --n must be at least 1\n");
    return 2;
  }
  const auto tasks = data::GenerateTasks(o.n, o.seed);
  if (int rc = WriteCandidates(o, tasks); rc) return rc;
  // task id -> why it was rejected ("stage.code"); absent: kept.
  std::map<std::string, std::string> rejected;
  if (!o.no_verify) {
    // verify.db and audit.jsonl stay until the run finishes: a run stopped part-way (a device
    // call's time limit) resumes from them, and a task already judged is not run again (the
    // caches key on code and task).
    const std::string work = o.out + "/.verify";
    std::error_code ec;
    fs::create_directories(work, ec);
    if (int rc = VerifySolutions(o, tasks, work, rejected); rc) return rc;
    if (int rc = AuditReferences(o, work, rejected); rc) return rc;
    if (!o.keep_work) fs::remove_all(work, ec);
  }
  const SynthTally tally = Tally(o, tasks, rejected);
  if (int rc = WriteSynthOutputs(o, tasks.size(), rejected.size(), tally); rc) return rc;
  PrintSynthSummary(o, tasks.size(), rejected.size(), tally);
  return 0;
}

int WriteRecords(const std::vector<data::SftRecord>& records, const std::string& out) {
  std::string text;
  for (const auto& r : records) text += r.ToJson().dump() + "\n";
  return WriteOrFail(out, text);
}

int RunSft(const std::string& tasks, const std::string& out) {
  int skipped = 0;
  auto records = data::RecordsFromFolder(tasks, &skipped);
  if (!records.ok()) {
    // A folder that is missing or unreadable is an I/O error like any other (exit 2).
    std::fprintf(stderr, "tritonrl data sft: %s\n", records.status().message().c_str());
    return 2;
  }
  if (int rc = WriteRecords(*records, out); rc) return rc;
  fmt::print("{} records written to {} ({} tasks without a solution skipped)\n", records->size(),
             out, skipped);
  return 0;
}

int RunImportKernelBook(const std::string& file, const std::string& out) {
  std::vector<data::SftRecord> records;
  auto stats = data::ImportKernelBook(file, &records);
  if (!stats.ok()) {
    std::fprintf(stderr, "tritonrl data import kernelbook: %s\n", stats.status().message().c_str());
    return stats.status().code() == tritonrl::StatusCode::kIoError ? 2 : 1;
  }
  if (int rc = WriteRecords(records, out); rc) return rc;
  fmt::print("rows {}  kept {}  rejected {}\n", stats->rows, stats->kept,
             stats->rows - stats->kept);
  for (const auto& [reason, n] : stats->rejected) fmt::print("rejected {:<36} {:>6}\n", reason, n);
  return 0;
}

struct DistillCli {
  data::DistillOptions d;
  std::string tasks, out, api_key_env = "OPENAI_API_KEY", device = "cpu", python;
  int k = 4, jobs = 1;
};

int RunDistillCommand(DistillCli o) {
  // A data synth folder holds its suite in tasks/.
  std::string suite_dir = o.tasks;
  if (fs::exists(fs::path(o.tasks) / "manifest.jsonl")) suite_dir = o.tasks + "/tasks";
  auto suite = tritonrl::task::LoadSuite(suite_dir);
  if (!suite.ok()) {
    std::fprintf(stderr, "tritonrl data distill: %s\n", suite.status().message().c_str());
    return 2;
  }
  if (const char* key = std::getenv(o.api_key_env.c_str())) o.d.api_key = key;
  std::vector<data::DistillRequest> requests;
  std::map<std::string, std::string> prompts;
  for (const auto& t : suite->tasks) {
    auto ref = tritonrl::ReadFile(t.path);
    if (!ref.ok()) {
      std::fprintf(stderr, "tritonrl data distill: %s\n", ref.status().message().c_str());
      return 2;
    }
    prompts[t.id] = data::PromptFor(*ref);
    for (int i = 0; i < o.k; ++i) requests.push_back({t.id, i, prompts[t.id]});
  }
  o.d.ledger_path = o.out + ".ledger.jsonl";
  int fresh = 0;
  auto entries = data::RunDistill(requests, o.d, [&](const data::LedgerEntry& e) {
    ++fresh;
    std::fprintf(stderr, "  %s #%d: %s\n", e.task.c_str(), e.index,
                 e.ok ? "answered" : e.error.c_str());
  });
  if (!entries.ok()) {
    std::fprintf(stderr, "tritonrl data distill: %s\n", entries.status().message().c_str());
    return 2;
  }
  std::vector<data::LedgerEntry> wanted;
  std::set<std::string> want_keys;
  for (const auto& r : requests) want_keys.insert(r.task + "#" + std::to_string(r.index));
  for (const auto& e : *entries) {
    if (want_keys.count(e.task + "#" + std::to_string(e.index))) wanted.push_back(e);
  }
  std::vector<sc::Sample> samples;
  for (const auto& e : wanted) {
    if (e.ok)
      samples.push_back(
          {e.task, e.task + "#" + std::to_string(e.index), e.output, sc::TextKind::kOutput});
  }
  std::map<std::string, std::string> verdicts;  // sample id -> why rejected ("" if verified)
  if (!samples.empty()) {
    auto judged = Evaluate(suite_dir, samples, o.out + ".eval.db", o.device, o.jobs, o.python);
    if (!judged.ok()) {
      std::fprintf(stderr, "tritonrl data distill: evaluator: %s\n",
                   judged.status().message().c_str());
      return 2;
    }
    verdicts = std::move(*judged);
  }
  std::map<std::string, int> dropped;
  std::string records;
  json drops = json::array();
  int accepted = 0;
  for (const auto& e : wanted) {
    const std::string id = e.task + "#" + std::to_string(e.index);
    std::string why;
    if (!e.ok) {
      why = "request_failed";
    } else {
      auto it = verdicts.find(id);
      why = it == verdicts.end() ? "no_verdict" : it->second;
    }
    if (why.empty()) {
      ++accepted;
      records += data::SftRecord{prompts[e.task], e.output, e.task}.ToJson().dump() + "\n";
    } else {
      ++dropped[why];
      drops.push_back({{"sample", id}, {"reason", why}, {"error", e.error}});
    }
  }
  const int missing = static_cast<int>(requests.size() - wanted.size());
  json stats = {{"requests", requests.size()},  {"finished", wanted.size()},
                {"not_yet_requested", missing}, {"new_requests_this_run", fresh},
                {"accepted", accepted},         {"dropped", Counts(dropped)},
                {"dropped_samples", drops}};
  if (int rc = WriteOrFail(o.out, records); rc) return rc;
  if (int rc = WriteOrFail(o.out + ".stats.json", stats.dump(2) + "\n"); rc) return rc;
  fmt::print("requests {}  finished {}  new {}  accepted {}  dropped {}\n", requests.size(),
             wanted.size(), fresh, accepted, wanted.size() - static_cast<size_t>(accepted));
  for (const auto& [why, n] : dropped) fmt::print("dropped {:<48} {:>6}\n", why, n);
  if (missing > 0)
    fmt::print("{} requests not sent yet (--max-requests); rerun to continue\n", missing);
  return 0;
}

const bool registered = tritonrl::cli::RegisterCommand(
    {"data", "training data: synthetic tasks, SFT records, KernelBook import",
     [](CLI::App& sub) -> tritonrl::cli::CommandAction {
       sub.require_subcommand(1);
       auto synth = std::make_shared<SynthOptions>();
       auto* s =
           sub.add_subcommand("synth", "compose operators into verified tasks with solutions");
       s->add_option("--n", synth->n, "tasks to generate")->required();
       s->add_option("--seed", synth->seed, "seed; the same seed gives the same files");
       s->add_option("--out", synth->out, "output folder")->required();
       s->add_option("--device", synth->device, "cpu (interpreter, small) or cuda (every variant)");
       s->add_option("--jobs", synth->jobs, "evaluations in parallel");
       s->add_option("--python", synth->python, "the runner's interpreter");
       s->add_flag("--no-verify", synth->no_verify, "write the candidates without checking them");
       s->add_flag("--keep-work", synth->keep_work, "keep the evaluator's samples and database");

       auto sft_tasks = std::make_shared<std::string>();
       auto sft_out = std::make_shared<std::string>();
       auto* f =
           sub.add_subcommand("sft", "SFT records (prompt, completion, task) of a task folder");
       f->add_option("--tasks", *sft_tasks, "a data synth output or a suite with solutions/")
           ->required();
       f->add_option("--out", *sft_out, "JSONL output")->required();

       auto imp = sub.add_subcommand("import", "convert a public dataset to SFT records");
       imp->require_subcommand(1);
       auto kb_file = std::make_shared<std::string>();
       auto kb_out = std::make_shared<std::string>();
       auto* kb = imp->add_subcommand("kernelbook", "GPUMODE/KernelBook rows (JSONL or Parquet)");
       kb->add_option("file", *kb_file, "rows: FILE.jsonl, or FILE.parquet (flat string columns)")
           ->required();
       kb->add_option("--out", *kb_out, "JSONL output")->required();

       auto dc = std::make_shared<DistillCli>();
       auto* d = sub.add_subcommand(
           "distill", "rejection-sample a teacher behind an OpenAI-compatible endpoint");
       d->add_option("--endpoint", dc->d.endpoint, "http[s]://host:port (or .../v1)")->required();
       d->add_option("--ca-cert", dc->d.ca_cert,
                     "https: PEM file of the CA to trust (default: the system's CAs)");
       d->add_flag("--insecure", dc->d.insecure,
                   "https: do not verify the server's certificate (test servers only)");
       d->add_option("--model", dc->d.model, "model name sent to the endpoint")->required();
       d->add_option("--tasks", dc->tasks, "a suite folder or a data synth output")->required();
       d->add_option("--out", dc->out,
                     "accepted SFT records (JSONL); FILE.ledger.jsonl, "
                     "FILE.eval.db and FILE.stats.json beside it")
           ->required();
       d->add_option("--k", dc->k, "samples per task");
       d->add_option("--concurrency", dc->d.concurrency, "requests in flight");
       d->add_option("--rps", dc->d.requests_per_second, "request starts per second (0: no limit)");
       d->add_option("--retries", dc->d.max_retries,
                     "retries per request (connection, 408, 429, 5xx)");
       d->add_option("--backoff", dc->d.backoff_s,
                     "first retry wait in seconds, doubled each time");
       d->add_option("--timeout", dc->d.timeout_s, "seconds per request");
       d->add_option("--temperature", dc->d.temperature, "sampling temperature");
       d->add_option("--max-tokens", dc->d.max_tokens, "completion token limit");
       d->add_option("--max-requests", dc->d.max_requests, "stop after this many new requests");
       d->add_option("--api-key-env", dc->api_key_env, "environment variable holding the API key");
       d->add_option("--device", dc->device, "evaluator device");
       d->add_option("--jobs", dc->jobs, "evaluations in parallel");
       d->add_option("--python", dc->python, "the runner's interpreter");

       return [s, f, kb, d, dc, synth, sft_tasks, sft_out, kb_file, kb_out]() -> int {
         if (s->parsed()) return RunSynth(*synth);
         if (d->parsed()) return RunDistillCommand(*dc);
         if (f->parsed()) return RunSft(*sft_tasks, *sft_out);
         if (kb->parsed()) return RunImportKernelBook(*kb_file, *kb_out);
         return 2;
       };
     }});

}  // namespace
