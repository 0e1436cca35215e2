#include "rl/rollouts_jsonl.h"

#include <map>
#include <optional>
#include <utility>

namespace tritonrl::rl {
namespace {

using json = nlohmann::ordered_json;

Result<std::optional<bool>> OptionalBool(const json& j, const char* key) {
  if (!j.contains(key)) return std::optional<bool>();
  if (!j[key].is_boolean())
    return Status::InvalidArgument(std::string("field '") + key + "' must be true or false");
  return std::optional<bool>(j[key].get<bool>());
}

Result<std::optional<IndexRange>> OptionalSpan(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::optional<IndexRange>();
  const json& v = j[key];
  if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer())
    return Status::InvalidArgument(std::string("field '") + key +
                                   "' must be [start, end] with integer token indices, or null");
  return std::optional<IndexRange>(IndexRange{v[0].get<int64_t>(), v[1].get<int64_t>()});
}

}  // namespace

Result<RolloutRecord> ParseRolloutLine(std::string_view line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::ParseError("malformed JSON (truncated line?)");
  if (!j.is_object()) return Status::ParseError("expected a JSON object");

  RolloutRecord r;
  // A verdict of `tritonrl eval --jsonl/--json` has no "group": rollouts of one task are the
  // group there (GRPO samples a group per prompt, and the prompt is the task).
  if (j.contains("group")) {
    if (!(j["group"].is_string() || j["group"].is_number_integer()))
      return Status::InvalidArgument("field 'group' must be a string or integer");
    r.group = j["group"].dump();
  } else if (j.contains("task") && j["task"].is_string()) {
    r.group = j["task"].dump();
  } else {
    return Status::InvalidArgument("field 'group' (a string or integer) or 'task' is required");
  }

  auto valid = OptionalBool(j, "valid");
  if (!valid.ok()) return valid.status();
  auto syntax = OptionalBool(j, "syntax_ok");
  if (!syntax.ok()) return syntax.status();
  auto func = OptionalBool(j, "functionality_ok");
  if (!func.ok()) return func.status();
  if (syntax->has_value() || func->has_value()) {
    if (!syntax->has_value() || !func->has_value())
      return Status::InvalidArgument("give both 'syntax_ok' and 'functionality_ok', or 'valid'");
    r.verdict.syntax_ok = **syntax;
    r.verdict.functionality_ok = **func;
    if (valid->has_value() && **valid != (**syntax && **func))
      return Status::InvalidArgument("'valid' contradicts syntax_ok and functionality_ok");
  } else if (valid->has_value()) {
    r.verdict.syntax_ok = r.verdict.functionality_ok = **valid;
  } else {
    return Status::InvalidArgument("field 'valid' (or syntax_ok and functionality_ok) is required");
  }

  auto correct = OptionalBool(j, "correct");
  if (!correct.ok()) return correct.status();
  if (!correct->has_value()) return Status::InvalidArgument("field 'correct' is required");
  r.verdict.correct = **correct;
  auto is_triton = OptionalBool(j, "is_triton");
  if (!is_triton.ok()) return is_triton.status();
  r.verdict.is_triton = *is_triton;
  auto outputs_match = OptionalBool(j, "outputs_match");
  if (!outputs_match.ok()) return outputs_match.status();
  r.verdict.outputs_match = *outputs_match;

  if (j.contains("speedup") && !j["speedup"].is_null()) {
    if (!j["speedup"].is_number())
      return Status::InvalidArgument("field 'speedup' must be a number or null");
    r.verdict.speedup = j["speedup"].get<double>();
  }
  if (j.contains("flags")) {
    if (!j["flags"].is_array())
      return Status::InvalidArgument("field 'flags' must be an array of strings");
    for (const auto& f : j["flags"]) {
      if (!f.is_string())
        return Status::InvalidArgument("field 'flags' must be an array of strings");
      r.verdict.flags.push_back(f.get<std::string>());
    }
  }

  auto plan = OptionalSpan(j, "plan_span");
  if (!plan.ok()) return plan.status();
  auto code = OptionalSpan(j, "code_span");
  if (!code.ok()) return code.status();
  r.spans = {*plan, *code};
  if (j.contains("num_tokens")) {
    if (!j["num_tokens"].is_number_integer() || j["num_tokens"].get<int64_t>() < 0)
      return Status::InvalidArgument("field 'num_tokens' must be an integer >= 0");
    r.num_tokens = j["num_tokens"].get<int64_t>();
  }
  TRITONRL_RETURN_IF_ERROR(ValidateCompletionSpans(r.spans, r.num_tokens));
  r.source = std::move(j);
  return r;
}

