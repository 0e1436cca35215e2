// tritonrl verify: the static verifier on bare code (FILE), a full model output (--output) or a
// sample JSONL batch (--jsonl). Exit 0 valid (all valid), 1 invalid (any invalid), 2 usage/I/O.
#include <cstdio>
#include <memory>
#include <string>

#include "base/file.h"
#include "cli/command.h"
#include "verify/batch.h"
#include "verify/verify.h"

namespace {

using tritonrl::verify::Finding;
using tritonrl::verify::Verdict;

struct VerifyArgs {
  std::string code_file;
  std::string output_file;
  std::string jsonl_file;
  std::string out_file;
  std::string policy = "standard";
  bool json = false;
  unsigned jobs = 0;
};

void PrintHuman(const std::string& name, const Verdict& v) {
  std::printf("%s: %s\n", name.c_str(), v.outcome.c_str());
  auto list = [](const char* kind, const std::vector<Finding>& findings) {
    for (const Finding& f : findings) {
      std::printf("  %s %d:%d %s: %s%s%s\n", kind, f.line, f.col, f.rule.c_str(), f.message.c_str(),
                  f.detail.empty() ? "" : " -- ", f.detail.c_str());
    }
  };
  list("error", v.violations);
  list("warning", v.warnings);
  if (v.plan) std::printf("  plan: bytes [%zu, %zu)\n", v.plan->begin, v.plan->end);
  if (v.code) {
    std::printf("  code: bytes [%zu, %zu) (%s)\n", v.code->begin, v.code->end,
                tritonrl::verify::CodeSourceName(v.code_source));
  }
  for (const std::string& note : v.notes) std::printf("  note: %s\n", note.c_str());
}

int RunBatch(const VerifyArgs& args, const tritonrl::verify::VerifyOptions& options) {
  auto content = tritonrl::ReadFile(args.jsonl_file);
  if (!content.ok()) {
    std::fprintf(stderr, "tritonrl verify: %s\n", content.status().ToString().c_str());
    return 2;
  }
  tritonrl::verify::SampleFile file = tritonrl::verify::ParseSampleJsonl(*content, args.jsonl_file);
  std::vector<Verdict> verdicts = tritonrl::verify::VerifySamples(file.samples, options, args.jobs);
  std::string lines;
  bool all_valid = true;
  for (size_t i = 0; i < verdicts.size(); ++i) {
    all_valid = all_valid && verdicts[i].valid;
    lines += tritonrl::verify::SampleVerdictJson(file.samples[i], verdicts[i]).dump();
    lines += '\n';
  }
  // Verdicts for the lines before a bad one are written before the error is reported.
  if (args.out_file.empty()) {
    std::fwrite(lines.data(), 1, lines.size(), stdout);
    std::fflush(stdout);
  } else if (auto st = tritonrl::WriteFileAtomic(args.out_file, lines); !st.ok()) {
    std::fprintf(stderr, "tritonrl verify: %s\n", st.ToString().c_str());
    return 2;
  }
  if (!file.error.ok()) {
    std::fprintf(stderr, "tritonrl verify: error: %s\n", file.error.message().c_str());
    return 2;
  }
  return all_valid ? 0 : 1;
}

int RunVerify(const VerifyArgs& args) {
  int sources = !args.code_file.empty() + !args.output_file.empty() + !args.jsonl_file.empty();
  if (sources != 1) {
    std::fprintf(stderr,
                 "tritonrl verify: give exactly one of FILE, --output FILE, --jsonl FILE\n");
    return 2;
  }
  auto policy = tritonrl::verify::ParsePolicy(args.policy);
  if (!policy.ok()) {
    std::fprintf(stderr, "tritonrl verify: %s\n", policy.status().message().c_str());
    return 2;
  }
  tritonrl::verify::VerifyOptions options;
  options.policy = *policy;
  if (!args.jsonl_file.empty()) return RunBatch(args, options);

  const std::string& path = args.code_file.empty() ? args.output_file : args.code_file;
  auto content = tritonrl::ReadFile(path);
  if (!content.ok()) {
    std::fprintf(stderr, "tritonrl verify: %s\n", content.status().ToString().c_str());
    return 2;
  }
  Verdict v = args.code_file.empty() ? tritonrl::verify::VerifyOutput(*content, options)
                                     : tritonrl::verify::VerifyCode(*content, options);
  if (args.json) {
    nlohmann::json j = tritonrl::verify::ToJson(v);
    j["file"] = path;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    PrintHuman(path, v);
  }
  return v.valid ? 0 : 1;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"verify", "Static verifier: TritonRL syntax and functionality rules (docs/rules.md)",
     [](CLI::App& sub) -> tritonrl::cli::CommandAction {
       auto args = std::make_shared<VerifyArgs>();
       sub.add_option("file", args->code_file, "bare candidate code (.py)");
       sub.add_option("--output", args->output_file,
                      "a full model output (<think> plan + fenced code)");
       sub.add_option("--jsonl", args->jsonl_file,
                      "batch: lines {\"task\",\"sample\",\"output\"|\"code\"}; verdicts as JSONL");
       sub.add_option("--out", args->out_file,
                      "with --jsonl: write verdicts here instead of stdout");
       sub.add_flag("--json", args->json, "print the verdict as JSON");
       sub.add_option("--policy", args->policy, "standard (default) or strict")
           ->check(CLI::IsMember({"standard", "strict"}));
       sub.add_option("--jobs", args->jobs, "threads for --jsonl (default: all cores)");
       return [args]() { return RunVerify(*args); };
     }});

}  // namespace
