// `tritonrl tasks list DIR [--json]`: the tasks of a suite folder (KernelBench
// layout or flat) with their level, dtype, variants and tolerance; bad files are
// reported as FILE:LINE: errors (exit 1) while the good ones are still listed.
// `tritonrl tasks audit DIR ...`: the null-model audit (docs/tasks.md) through
// the Python runner; exit 1 if any task fails it.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.h"
#include "task/audit.h"
#include "task/task.h"

namespace {

using tritonrl::task::Json;

std::vector<std::string> SplitCsv(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string LevelText(const tritonrl::task::TaskInfo& t) {
  return t.level ? std::to_string(*t.level) : "-";
}

Json TaskJson(const tritonrl::task::TaskInfo& t) {
  Json j;
  j["id"] = t.id;
  j["path"] = t.path;
  j["level"] = t.level ? Json(*t.level) : Json(nullptr);
  j["dtype"] = t.dtype;
  j["atol"] = t.atol;
  j["rtol"] = t.rtol;
  j["variants"] = Json::object();
  for (const auto& v : t.variants) j["variants"][v.name] = v.overrides;
  j["constants"] = t.constants;
  j["sha256"] = t.sha256;
  j["lines"] = {{"Model", t.model_line},
                {"get_inputs", t.get_inputs_line},
                {"get_init_inputs", t.get_init_inputs_line}};
  return j;
}

void PrintErrors(const tritonrl::task::Suite& suite) {
  for (const auto& e : suite.errors) std::fprintf(stderr, "%s\n", e.ToString().c_str());
}

int ListTasks(const std::string& dir, bool json) {
  auto suite = tritonrl::task::LoadSuite(dir);
  if (!suite.ok()) {
    std::fprintf(stderr, "tritonrl tasks list: %s\n", suite.status().message().c_str());
    return 2;
  }
  if (json) {
    Json out;
    out["suite"] = dir;
    out["tasks"] = Json::array();
    for (const auto& t : suite->tasks) out["tasks"].push_back(TaskJson(t));
    out["errors"] = Json::array();
    for (const auto& e : suite->errors) {
      out["errors"].push_back({{"file", e.file}, {"line", e.line}, {"message", e.message}});
    }
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    size_t width = 4;
    for (const auto& t : suite->tasks) width = std::max(width, t.id.size());
    std::printf("%s\n", fmt::format("{:<{}}  {:>5}  {:<8}  {:<20}  {:>7}  {:>7}", "TASK", width,
                                    "LEVEL", "DTYPE", "VARIANTS", "ATOL", "RTOL")
                            .c_str());
    for (const auto& t : suite->tasks) {
      std::string variants;
      for (const auto& v : t.variants) variants += (variants.empty() ? "" : ",") + v.name;
      std::printf("%s\n", fmt::format("{:<{}}  {:>5}  {:<8}  {:<20}  {:>7.1e}  {:>7.1e}", t.id,
                                      width, LevelText(t), t.dtype, variants, t.atol, t.rtol)
                              .c_str());
    }
    std::printf("%zu tasks, %d bad files\n", suite->tasks.size(), suite->bad_files);
  }
  PrintErrors(*suite);
  if (suite->tasks.empty() && suite->bad_files == 0) {
    std::fprintf(stderr,
                 "tritonrl tasks list: no task files in %s (expected levelN/*.py or *.py; a "
                 "KernelBench checkout keeps them under KernelBench/)\n",
                 dir.c_str());
  }
  return suite->bad_files > 0 ? 1 : 0;
}

struct AuditArgs {
  std::string dir;
  std::string variants = "eval";
  std::string tasks;
  tritonrl::task::AuditOptions options;
  bool json = false;
};

std::string Describe(const tritonrl::task::AuditResult& r) {
  if (r.status == "ok") return "";
  std::string s;
  if (r.detail.contains("failed_checks")) {
    for (const auto& c : r.detail["failed_checks"])
      s += (s.empty() ? "" : ", ") + c.get<std::string>();
  }
  auto passed = tritonrl::task::PassedNullModels(r);
  if (!passed.empty()) {
    s += (s.empty() ? "" : "; ") + std::string("null models pass: ");
    for (size_t i = 0; i < passed.size(); ++i) s += (i ? ", " : "") + passed[i];
  }
  if (r.detail.contains("passed_null_models_allclose")) {
    std::string weak;
    for (const auto& n : r.detail["passed_null_models_allclose"]) {
      weak += (weak.empty() ? "" : ", ") + n.get<std::string>();
    }
    if (!weak.empty()) s += (s.empty() ? "" : "; ") + std::string("pass allclose alone: ") + weak;
  }
  if (r.detail.contains("error"))
    s += (s.empty() ? "" : "; ") + r.detail["error"].get<std::string>();
  return s;
}

int AuditTasks(const AuditArgs& args) {
  auto suite = tritonrl::task::LoadSuite(args.dir);
  if (!suite.ok()) {
    std::fprintf(stderr, "tritonrl tasks audit: %s\n", suite.status().message().c_str());
    return 2;
  }
  PrintErrors(*suite);
  std::vector<tritonrl::task::TaskInfo> chosen;
  if (args.tasks.empty()) {
    chosen = suite->tasks;
  } else {
    for (const std::string& id : SplitCsv(args.tasks)) {
      const auto* t = tritonrl::task::FindTask(*suite, id);
      if (t == nullptr) {
        std::fprintf(stderr, "tritonrl tasks audit: no task %s in %s\n", id.c_str(),
                     args.dir.c_str());
        return 2;
      }
      chosen.push_back(*t);
    }
  }
  auto options = args.options;
  // "eval": per task what `tritonrl eval` runs on that device (on the CPU the small variant: every
  // variant of the suite took over 12 minutes and 10 GB on a 2-core machine); "all": every one.
  if (args.variants == "eval") {
    options.variants = {std::string(tritonrl::task::kEvalVariants)};
  } else if (args.variants != "all") {
    options.variants = SplitCsv(args.variants);
  }
  int bad = 0, total = 0;
  auto on_result = [&](const tritonrl::task::AuditResult& r) {
    ++total;
    if (r.status != "ok" && r.status != "skipped") ++bad;
    if (!args.json) {
      std::printf("%-48s %-8s %-8s %s\n", r.task.c_str(), r.variant.c_str(), r.status.c_str(),
                  Describe(r).c_str());
      std::fflush(stdout);
    }
  };
  if (!args.json) std::printf("%-48s %-8s %-8s %s\n", "TASK", "VARIANT", "STATUS", "DETAILS");
  auto results = tritonrl::task::RunAudit(chosen, options, on_result);
  if (!results.ok()) {
    std::fprintf(stderr, "tritonrl tasks audit: %s\n", results.status().message().c_str());
    return 2;
  }
  if (args.json) {
    Json out;
    out["suite"] = args.dir;
    out["results"] = Json::array();
    for (const auto& r : *results) {
      Json j = r.detail;
      j.erase("event");
      j["task"] = r.task;
      j["variant"] = r.variant;
      j["status"] = r.status;
      out["results"].push_back(j);
    }
    out["bad_files"] = suite->bad_files;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%d results, %d not ok, %d bad files\n", total, bad, suite->bad_files);
  }
  return bad > 0 || suite->bad_files > 0 ? 1 : 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"tasks", "List task suites and audit them with null models", [](CLI::App& sub) {
       sub.require_subcommand(1);
       auto list_dir = std::make_shared<std::string>();
       auto list_json = std::make_shared<bool>(false);
       CLI::App* list = sub.add_subcommand("list", "List the tasks of a suite folder");
       list->add_option("dir", *list_dir, "suite folder (levelN/ subfolders or flat)")->required();
       list->add_flag("--json", *list_json, "print JSON");

       auto audit = std::make_shared<AuditArgs>();
       CLI::App* aud = sub.add_subcommand("audit", "Check that null models fail every task");
       aud->add_option("dir", audit->dir, "suite folder")->required();
       aud->add_option("--variants", audit->variants,
                       "eval (default: what `tritonrl eval` runs on --device: on the CPU the "
                       "small variant, else the first; on cuda all), all, or a comma list; a file "
                       "without VARIANTS has only \"default\"");
       aud->add_option("--tasks", audit->tasks, "comma list of task ids (default: all)");
       aud->add_option("--device", audit->options.device, "cpu or cuda")
           ->check(CLI::IsMember({"cpu", "cuda"}));
       aud->add_option("--python", audit->options.python,
                       "Python interpreter (default: $TRITONRL_PYTHON, else the checkout's .venv)");
       aud->add_option("--runner", audit->options.runner_dir,
                       "folder holding tritonrl_runner/ (default: found from the executable)");
       aud->add_option("--timeout", audit->options.timeout_s, "seconds per task (default 300)");
       aud->add_option("--jobs", audit->options.jobs, "runner processes in parallel (default 1)")
           ->check(CLI::Range(1, 256));
       aud->add_option("--max-memory-gb", audit->options.max_memory_gb,
                       "address-space limit of the runner (default: none)");
       aud->add_option("--seed", audit->options.seed, "seed of models and inputs (default 42)");
       aud->add_flag("--json", audit->json, "print JSON");

       return [=]() -> int {
         if (list->parsed()) return ListTasks(*list_dir, *list_json);
         if (aud->parsed()) return AuditTasks(*audit);
         return 2;
       };
     }});

}  // namespace
