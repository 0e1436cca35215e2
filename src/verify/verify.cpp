#include "verify/verify.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "pyast/parse.h"
#include "verify/analyzer.h"
#include "verify/rules.h"
#include "verify/subset.h"

namespace tritonrl::verify {
namespace {

Finding MakeFinding(std::string_view rule, std::string detail, int line, int col) {
  const RuleInfo* info = FindRule(rule);
  Finding f;
  f.rule = std::string(rule);
  f.message = info != nullptr ? std::string(info->message) : std::string();
  f.detail = std::move(detail);
  f.line = line;
  f.col = col;
  return f;
}

// Applies the policy, de-duplicates (rule, line, col) and orders by position.
Verdict Decide(std::vector<Finding> findings, Policy policy) {
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.line, a.col, a.rule) < std::tie(b.line, b.col, b.rule);
  });
  Verdict v;
  v.policy = policy;
  std::set<std::tuple<std::string, int, int>> seen;
  for (Finding& f : findings) {
    if (!seen.emplace(f.rule, f.line, f.col).second) continue;
    const RuleInfo* info = FindRule(f.rule);
    bool warn = info != nullptr &&
                (info->warning_only || (policy == Policy::kStandard && info->strict_only));
    (warn ? v.warnings : v.violations).push_back(std::move(f));
  }
  v.syntax_ok = std::none_of(v.violations.begin(), v.violations.end(),
                             [](const Finding& f) { return f.rule.rfind("syntax.", 0) == 0; });
  v.functionality_ok = std::none_of(v.violations.begin(), v.violations.end(),
                                    [](const Finding& f) { return f.rule.rfind("func.", 0) == 0; });
  v.valid = v.syntax_ok && v.functionality_ok;
  v.outcome = v.valid ? "valid" : (!v.syntax_ok ? "invalid_syntax" : "invalid_functionality");
  return v;
}

const Allowlist& AllowlistOf(const VerifyOptions& options) {
  return options.allowlist != nullptr ? *options.allowlist : BuiltinAllowlist();
}

}  // namespace

const char* PolicyName(Policy policy) {
  return policy == Policy::kStrict ? "strict" : "standard";
}

Result<Policy> ParsePolicy(std::string_view name) {
  if (name == "standard") return Policy::kStandard;
  if (name == "strict") return Policy::kStrict;
  return Status::InvalidArgument("unknown policy '" + std::string(name) +
                                 "' (expected standard or strict)");
}

Verdict VerifyCode(std::string_view code, const VerifyOptions& options) {
  pyast::SyntaxError error;
  Result<pyast::ParsedModule> parsed = pyast::ParseModule(code, "<candidate>", &error);
  if (!parsed.ok()) {
    return Decide({MakeFinding("syntax.parse_error", error.message, error.line, error.col)},
                  options.policy);
  }
  std::vector<Finding> findings;
  for (RawFinding& raw : AnalyzeModule(parsed->module, AllowlistOf(options))) {
    findings.push_back(MakeFinding(raw.rule, std::move(raw.detail), raw.line, raw.col));
  }
  // An import the functionality rules already reject names its reason there (`from
  // torch._inductor import ...` is func.torch_compile); the subset's own finding on it adds
  // nothing.
  std::set<std::pair<int, int>> named;
  for (const Finding& f : findings) named.emplace(f.line, f.col);
  for (RawFinding& raw : CheckCandidateSubset(parsed->module)) {
    if (raw.rule == "func.subset_import" && named.count({raw.line, raw.col})) continue;
    findings.push_back(MakeFinding(raw.rule, std::move(raw.detail), raw.line, raw.col));
  }
  return Decide(std::move(findings), options.policy);
}

Verdict VerifyOutput(std::string_view output, const VerifyOptions& options) {
  ModelOutput split = SplitModelOutput(output);
  Verdict v;
  if (!split.code) {
    v = Decide({MakeFinding("syntax.no_code", "", 0, 0)}, options.policy);
  } else {
    std::string_view code = output.substr(split.code->begin, split.code->end - split.code->begin);
    v = VerifyCode(code, options);
    if (split.code_source == CodeSource::kWholeText && !v.violations.empty() &&
        v.violations.front().rule == "syntax.parse_error") {
      // Prose that does not parse is "no code", not a syntax error in code.
      v = Decide({MakeFinding("syntax.no_code", "the text after the plan is not Python", 0, 0)},
                 options.policy);
      split.code.reset();
      split.code_source = CodeSource::kNone;
    }
  }
  v.plan = split.plan;
  v.code = split.code;
  v.code_source = split.code_source;
  v.notes = std::move(split.notes);
  return v;
}

nlohmann::json ToJson(const TextSpan& span) {
  return {{"begin", span.begin},
          {"end", span.end},
          {"char_begin", span.char_begin},
          {"char_end", span.char_end}};
}

nlohmann::json ToJson(const Verdict& verdict) {
  auto findings = [](const std::vector<Finding>& list) {
    nlohmann::json arr = nlohmann::json::array();
    for (const Finding& f : list) {
      arr.push_back({{"rule", f.rule},
                     {"message", f.message},
                     {"detail", f.detail},
                     {"line", f.line},
                     {"col", f.col}});
    }
    return arr;
  };
  nlohmann::json j = {{"valid", verdict.valid},
                      {"syntax_ok", verdict.syntax_ok},
                      {"functionality_ok", verdict.functionality_ok},
                      {"outcome", verdict.outcome},
                      {"policy", PolicyName(verdict.policy)},
                      {"violations", findings(verdict.violations)},
                      {"warnings", findings(verdict.warnings)}};
  j["plan"] = verdict.plan ? ToJson(*verdict.plan) : nlohmann::json(nullptr);
  j["code"] = verdict.code ? ToJson(*verdict.code) : nlohmann::json(nullptr);
  j["code_source"] = CodeSourceName(verdict.code_source);
  j["notes"] = verdict.notes;
  return j;
}

}  // namespace tritonrl::verify
