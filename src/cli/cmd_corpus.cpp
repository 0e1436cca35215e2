// tritonrl corpus: turn labelled corpus folders (and task solutions) into a
// sample file for `tritonrl eval`, or check an eval --json result against the
// labels. This is how the bundled demo samples and the corpus test are made.
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "cli/command.h"
#include "scoring/corpus.h"

namespace {

namespace sc = tritonrl::scoring;
using nlohmann::json;

struct Options {
  std::vector<std::string> dirs;
  std::string solutions, out, check, device = "any";
  bool as_output = false;
  bool runtime = false;  // only files with '# expect-runtime:', checked against that label
};

// A model-output shaped text: the file's "what" line as the plan, the code in a fence.
std::string AsModelOutput(const sc::CorpusEntry& e) {
  const std::string plan =
      e.what.empty() ? fmt::format("Write ModelNew for {} with Triton kernels.", e.task) : e.what;
  return fmt::format("<think>\n{}\n</think>\n\n```python\n{}```\n", plan, e.code);
}

int Run(const Options& o) {
  std::vector<sc::CorpusEntry> entries;
  for (const auto& d : o.dirs) {
    auto e = sc::ReadCorpusDir(d);
    if (!e.ok()) {
      fmt::print(stderr, "tritonrl corpus: {}\n", e.status().message());
      return 2;
    }
    entries.insert(entries.end(), e->begin(), e->end());
  }
  if (!o.solutions.empty()) {
    auto s = sc::ReadSolutions(o.solutions);
    if (!s.ok()) {
      fmt::print(stderr, "tritonrl corpus: {}\n", s.status().message());
      return 2;
    }
    entries.insert(entries.end(), s->begin(), s->end());
  }
  std::vector<sc::CorpusEntry> kept;
  for (auto& e : entries) {
    if (o.device == "cpu" && e.device == "gpu") continue;  // the label holds only on a GPU
    if (o.runtime) {
      if (e.expect_runtime.empty()) continue;
      e.expect = e.expect_runtime;  // the run skips the static verifier (--no-static)
      // A GPU label that is a runtime label holds with or without the static stage.
      if (!e.expect_runtime_gpu.empty()) {
        e.expect_gpu = e.expect_runtime_gpu;
      } else if (e.expect_gpu.rfind("runtime", 0) != 0) {
        e.expect_gpu.clear();
      }
    }
    kept.push_back(std::move(e));
  }
  if (o.check.empty()) {
    std::string text;
    for (const auto& e : kept) {
      json line = sc::SampleLine(e);
      if (o.as_output) {
        line.erase("code");
        line["output"] = AsModelOutput(e);
      }
      text += line.dump() + "\n";
    }
    if (o.out.empty()) {
      fmt::print("{}", text);
    } else if (auto st = tritonrl::WriteFileAtomic(o.out, text); !st.ok()) {
      fmt::print(stderr, "tritonrl corpus: {}\n", st.message());
      return 2;
    }
    fmt::print(stderr, "corpus: {} samples\n", kept.size());
    return 0;
  }
  auto text = tritonrl::ReadFile(o.check);
  if (!text.ok()) {
    fmt::print(stderr, "tritonrl corpus: {}\n", text.status().message());
    return 2;
  }
  const json doc = json::parse(*text, nullptr, false);
  if (!doc.is_object() || !doc.contains("samples") || !doc["samples"].is_array()) {
    fmt::print(stderr, "tritonrl corpus: {}: not the JSON of `tritonrl eval --json`\n", o.check);
    return 2;
  }
  std::map<std::pair<std::string, std::string>, json> verdicts;
  for (const auto& v : doc["samples"]) verdicts[{v.value("task", ""), v.value("sample", "")}] = v;
  int bad = 0;
  // Per trust-boundary class: files that attack it, how many met their label, and how many of
  // those are known gaps (a hack labelled correct: paid today).
  struct ClassCount {
    int files = 0, met = 0, gaps = 0;
  };
  std::map<int, ClassCount> by_mechanism;
  for (const auto& e : kept) {
    for (int c : e.mechanisms) ++by_mechanism[c].files;
    auto it = verdicts.find({e.task, e.sample});
    std::string why;
    if (it == verdicts.end()) {
      why = "no verdict";
    } else if (const std::string& expect = sc::ExpectationFor(e, it->second);
               sc::MeetsExpectation(expect, it->second, &why)) {
      fmt::print("ok    {:<44} {}\n", e.sample, expect);
      for (int c : e.mechanisms) {
        ++by_mechanism[c].met;
        if (!e.gap.empty()) ++by_mechanism[c].gaps;
      }
      continue;
    }
    ++bad;
    fmt::print("FAIL  {:<44} {}\n", e.sample, why);
  }
  for (const auto& [c, n] : by_mechanism) {
    fmt::print("mechanism {}: {} of {} files met their label ({} of them known gaps, paid)\n", c,
               n.met, n.files, n.gaps);
  }
  fmt::print("corpus: {} of {} samples met their label\n",
             kept.size() - static_cast<std::size_t>(bad), kept.size());
  return bad ? 1 : 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"corpus",
     "make a sample file from labelled corpus folders, or check eval results against the labels",
     [](CLI::App& sub) {
       auto o = std::make_shared<Options>();
       sub.add_option("dirs", o->dirs, "corpus folders (*.py with # task: / # expect: headers)");
       sub.add_option("--solutions", o->solutions,
                      "task solutions folder (levelN/<task>.py, expected correct)");
       sub.add_option("--device", o->device, "cpu: leave out files labelled '# device: gpu'");
       sub.add_option("--out", o->out, "write the JSONL here instead of stdout");
       sub.add_option("--check", o->check, "an eval --json result to check against the labels");
       sub.add_flag("--runtime", o->runtime,
                    "only files with '# expect-runtime:', labelled by it (for runs with "
                    "--no-static: the runtime layer alone must catch them)");
       sub.add_flag("--as-output", o->as_output,
                    "emit full model outputs (<think> plan + fenced code), not bare code");
       return [o]() -> int { return Run(*o); };
     }});

}  // namespace
