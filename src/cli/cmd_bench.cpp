// tritonrl bench: evaluate a model behind an OpenAI-compatible endpoint (vLLM, SGLang, our own
// `serve`), or a local Hugging Face checkpoint generated from in this process (libtorch builds),
// on a suite (ours, or a KernelBench checkout): k samples per task with the TritonRL or the
// KernelBench Triton-backend prompt, scored by our evaluator, metrics per level, JSON and an
// HTML report (docs/bench.md). Everything lives in one run folder (--out), and every step is
// durable, so a killed run resumes where it stopped: the samples through data distill's ledger
// (src/data/distill.h; the local policy writes the same ledger), the verdicts through the
// scorer's store (src/scoring/score_batch.h), the summary written atomically at the end.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "base/runner_locate.h"
#include "base/sha256.h"
#include "cli/command.h"
#include "cli/metrics_json.h"
#include "cli/scoring_progress.h"
#include "data/distill.h"
#include "data/kernelbench_prompt.h"
#include "data/sft.h"
#include "report/report.h"
#include "scoring/score_batch.h"
#include "store/store.h"
#include "task/scale.h"
#include "task/task.h"

#ifdef TRITONRL_HAVE_DEMO
#include "demo/policy_eval.h"
#include "model/tokenizer.h"
#endif

