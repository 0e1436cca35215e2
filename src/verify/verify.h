// The static verifier: TritonRL-style syntax and functionality checks on candidate code, with
// stable rule ids (docs/rules.md). Thread-safe and free of global mutable state: call it from any
// number of threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "verify/allowlist.h"
#include "verify/output.h"

namespace tritonrl::verify {

enum class Policy { kStandard, kStrict };

const char* PolicyName(Policy policy);
Result<Policy> ParsePolicy(std::string_view name);

struct VerifyOptions {
  Policy policy = Policy::kStandard;
  // Null means the allowlist built into the binary (src/verify/allowlist.json at build time).
  const Allowlist* allowlist = nullptr;
};

struct Finding {
  std::string rule;     // stable id, e.g. "func.torch_compute"
  std::string message;  // the rule's one-line message
  std::string detail;   // what matched, e.g. "torch.matmul"
  int line = 0;         // 1-based; 0 when the finding is about the whole file
  int col = 0;          // 1-based, in UTF-8 bytes (as CPython's col_offset + 1)
};

struct Verdict {
  bool valid = false;
  bool syntax_ok = false;
  bool functionality_ok = false;
  std::string outcome;  // "valid", "invalid_syntax" or "invalid_functionality"
  Policy policy = Policy::kStandard;
  std::vector<Finding> violations;
  std::vector<Finding> warnings;
  std::optional<TextSpan> plan;  // set by VerifyOutput
  std::optional<TextSpan> code;  // set by VerifyOutput
  CodeSource code_source = CodeSource::kNone;
  std::vector<std::string> notes;
};

// Checks bare candidate code.
Verdict VerifyCode(std::string_view code, const VerifyOptions& options);
// Splits a full model output (SplitModelOutput) and checks its code; spans are byte offsets into
// `output`.
Verdict VerifyOutput(std::string_view output, const VerifyOptions& options);

nlohmann::json ToJson(const Verdict& verdict);
nlohmann::json ToJson(const TextSpan& span);

}  // namespace tritonrl::verify
