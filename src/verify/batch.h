// Batch verification of sample JSONL ({"task","sample","output"|"code"} per line) on all cores.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "verify/verify.h"

namespace tritonrl::verify {

struct Sample {
  int line = 0;           // 1-based line in the file
  nlohmann::json task;    // kept as given (string or number)
  nlohmann::json sample;  // kept as given
  std::string text;       // the output or the code
  bool is_output = true;  // "output" (full model output) or "code" (bare code)
};

struct SampleFile {
  std::vector<Sample> samples;  // every well-formed line before the first bad one
  Status error;                 // "FILE:LINE: why" for the first bad line; ok if none
};

// Blank lines are skipped. Parsing stops at the first malformed line (not JSON, not an object,
// no "output"/"code" string), keeping the samples before it.
SampleFile ParseSampleJsonl(std::string_view content, std::string_view filename);

// Verifies every sample with `jobs` threads (0: all cores); verdicts are in input order.
std::vector<Verdict> VerifySamples(const std::vector<Sample>& samples, const VerifyOptions& options,
                                   unsigned jobs);

// One output line: {"task", "sample", ...ToJson(verdict)}.
nlohmann::json SampleVerdictJson(const Sample& sample, const Verdict& verdict);

}  // namespace tritonrl::verify