namespace {

namespace fs = std::filesystem;
namespace sc = tritonrl::scoring;
namespace data = tritonrl::data;
namespace task = tritonrl::task;
using nlohmann::json;

constexpr const char* kRunId = "bench";

struct BenchOptions {
  sc::ScoringConfig scoring;
  data::DistillOptions gen;
  std::string out, prompt = "tritonrl", kernelbench, prompt_template;
  std::string api_key_env = "OPENAI_API_KEY";
  std::string show_prompt;  // print this task's prompt and stop
  int k = 1;
  std::vector<int> levels;
  std::vector<std::string> task_ids;
  int max_tasks_per_level = 0;
  double scale_sizes = 0;
  std::int64_t scale_min = 64;
  std::vector<int> pass_k;
  // Without --endpoint: the local policy (--model DIR or builtin:tiny) and its sampling.
  std::uint64_t seed = 0;
  std::int64_t prompts_per_batch = 8;
  std::string model_device, dtype;
  bool local() const { return gen.endpoint.empty(); }
};

[[noreturn]] void Fail(const std::string& message) {
  throw std::runtime_error(message);
}

template <typename T>
T OrFail(tritonrl::Result<T> r) {
  if (!r.ok()) Fail(r.status().message());
  return std::move(*r);
}

// The tasks of the suite the run covers, in the suite's order.
std::vector<const task::TaskInfo*> SelectTasks(const task::Suite& suite, const BenchOptions& o) {
  std::map<int, int> taken;  // level -> tasks taken
  std::set<std::string> wanted(o.task_ids.begin(), o.task_ids.end());
  std::vector<const task::TaskInfo*> out;
  for (const auto& t : suite.tasks) {
    const int level = t.level.value_or(0);
    if (!o.levels.empty() && std::find(o.levels.begin(), o.levels.end(), level) == o.levels.end())
      continue;
    if (!wanted.empty() && !wanted.count(t.id)) continue;
    if (o.max_tasks_per_level > 0 && taken[level] >= o.max_tasks_per_level) continue;
    ++taken[level];
    out.push_back(&t);
  }
  for (const auto& id : wanted)
    if (!task::FindTask(suite, id))
      Fail(fmt::format("--task {}: not a task of {}", id, suite.root));
  if (out.empty()) Fail(fmt::format("{}: no task matches the selection", suite.root));
  return out;
}

// Which prompt the run uses and where it came from (recorded in the results).
struct PromptSource {
  std::string kind;  // tritonrl | kernelbench | template
  json provenance = json::object();
  std::optional<data::KernelBenchPrompt> kernelbench;
  std::string template_text;
};

PromptSource LoadPromptSource(const BenchOptions& o) {
  PromptSource p;
  p.kind = o.prompt_template.empty() ? o.prompt : "template";
  if (p.kind == "kernelbench") {
    if (o.kernelbench.empty()) Fail("--prompt kernelbench needs --kernelbench DIR (a checkout)");
    const std::string runner = OrFail(tritonrl::LocateRunner(o.scoring.runner));
    const std::string python = OrFail(tritonrl::LocateInterpreter(o.scoring.python, runner));
    p.kernelbench = OrFail(data::LoadKernelBenchPrompt(o.kernelbench, python));
    p.provenance = {{"checkout", fs::absolute(o.kernelbench).string()},
                    {"commit", p.kernelbench->commit},
                    {"backend", p.kernelbench->backend},
                    {"option", p.kernelbench->option},
                    {"files_sha256", p.kernelbench->files}};
  } else if (p.kind == "template") {
    p.template_text = OrFail(tritonrl::ReadFile(o.prompt_template));
    p.provenance = {{"file", o.prompt_template}, {"sha256", tritonrl::Sha256Hex(p.template_text)}};
  } else if (p.kind == "tritonrl") {
    p.provenance = {{"source", "data::PromptFor (docs/data.md)"}};
  } else {
    Fail("--prompt must be tritonrl or kernelbench, not " + o.prompt);
  }
  return p;
}

std::string Precision(const std::string& dtype) {
  if (dtype == "float16") return "fp16";
  if (dtype == "bfloat16") return "bf16";
  return "fp32";
}

// The prompt for one task, from its original file (the sizes the model sees are the task's own,
// whatever --scale-sizes runs).
std::string PromptOf(const PromptSource& p, const task::TaskInfo& t) {
  const std::string ref = OrFail(tritonrl::ReadFile(t.path));
  if (p.kind == "tritonrl") return data::PromptFor(ref);
  if (p.kind == "kernelbench")
    return OrFail(data::RenderKernelBenchPrompt(*p.kernelbench, ref, Precision(t.dtype)));
  auto text = data::FormatNamed(p.template_text, {{"ref_arch_src", ref}});
  if (!text.ok()) Fail(p.provenance["file"].get<std::string>() + ": " + text.status().message());
  return *text;
}

// What makes two runs the same run: a rerun into the same folder must match it, or it would mix
// samples of two experiments. The generation's pace (concurrency, rate, retries) is not here.
json Identity(const BenchOptions& o, const PromptSource& p, const std::string& prompts_sha,
              const std::vector<const task::TaskInfo*>& tasks) {
  json ids = json::array();
  for (const auto* t : tasks) ids.push_back(t->id);
  json identity = {{"model", o.gen.model},
                   {"k", o.k},
                   {"temperature", o.gen.temperature},
                   {"max_tokens", o.gen.max_tokens},
                   {"prompt", p.kind},
                   {"prompts_sha256", prompts_sha},
                   {"scale_sizes", o.scale_sizes > 0 ? json({{"factor", o.scale_sizes},
                                                             {"min_value", o.scale_min}})
                                                     : json(nullptr)},
                   {"tasks", ids}};
  // A local policy's samples also depend on the seed (an endpoint's are not seeded). Endpoint
  // runs keep the keys they always had, so their folders from earlier versions still resume.
  if (o.local()) {
    identity["generator"] = "local";
    identity["seed"] = o.seed;
  }
  return identity;
}

void CheckOrWriteIdentity(const std::string& path, const json& identity) {
  if (fs::exists(path)) {
    const json old = json::parse(OrFail(tritonrl::ReadFile(path)), nullptr, false);
    if (!old.is_object()) Fail(path + ": not a JSON object (remove it to start over)");
    json both = old;
    both.update(identity);  // every key of either (one only in the old run differs too)
    for (const auto& [key, unused] : both.items()) {
      const json was = old.value(key, json()), now = identity.value(key, json());
      if (was != now)
        Fail(
            fmt::format("{}: this folder holds a run with another {} ({} here, {} now); use "
                        "another --out",
                        path, key, was.dump().substr(0, 200), now.dump().substr(0, 200)));
    }
    return;
  }
  if (auto s = tritonrl::WriteFileAtomic(path, identity.dump(2) + "\n"); !s.ok()) Fail(s.message());
}

struct Generation {
  std::vector<data::LedgerEntry> entries;  // the requests of this run that finished
  int requested = 0, failed = 0, fresh = 0;
};

using OnEntry = std::function<void(const data::LedgerEntry&)>;

#ifdef TRITONRL_HAVE_DEMO
constexpr bool kHaveLocal = true;

// The samples of the requests without a ledger entry, from the local policy (demo's generation,
// the one `calibrate` and the demo use), into the same ledger as an endpoint's answers. A batch
// of tasks is generated whole when any of its samples is missing (GenerateSamples seeds per
// batch), and only the missing samples are recorded: a resumed run gets the samples a run never
// killed would have got.
tritonrl::Result<std::vector<data::LedgerEntry>> GenerateLocally(
    const BenchOptions& o, const std::vector<data::DistillRequest>& requests,
    const std::string& ledger, const OnEntry& on_entry) {
  namespace demo = tritonrl::demo;
  std::vector<demo::EvalTask> tasks;  // the requests are k consecutive ones per task
  for (const auto& r : requests)
    if (r.index == 0) tasks.push_back({r.task, r.prompt});  // the policy's template wraps it
  demo::PolicyEvalOptions p;
  p.model = o.gen.model;
  p.device = o.model_device;
  p.dtype = o.dtype;
  p.k = o.k;
  p.max_new_tokens = o.gen.max_tokens;
  p.temperature = o.gen.temperature;
  p.seed = o.seed;
  p.prompts_per_batch = o.prompts_per_batch;
  auto answer = [&](const std::vector<const data::DistillRequest*>& todo,
                    const data::RecordFn& record) -> tritonrl::Status {
    std::set<std::pair<std::string, int>> missing;
    for (const auto* r : todo) missing.insert({r->task, r->index});
    demo::GenerateCallbacks callbacks;
    callbacks.wanted = [&](size_t first, size_t last) {
      for (size_t t = first; t < last; ++t)
        for (int i = 0; i < o.k; ++i)
          if (missing.count({tasks[t].id, i})) return true;
      return false;
    };
    callbacks.on_batch = [&](std::vector<demo::GeneratedSample> batch) {
      for (auto& g : batch)
        if (missing.count({g.task, g.index}))
          // As an endpoint sends it: JSON text (invalid bytes of a random policy replaced).
          record({g.task, g.index, true, false, tritonrl::model::ToValidUtf8(g.text), "", 1});
      return tritonrl::Status::Ok();
    };
    auto policy = demo::GenerateSamples(p, tasks, callbacks);
    if (!policy.ok())
      return tritonrl::Status::InvalidArgument("--model " + o.gen.model + ": " +
                                               policy.status().message());
    if (!policy->empty()) fmt::print(stderr, "bench: generated by {}\n", *policy);
    return tritonrl::Status::Ok();
  };
  return data::RunLedger(requests, ledger, o.gen.max_requests, answer, on_entry);
}
#else
constexpr bool kHaveLocal = false;

tritonrl::Result<std::vector<data::LedgerEntry>> GenerateLocally(
    const BenchOptions&, const std::vector<data::DistillRequest>&, const std::string&,
    const OnEntry&) {
  return tritonrl::Status::FailedPrecondition("built without libtorch");
}
#endif

Generation Generate(const BenchOptions& o, const std::vector<data::DistillRequest>& requests) {
  data::DistillOptions d = o.gen;
  d.ledger_path = (fs::path(o.out) / "ledger.jsonl").string();
  Generation g;
  g.requested = static_cast<int>(requests.size());
  auto before = OrFail(data::ReadLedger(d.ledger_path));
  int done = 0;
  for (const auto& e : before) done += e.ok || e.permanent;
  fmt::print(stderr, "bench: {} requests, {} answered by earlier runs\n", requests.size(), done);
  const OnEntry on_entry = [&](const data::LedgerEntry& e) {
    ++g.fresh;
    ++done;
    fmt::print(stderr, "bench: requested {}/{}: {} #{} {}\n", done, requests.size(), e.task,
               e.index, e.ok ? "received" : "failed: " + e.error);
  };
  auto entries = OrFail(o.local() ? GenerateLocally(o, requests, d.ledger_path, on_entry)
                                  : data::RunDistill(requests, d, on_entry));
  std::set<std::pair<std::string, int>> wanted;
  for (const auto& r : requests) wanted.insert({r.task, r.index});
  for (auto& e : entries) {
    if (!wanted.count({e.task, e.index})) continue;
    g.failed += !e.ok;
    g.entries.push_back(std::move(e));
  }
  return g;
}

sc::RunSummary Score(const BenchOptions& o, const sc::ScoringConfig& config,
                     const Generation& gen) {
  auto scorer = OrFail(sc::Scorer::Open(config));
  std::vector<sc::Sample> samples;
  for (const auto& e : gen.entries)
    if (e.ok)
      samples.push_back(
          {e.task, fmt::format("{}#{}", e.task, e.index), e.output, sc::TextKind::kOutput});
  sc::BatchOptions batch;
  batch.run_id = kRunId;
  batch.sample_file = (fs::path(o.out) / "ledger.jsonl").string();
  tritonrl::cli::ScoringProgress progress;
  sc::Callbacks callbacks;
  callbacks.on_note = [](const std::string& line) { fmt::print(stderr, "bench: {}\n", line); };
  callbacks.on_verdict = [&](const sc::ScoredSample& s, std::size_t done, std::size_t total) {
    progress.OnVerdict(s, done, total);
  };
  fmt::print(stderr, "bench: scoring {} samples on {} ({})\n", samples.size(), scorer->device(),
             scorer->device_model());
  if (!samples.empty()) {
    auto result = scorer->Score(samples, batch, callbacks);
    progress.Finish();
    if (!result.ok()) Fail(result.status().message());
    fmt::print(stderr, "bench: scored {} ({} already scored by earlier runs)\n",
               result->samples.size(), result->resumed);
  }
  tritonrl::metrics::MetricsOptions m;
  if (!o.pass_k.empty()) m.pass_k = o.pass_k;
  if (samples.empty()) {
    sc::RunSummary none;
    none.run_id = kRunId;
    none.metrics = tritonrl::metrics::ComputeMetrics({}, m);
    return none;
  }
  return OrFail(scorer->LoadRun(kRunId, m));
}

// The tasks whose reference failed, with the reason the engine gave.
json FailedTasks(const sc::RunSummary& summary) {
  json out = json::object();
  for (const auto& s : summary.samples) {
    if (out.contains(s.task) ||
        std::find(s.flags.begin(), s.flags.end(), "reference_failed") == s.flags.end())
      continue;
    std::string why;
    const auto reasons = s.verdict.find("reasons");
    if (reasons != s.verdict.end() && reasons->is_array() && !reasons->empty())
      why = reasons->front().dump();
    out[s.task] = why;
  }
  return out;
}

json SummaryJson(const sc::RunSummary& summary) {
  json levels = json::array();
  for (const auto& g : summary.metrics.levels) levels.push_back(tritonrl::cli::MetricsJson(g));
  return {{"overall", tritonrl::cli::MetricsJson(summary.metrics.overall)}, {"levels", levels}};
}

std::string Preface(const json& doc) {
  using tritonrl::report::HtmlEscape;
  std::string h = "<h2>Benchmark</h2>\n<table id=\"bench-config\">";
  auto row = [&](const std::string& k, const json& v) {
    h += "<tr><th>" + HtmlEscape(k) + "</th><td>" +
         HtmlEscape(v.is_string() ? v.get<std::string>() : v.dump()) + "</td></tr>";
  };
  row("model", doc["config"]["model"]);
  row("endpoint", doc["endpoint"].is_null() ? json("none: the local policy") : doc["endpoint"]);
  if (doc.contains("generator")) row("generator", doc["generator"]);
  row("samples per task (k)", doc["config"]["k"]);
  row("prompt", doc["prompt"]);
  row("sizes", doc["scale_sizes"].is_null() ? json("the tasks' own") : doc["scale_sizes"]);
  row("requests", doc["requests"]);
  row("tasks whose reference failed", doc["failed_tasks"]);
  return h + "</table>\n";
}

void WriteOutputs(const BenchOptions& o, const json& doc, const sc::ScoringConfig& config) {
  const fs::path out(o.out);
  if (auto s = tritonrl::WriteFileAtomic((out / "bench.json").string(), doc.dump(2) + "\n");
      !s.ok())
    Fail(s.message());
  if (doc["samples"].empty()) return;  // nothing stored: no report to draw
  tritonrl::store::OpenOptions open;
  open.create = false;
  auto store = OrFail(tritonrl::store::Store::Open(config.db, open));
  tritonrl::report::ReportOptions ro;
  ro.title = "tritonrl bench: " + o.gen.model;
  ro.preface_html = Preface(doc);
  if (!o.pass_k.empty()) ro.metrics.pass_k = o.pass_k;
  const std::string html = OrFail(tritonrl::report::RenderReport(store, kRunId, ro));
  if (auto s = tritonrl::WriteFileAtomic((out / "report.html").string(), html); !s.ok())
    Fail(s.message());
}

std::string OptPct(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", 100 * *v) : std::string("n/a");
}

void PrintRates(const sc::RunSummary& summary) {
  fmt::print("{:<8} {:>6} {:>7} {:>7} {:>9} {:>8} {:>7} {:>7} {:>8} {:>10}\n", "level", "tasks",
             "samples", "valid", "compiled", "correct", "fast1", "fast2", "mean_sp", "pass@k(c)");
  auto row = [&](const tritonrl::metrics::GroupMetrics& g) {
    std::string pass;
    for (const auto& p : g.pass_at_k)
      if (p.criterion == "correct") pass += (pass.empty() ? "" : "/") + OptPct(p.value);
    fmt::print("{:<8} {:>6} {:>7} {:>6.1f}% {:>8.1f}% {:>7.1f}% {:>7} {:>7} {:>8} {}\n", g.name,
               g.tasks, g.samples, 100 * g.valid_rate, 100 * g.compiled_rate, 100 * g.correct_rate,
               OptPct(g.fast_p.size() > 0 ? g.fast_p[0].rate : 0.0),
               OptPct(g.fast_p.size() > 1 ? g.fast_p[1].rate : 0.0),
               g.mean_speedup ? fmt::format("{:.2f}x", *g.mean_speedup) : "-", pass);
  };
  for (const auto& g : summary.metrics.levels) row(g);
  row(summary.metrics.overall);
}

// TritonRL's Figure 5 classes as shares of the samples (metrics::OutcomeShares): "incorrect" is
// every other outcome (compile and runtime errors, timeouts, wrong outputs); the correct ones
// split by speed, n/a where no correct sample was timed (a CPU run).
void PrintShares(const sc::RunSummary& summary) {
  fmt::print("{:<8} {:>10} {:>10} {:>10} {:>12} {:>7}\n", "level", "inv_syntax", "inv_func",
             "incorrect", "correct_slow", "fast");
  auto row = [&](const tritonrl::metrics::GroupMetrics& g) {
    const auto& s = g.shares;
    fmt::print("{:<8} {:>9.1f}% {:>9.1f}% {:>9.1f}% {:>12} {:>7}\n", g.name,
               100 * s.invalid_syntax_share, 100 * s.invalid_functionality_share,
               100 * s.other_share, OptPct(s.correct_not_fast_share), OptPct(s.fast_share));
  };
  for (const auto& g : summary.metrics.levels) row(g);
  row(summary.metrics.overall);
}

void PrintTable(const sc::RunSummary& summary, const json& failed) {
  PrintRates(summary);
  fmt::print("outcome shares (TritonRL Figure 5):\n");
  PrintShares(summary);
  fmt::print("tasks whose reference failed: {}\n", failed.size());
  for (const auto& [id, why] : failed.items())
    fmt::print("  {} {}\n", id, why.get<std::string>().substr(0, 300));
}

// The local policy's checks, before anything is written: a build that has it, a model it can load.
void CheckLocalModel(const BenchOptions& o) {
  if (!kHaveLocal)
    Fail(fmt::format(
        "--model {} without --endpoint generates locally, which needs libtorch, and this "
        "tritonrl was built without it; serve the model (vLLM, SGLang, a libtorch build's "
        "`tritonrl serve --model DIR`) and pass --endpoint URL",
        o.gen.model));
  if (o.prompts_per_batch < 1) Fail("--prompts-per-batch must be at least 1");
  if (o.gen.model.rfind("builtin:", 0) == 0) return;
  if (!fs::is_directory(o.gen.model))
    Fail(fmt::format(
        "--model {}: not a checkpoint directory (config.json, *.safetensors, tokenizer.json); "
        "for a model a server serves under this name, pass --endpoint URL",
        o.gen.model));
}

int RunBench(BenchOptions o) {
  if (o.k < 1) Fail("--k must be at least 1");
  if (const char* key = std::getenv(o.api_key_env.c_str())) o.gen.api_key = key;
  const task::Suite suite = OrFail(task::LoadSuite(o.scoring.tasks));
  for (const auto& e : suite.errors) fmt::print(stderr, "bench: skipped {}\n", e.ToString());
  const auto tasks = SelectTasks(suite, o);
  const PromptSource prompt = LoadPromptSource(o);
  if (!o.show_prompt.empty()) {
    const task::TaskInfo* t = task::FindTask(suite, o.show_prompt);
    if (!t) Fail(fmt::format("--show-prompt {}: not a task of {}", o.show_prompt, suite.root));
    fmt::print("{}", PromptOf(prompt, *t));
    return 0;
  }
  if (o.local()) CheckLocalModel(o);
  std::vector<data::DistillRequest> requests;
  std::string all_prompts;
  for (const auto* t : tasks) {
    const std::string text = PromptOf(prompt, *t);
    all_prompts += t->id + "\n" + tritonrl::Sha256Hex(text) + "\n";
    for (int i = 0; i < o.k; ++i) requests.push_back({t->id, i, text});
  }
  fs::create_directories(o.out);
  const json identity = Identity(o, prompt, tritonrl::Sha256Hex(all_prompts), tasks);
  CheckOrWriteIdentity((fs::path(o.out) / "config.json").string(), identity);

  sc::ScoringConfig config = o.scoring;
  config.db = (fs::path(o.out) / "results.db").string();
  json scaled = nullptr;
  if (o.scale_sizes > 0) {
    const std::string dir = (fs::path(o.out) / "scaled-suite").string();
    const auto changed = OrFail(task::WriteScaledSuite(suite, {o.scale_sizes, o.scale_min}, dir));
    scaled = {
        {"factor", o.scale_sizes},
        {"min_value", o.scale_min},
        {"rule", "every module-level integer constant >= min_value times factor, rounded, >= 1"},
        {"suite", dir},
        {"changed", json::object()}};
    for (const auto& c : changed)
      if (!c.changed.empty()) scaled["changed"][c.id] = c.changed;
    config.tasks = dir;
    config.variants = {task::kScaledVariant};
  }
  const Generation gen = Generate(o, requests);
  const sc::RunSummary summary = Score(o, config, gen);
  const json failed = FailedTasks(summary);
  json samples = json::array();
  for (const auto& s : summary.samples) samples.push_back(sc::ToJson(s));
  const int received = static_cast<int>(gen.entries.size()) - gen.failed;
  json doc = {{"config", identity},
              {"endpoint", o.local() ? json(nullptr) : json(o.gen.endpoint)},
              {"prompt", json{{"kind", prompt.kind}, {"provenance", prompt.provenance}}},
              {"scale_sizes", scaled},
              {"tolerance", config.tolerance},
              {"requests",
               {{"total", gen.requested},
                {"received", received},
                {"failed", gen.failed},
                {"not_sent", gen.requested - static_cast<int>(gen.entries.size())},
                {"new_this_run", gen.fresh}}},
              {"failed_tasks", failed},
              {"summary", SummaryJson(summary)},
              {"samples", samples}};
  if (o.local())
    doc["generator"] = {{"kind", "local"},
                        {"model", o.gen.model},
                        {"seed", o.seed},
                        {"prompts_per_batch", o.prompts_per_batch},
                        {"device", o.model_device.empty() ? "default" : o.model_device},
                        {"dtype", o.dtype.empty() ? "default" : o.dtype}};
  WriteOutputs(o, doc, config);
  PrintTable(summary, failed);
  fmt::print("bench: {} of {} samples received and scored; {}/bench.json{}\n", received,
             gen.requested, o.out, samples.empty() ? "" : ", report.html");
  if (received < gen.requested)
    fmt::print(
        "bench: {} requests without an answer; run the same command again to retry "
        "those that may still succeed\n",
        gen.requested - received);
  // A request the endpoint refused for good (4xx: a wrong model name, a prompt too long) is bad
  // input: say so by the exit code. A rerun does not send it again (the ledger keeps it).
  for (const auto& e : gen.entries) {
    if (e.permanent) {
      fmt::print(stderr, "tritonrl bench: the endpoint refused {} #{}: {}\n", e.task, e.index,
                 e.error);
      return 1;
    }
  }
  return 0;
}

void AddLocalFlags(CLI::App& sub, BenchOptions& o, CLI::Option* endpoint) {
  sub.add_option("--seed", o.seed, "local policy: sampling seed (each batch of tasks its own)")
      ->excludes(endpoint);
  sub.add_option("--prompts-per-batch", o.prompts_per_batch,
                 "local policy: tasks generated together (k rows each; default 8)")
      ->excludes(endpoint);
  sub.add_option("--model-device", o.model_device,
                 "local policy: cpu, cuda or cuda:N (default: cuda if available)")
      ->excludes(endpoint);
  sub.add_option("--dtype", o.dtype, "local policy: fp32, bf16 or fp16 (default: bf16 on GPU)")
      ->excludes(endpoint);
}

void AddGenerationFlags(CLI::App& sub, BenchOptions& o) {
  auto* endpoint = sub.add_option("--endpoint", o.gen.endpoint,
                                  "OpenAI-compatible server: http://host:port (or .../v1); "
                                  "without it, --model is generated from in this process");
  sub.add_option("--model", o.gen.model,
                 "with --endpoint: the model name sent to it; without: a local Hugging Face "
                 "checkpoint directory (or builtin:tiny), libtorch builds")
      ->required();
  sub.add_option("--k", o.k, "samples per task");
  sub.add_option("--temperature", o.gen.temperature, "sampling temperature");
  sub.add_option("--max-tokens", o.gen.max_tokens, "completion token limit (new tokens)");
  sub.add_option("--max-requests", o.gen.max_requests,
                 "stop after this many new requests (samples)");
  // The endpoint's pace and credentials; they mean nothing to the local policy.
  sub.add_option("--concurrency", o.gen.concurrency, "requests in flight")->needs(endpoint);
  sub.add_option("--rps", o.gen.requests_per_second, "request starts per second (0: no limit)")
      ->needs(endpoint);
  sub.add_option("--retries", o.gen.max_retries, "retries per request (connection, 408, 429, 5xx)")
      ->needs(endpoint);
  sub.add_option("--backoff", o.gen.backoff_s, "first retry wait in seconds, doubled each time")
      ->needs(endpoint);
  sub.add_option("--timeout", o.gen.timeout_s, "seconds per request")->needs(endpoint);
  sub.add_option("--api-key-env", o.api_key_env, "environment variable holding the API key")
      ->needs(endpoint);
  AddLocalFlags(sub, o, endpoint);
  sub.add_option("--prompt", o.prompt, "tritonrl (our prompt) or kernelbench (Triton backend)");
  sub.add_option("--kernelbench", o.kernelbench,
                 "a KernelBench checkout: its prompt templates (--prompt kernelbench) and, "
                 "without --tasks, its KernelBench/ suite");
  sub.add_option("--show-prompt", o.show_prompt,
                 "print the prompt of this task id and stop (nothing is requested)");
  sub.add_option("--prompt-template", o.prompt_template,
                 "a prompt file with {ref_arch_src} where the task's source goes");
}

void AddScoringFlags(CLI::App& sub, BenchOptions& o) {
  sub.add_option("--tasks", o.scoring.tasks, "task suite folder (levelN/*.py)");
  sub.add_option("--out", o.out, "run folder (config, ledger, results, bench.json, report.html)")
      ->required();
  sub.add_option("--levels", o.levels, "levels to run (default: all)")->delimiter(',');
  sub.add_option("--task", o.task_ids, "task ids to run (repeatable; default: all)");
  sub.add_option("--max-tasks-per-level", o.max_tasks_per_level, "first N tasks of each level");
  sub.add_option("--scale-sizes", o.scale_sizes,
                 "multiply every module-level integer constant >= --scale-min of each task by "
                 "this factor (rounded, at least 1), run as variant 'scaled'; recorded");
  sub.add_option("--scale-min", o.scale_min, "smallest constant --scale-sizes scales (64)");
  sub.add_option("--pass-k", o.pass_k, "k values of pass@k (default 1,5,10)")->delimiter(',');
  sub.add_option("--device", o.scoring.device, "auto, cpu (Triton interpreter) or cuda");
  sub.add_option("--jobs", o.scoring.jobs, "samples evaluated in parallel");
  sub.add_option("--variants", o.scoring.variants, "variants to run (default: the device's)")
      ->delimiter(',');
  sub.add_option("--tolerance", o.scoring.tolerance, "ours, kernelbench or kernelbench-v0")
      ->check(CLI::IsMember({"ours", "kernelbench", "kernelbench-v0"}));
  sub.add_flag("--no-timing", o.scoring.no_timing, "correctness only (no speedup)");
  sub.add_option("--stage-timeout", o.scoring.stage_timeout_s, "seconds per evaluation stage");
  sub.add_option("--python", o.scoring.python, "the runner's interpreter");
  sub.add_option("--runner", o.scoring.runner, "folder holding tritonrl_runner/");
  sub.add_option("--work-dir", o.scoring.work_dir, "the workers' folders (on a disk)");
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"bench",
     "evaluate a model (behind an OpenAI-compatible endpoint, or a local checkpoint) on a suite or "
     "KernelBench",
     [](CLI::App& sub) {
       auto o = std::make_shared<BenchOptions>();
       AddGenerationFlags(sub, *o);
       AddScoringFlags(sub, *o);
       return [o]() -> int {
         try {
           if (o->scoring.tasks.empty()) {
             if (o->kernelbench.empty()) Fail("--tasks or --kernelbench is required");
             o->scoring.tasks = (fs::path(o->kernelbench) / "KernelBench").string();
           }
           return RunBench(*o);
         } catch (const std::exception& e) {
           fmt::print(stderr, "tritonrl bench: {}\n", e.what());
           return 2;
         }
       };
     }});

}  // namespace
