// The JSONL form of a batch of rollouts (`tritonrl advantages`): parse, group by
// "group", compute rewards and advantages, and render the output lines. The
// schema is in docs/rl.md.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "rl/advantages.h"
#include "rl/rewards.h"
#include "rl/token_spans.h"

namespace tritonrl::rl {

struct RolloutRecord {
  nlohmann::ordered_json source;  // the input object, echoed in the output
  std::string group;              // the "group" value as compact JSON (1 and "1" differ)
  RolloutVerdict verdict;
  CompletionSpans spans;
  std::optional<int64_t> num_tokens;
};

// One input line (already known not to be blank). Errors do not name a file or
// line; ParseRolloutsJsonl adds them.
Result<RolloutRecord> ParseRolloutLine(std::string_view line);

// Every non-blank line; the first bad one fails the whole parse with
// "<file_name>:<line>: <reason>". A whole document of `tritonrl eval --json` (an object with a
// "samples" array) is read as its samples, errors naming "<file_name>: samples[i]".
Result<std::vector<RolloutRecord>> ParseRolloutsJsonl(std::string_view text,
                                                      std::string_view file_name);

struct AdvantagesReport {
  size_t groups = 0;
  size_t rollouts = 0;
  size_t constant_groups = 0;  // all rewards equal: zero advantages
  size_t filtered_groups = 0;  // constant groups marked filtered
  size_t speedup_voided = 0;   // rollouts whose speedup term a flag zeroed
  size_t speedup_missing = 0;  // correct rollouts without a usable speedup
  size_t speedup_imputed = 0;  // unknown speedups given their group's trusted mean
};

struct AdvantagesResult {
  std::vector<nlohmann::ordered_json> lines;  // input order
  AdvantagesReport report;
};

// Groups the records by "group" (members need not be adjacent) and adds
// r_correct, r_speedup, r_binary, adv_plan, adv_code, filtered, and token_spans
// ([[start, end, advantage], ...]) when the record has num_tokens.
Result<AdvantagesResult> ComputeAdvantages(const std::vector<RolloutRecord>& records,
                                           const RewardConfig& reward_config,
                                           const AdvantageConfig& advantage_config);

}  // namespace tritonrl::rl
