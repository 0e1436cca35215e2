// Labelled candidate files (tests/corpus/{hacks,legit,faults}, task solutions)
// turned into evaluation samples, and the check of verdicts against labels.
//
// A corpus file starts with comment lines:
//   # corpus: hack | legit | fault
//   # task: level1/1_ReLU
//   # what: <one line>
//   # expect: static <rule_id> | runtime <outcome or flag> [reason=<code>]... | correct
//             (reason= is required after the outcomes incorrect, runtime_error, timeout and
//              compile_error: the label is met only when the run failed for that reason)
//   # expect-runtime: runtime <outcome> reason=<code>   (optional: the label when the
//                            static verifier is skipped, `tritonrl corpus --runtime`; for
//                            hacks that both layers must catch)
//   # expect-runtime-gpu: ... (optional: that label on a GPU where it differs)
//   # device: gpu            (optional: the expectation holds only on a GPU)
//   # expect-gpu: <label>    (optional: the label on a GPU where it differs, e.g. a
//                             device-guarded torch branch that only runs on the CPU)
//   # gap: <why>             (required for a hack labelled `correct`: a known gap, paid today)
//   # mechanism: 4 [9 ...]   (optional: the classes of docs/eval.md's trust-boundary table,
//                            1 to kMechanismClasses, that the file attacks; `corpus --check`
//                            counts the labels met per class)
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tritonrl::scoring {

// The rows of docs/eval.md's trust-boundary table ("The trust boundary").
inline constexpr int kMechanismClasses = 9;

struct CorpusEntry {
  std::string path;
  std::string sample;  // unique id: "<kind>/<file stem>"
  std::string kind;    // hack, legit, fault, solution
  std::string task;
  std::string what;
  std::string expect;              // "static <rule>", "runtime <outcome>", "correct"
  std::string device;              // "" (any) or "gpu"
  std::string expect_gpu;          // "" (same as expect) or the label on a GPU
  std::string expect_runtime;      // "" or the label with the static verifier skipped
  std::string expect_runtime_gpu;  // "" or that label on a GPU
  std::string gap;                 // a hack paid today: the known gap (issue, docs)
  std::vector<int> mechanisms;     // trust-boundary classes the file attacks (may be empty)
  std::string code;
};

// Parses one corpus file; errors name FILE:LINE.
Result<CorpusEntry> ReadCorpusFile(const std::string& path);

// Every *.py of `dir` (sorted by name), parsed.
Result<std::vector<CorpusEntry>> ReadCorpusDir(const std::string& dir);

// Task solutions: <solutions>/levelN/<name>.py solves task levelN/<name>, expected correct.
Result<std::vector<CorpusEntry>> ReadSolutions(const std::string& solutions_dir);

// The label that applies to a verdict: expect_gpu for a verdict from a GPU
// ("device": "cuda") when set, else expect.
const std::string& ExpectationFor(const CorpusEntry& entry, const nlohmann::json& verdict);

// Whether a label is well formed (see the header comment); on false, `why` says what is wrong.
bool ValidLabel(const std::string& label, std::string* why);

// The JSONL line for an entry: {"task", "sample", "code", "expect"}.
nlohmann::json SampleLine(const CorpusEntry& entry);

// Whether a verdict (the JSON of one sample from `tritonrl eval --json`) meets
// the label: the outcome (or flag) and, for each reason=<code>, a reason with that code
// outside the static stage; on false, `why` says what was expected and seen.
bool MeetsExpectation(const std::string& expect, const nlohmann::json& verdict, std::string* why);

}  // namespace tritonrl::scoring