namespace {

// The document of `tritonrl eval --json`: {"samples": [verdict, ...], ...}. Anything else
// (JSONL among it) is not one; nullopt then.
std::optional<Result<std::vector<RolloutRecord>>> ParseEvalDocument(std::string_view text,
                                                                    std::string_view file_name) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return std::nullopt;
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("samples") ||
      !doc["samples"].is_array())
    return std::nullopt;
  std::vector<RolloutRecord> out;
  for (size_t i = 0; i < doc["samples"].size(); ++i) {
    auto rec = ParseRolloutLine(doc["samples"][i].dump());
    if (!rec.ok())
      return Result<std::vector<RolloutRecord>>(
          Status::InvalidArgument(std::string(file_name) + ": samples[" + std::to_string(i) +
                                  "]: " + rec.status().message()));
    out.push_back(std::move(rec).value());
  }
  return Result<std::vector<RolloutRecord>>(std::move(out));
}

}  // namespace

Result<std::vector<RolloutRecord>> ParseRolloutsJsonl(std::string_view text,
                                                      std::string_view file_name) {
  if (auto doc = ParseEvalDocument(text, file_name)) return std::move(*doc);
  std::vector<RolloutRecord> out;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto rec = ParseRolloutLine(line);
    if (!rec.ok()) {
      const Status& s = rec.status();
      std::string msg = std::string(file_name) + ":" + std::to_string(line_no) + ": " + s.message();
      return s.code() == StatusCode::kParseError ? Status::ParseError(msg)
                                                 : Status::InvalidArgument(msg);
    }
    out.push_back(std::move(rec).value());
  }
  return out;
}

Result<AdvantagesResult> ComputeAdvantages(const std::vector<RolloutRecord>& records,
                                           const RewardConfig& reward_config,
                                           const AdvantageConfig& advantage_config) {
  TRITONRL_RETURN_IF_ERROR(ValidateRewardConfig(reward_config));
  TRITONRL_RETURN_IF_ERROR(ValidateAdvantageConfig(advantage_config));
  AdvantagesResult out;
  out.report.rollouts = records.size();

  std::vector<Rewards> rewards;
  rewards.reserve(records.size());
  for (const auto& r : records) {
    rewards.push_back(ComputeRewards(r.verdict, reward_config));
    out.report.speedup_voided += rewards.back().speedup_voided;
    out.report.speedup_missing += rewards.back().speedup_missing;
  }

  // Group members in input order; groups keyed by their compact JSON.
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < records.size(); ++i) groups[records[i].group].push_back(i);
  out.report.groups = groups.size();

  std::vector<RolloutAdvantage> adv(records.size());
  std::vector<bool> filtered(records.size(), false);
  for (const auto& [key, members] : groups) {
    std::vector<Rewards> g;
    std::vector<RolloutVerdict> verdicts;
    for (size_t i : members) {
      g.push_back(rewards[i]);
      verdicts.push_back(records[i].verdict);
    }
    ApplyGroupSpeedupRules(g, verdicts, reward_config);
    for (size_t k = 0; k < members.size(); ++k) {
      rewards[members[k]] = g[k];
      out.report.speedup_imputed += g[k].speedup_imputed;
    }
    auto ga = ComputeGroupAdvantages(g, advantage_config);
    if (!ga.ok()) return Status::InvalidArgument("group " + key + ": " + ga.status().message());
    out.report.constant_groups += ga->constant;
    out.report.filtered_groups += ga->filtered;
    for (size_t k = 0; k < members.size(); ++k) {
      adv[members[k]] = ga->rollouts[k];
      filtered[members[k]] = ga->filtered;
    }
  }

  out.lines.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    json line = records[i].source;
    line["r_correct"] = rewards[i].r_correct;
    line["r_speedup"] = rewards[i].r_speedup;
    line["r_binary"] = rewards[i].r_binary;
    if (rewards[i].speedup_imputed) line["speedup_imputed"] = true;
    line["adv_plan"] = adv[i].plan;
    line["adv_code"] = adv[i].code;
    line["filtered"] = static_cast<bool>(filtered[i]);
    if (records[i].num_tokens) {
      auto spans = TokenAdvantageSpans(*records[i].num_tokens, records[i].spans, adv[i]);
      if (!spans.ok()) return spans.status();  // validated at parse time; kept for safety
      json js = json::array();
      for (const auto& s : *spans) js.push_back({s.begin, s.end, s.advantage});
      line["token_spans"] = js;
    }
    out.lines.push_back(std::move(line));
  }
  return out;
}

}  // namespace tritonrl::rl
