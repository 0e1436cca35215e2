#include "scoring/records.h"

#include <algorithm>

#include <fmt/format.h>

#include "eval/evidence.h"

namespace tritonrl::scoring {

using nlohmann::json;

namespace {

// The outcome a stored record names; Corruption naming the record for any other string.
Result<vocab::Outcome> StoredOutcome(const store::VerdictRecord& r) {
  const auto outcome = vocab::ParseOutcome(r.outcome);
  if (!outcome) {
    return Status::Corruption(
        fmt::format("results store: verdict of {} {} in run {}: unknown outcome \"{}\"",
                    r.key.task_id, r.key.sample_id, r.key.run_id, r.outcome));
  }
  return *outcome;
}

// The reward inputs of a verdict as stored (the verdict JSON is left to the caller).
Result<ScoredSample> RewardInputs(const store::VerdictRecord& r) {
  const auto outcome = StoredOutcome(r);
  if (!outcome.ok()) return outcome.status();
  ScoredSample s;
  s.task = r.key.task_id;
  s.id = r.key.sample_id;
  s.outcome = *outcome;
  s.syntax_ok = r.syntax_ok;
  s.functionality_ok = r.functionality_ok;
  s.valid = r.syntax_ok && r.functionality_ok;
  s.compiled = r.compiled;
  s.correct = *outcome == vocab::Outcome::kCorrect;
  s.speedup = r.speedup;
  s.flags = r.flags;
  s.from_cache = r.from_cache;
  return s;
}

// AutoTriton's reward inputs, where the verdict has them (ScoringConfig::autotriton_check).
void ReadAutoTriton(ScoredSample& s) {
  const auto e = s.verdict.find("evidence");
  if (e == s.verdict.end()) return;
  if (const auto a = eval::ReadEvidence<eval::AutoTritonEvidence>(*e)) {
    s.is_triton = a->is_triton;
    s.outputs_match = a->outputs_match;
  }
}

// RecordJson's overrides on the full verdict.
void SetRecordKeys(json& j, const store::VerdictRecord& r) {
  j["sample"] = r.key.sample_id;
  j["task"] = r.key.task_id;
  j["outcome"] = r.outcome;
  j["from_cache"] = r.from_cache;
}

}  // namespace

bool IsReferenceFailure(const eval::Verdict& v) {
  // eval/engine.cpp: a reference that did not finish gives its reason (stage "reference") to
  // every sample of the task; code reference_failed, or resource_exhausted when only the spill
  // space ran out (the host's state, not the task's: left as it is).
  return std::any_of(v.reasons.begin(), v.reasons.end(), [](const eval::Reason& r) {
    return r.stage == "reference" && r.code == "reference_failed";
  });
}

eval::Verdict StaticVerdict(const verify::Verdict& sv) {
  eval::Verdict v;
  // verify::Verdict's own outcome string for a rejection (src/verify/verify.cpp).
  v.outcome = sv.syntax_ok ? vocab::Outcome::kInvalidFunctionality : vocab::Outcome::kInvalidSyntax;
  v.syntax_ok = sv.syntax_ok;
  v.functionality_ok = sv.functionality_ok;
  for (const auto& f : sv.violations) {
    v.reasons.push_back(
        {"static", f.rule,
         f.line > 0 ? fmt::format("line {}:{}: {} ({})", f.line, f.col, f.message, f.detail)
                    : fmt::format("{} ({})", f.message, f.detail)});
  }
  v.evidence["static"] = verify::ToJson(sv);
  return v;
}

store::VerdictRecord ToRecord(const eval::Verdict& v, const store::SampleKey& key,
                              const std::string& cache_key, const std::string& device_model) {
  store::VerdictRecord r;
  r.key = key;
  r.cache_key = cache_key;
  // Out of memory says how busy the host was, not what the sample is worth: never reused.
  r.cacheable = !v.infra_failure && v.outcome != vocab::Outcome::kResourceExhausted;
  r.from_cache = v.from_cache;
  r.outcome = std::string(vocab::OutcomeName(v.outcome));
  r.syntax_ok = v.syntax_ok;
  r.functionality_ok = v.functionality_ok;
  r.valid = v.syntax_ok && v.functionality_ok;
  r.compiled = v.compiled;
  r.correct = v.outcome == vocab::Outcome::kCorrect;
  r.speedup = v.speedup;
  r.flags = v.flags;
  // The engine gives every sample of a task whose reference failed a runtime_error with the
  // reference's reason; the flag makes it the task's failure wherever the verdict is read
  // (metrics leave it out, rewards pay nothing), live or from the store.
  if (IsReferenceFailure(v) &&
      std::find(r.flags.begin(), r.flags.end(), vocab::flag::kReferenceFailed) == r.flags.end())
    r.flags.emplace_back(vocab::flag::kReferenceFailed);
  for (const auto& reason : v.reasons)
    r.reasons.push_back(fmt::format("[{}] {}: {}", reason.stage, reason.code, reason.message));
  r.evidence_json = v.ToJson().dump();
  r.sandbox_level =
      v.sandbox.is_object() && v.sandbox.contains("level") && v.sandbox["level"].is_string()
          ? v.sandbox["level"].get<std::string>()
          : "n/a";
  r.device_model = device_model;
  r.wall_seconds = v.wall_ms / 1000.0;
  // The timed trials of both sides (docs/measurement.md), for the store's timing table.
  if (const auto timed = eval::ReadEvidence<eval::TimedCallsEvidence>(v.evidence)) {
    for (const auto& [who, series] : {std::pair{"reference", &timed->reference_event_ms},
                                      std::pair{"candidate", &timed->candidate_event_ms}}) {
      if (!*series) continue;
      const eval::Stats& s = **series;
      store::TrialStats ts;
      ts.subject = who;
      ts.variant = timed->variant;
      ts.trials = s.n;
      ts.median_ms = s.median;
      ts.mean_ms = s.mean;
      ts.min_ms = s.min;
      ts.max_ms = s.max;
      ts.stddev_ms = s.stddev;
      r.trial_stats.push_back(ts);
    }
  }
  if (v.timings_ms.is_object()) {
    for (const auto& [stage, ms] : v.timings_ms.items()) {
      if (ms.is_number()) r.stage_timings.push_back({stage, ms.get<double>() / 1000.0});
    }
  }
  return r;
}

json RecordJson(const store::VerdictRecord& r) {
  json j = json::parse(r.evidence_json, nullptr, false);
  if (!j.is_object()) j = json::object();
  SetRecordKeys(j, r);
  return j;
}

Result<eval::Verdict> CachedVerdict(const store::VerdictRecord& r, const std::string& device) {
  const auto outcome = StoredOutcome(r);
  if (!outcome.ok()) return outcome.status();
  const json j = RecordJson(r);
  eval::Verdict v;
  v.outcome = *outcome;
  v.from_cache = true;
  v.syntax_ok = r.syntax_ok;
  v.functionality_ok = r.functionality_ok;
  v.compiled = r.compiled;
  v.speedup = r.speedup;
  v.flags = r.flags;
  if (j.contains("reasons") && j["reasons"].is_array()) {
    for (const auto& reason : j["reasons"]) {
      if (!reason.is_object()) continue;
      v.reasons.push_back(
          {reason.value("stage", ""), reason.value("code", ""), reason.value("message", "")});
    }
  }
  v.sandbox = j.value("sandbox", json::object());
  v.evidence = j.value("evidence", json::object());
  v.timings_ms = j.value("timings_ms", json::object());
  v.device = device;
  v.provisional = device == "cpu";
  return v;
}

Result<ScoredSample> FromRecord(const store::VerdictRecord& r) {
  auto s = RewardInputs(r);
  if (s.ok()) {
    s->verdict = RecordJson(r);
    ReadAutoTriton(*s);
  }
  return s;
}

Result<ScoredSample> Scored(const eval::Verdict& v, const store::VerdictRecord& r) {
  auto s = RewardInputs(r);
  if (!s.ok()) return s;
  s->verdict = v.ToJson();  // what r.evidence_json holds, without printing and parsing it
  SetRecordKeys(s->verdict, r);
  ReadAutoTriton(*s);
  return s;
}

json ToJson(const ScoredSample& s) {
  json j = s.verdict.is_object() ? s.verdict : json::object();
  j["task"] = s.task;
  j["sample"] = s.id;
  j["outcome"] = std::string(vocab::OutcomeName(s.outcome));
  j["syntax_ok"] = s.syntax_ok;
  j["functionality_ok"] = s.functionality_ok;
  j["valid"] = s.valid;
  j["compiled"] = s.compiled;
  j["correct"] = s.correct;
  j["speedup"] = s.speedup ? json(*s.speedup) : json(nullptr);
  j["flags"] = s.flags;
  // `tritonrl advantages` reads these for --mode binary (rl/rollouts_jsonl.h).
  if (s.is_triton) j["is_triton"] = *s.is_triton;
  if (s.outputs_match) j["outputs_match"] = *s.outputs_match;
  j["from_cache"] = s.from_cache;
  return j;
}

}  // namespace tritonrl::scoring
