#include "eval/evidence.h"

namespace tritonrl::eval {
using nlohmann::json;

void to_json(json& j, const PoolEvidence& e) {
  j = {{"thread", e.thread},
       {"start_ms", e.start_ms},
       {"end_ms", e.end_ms},
       {"ran_reference", e.ran_reference}};
  if (e.reference_kept) j["reference_kept"] = true;
  if (!e.reference_oom_reruns.empty()) j["reference_oom_reruns"] = e.reference_oom_reruns;
}

void from_json(const json& j, PoolEvidence& e) {
  e = PoolEvidence{};
  e.thread = j.value("thread", 0);
  e.start_ms = j.value("start_ms", 0.0);
  e.end_ms = j.value("end_ms", 0.0);
  e.ran_reference = j.value("ran_reference", false);
  e.reference_kept = j.value("reference_kept", false);
  e.reference_oom_reruns = j.value("reference_oom_reruns", std::vector<std::string>{});
}

void to_json(json& j, const TimedCallsEvidence& e) {
  j = {{"variant", e.variant}};
  if (e.reference_event_ms) j["reference_event_ms"] = *e.reference_event_ms;
  if (e.candidate_event_ms) j["candidate_event_ms"] = *e.candidate_event_ms;
}

void from_json(const json& j, TimedCallsEvidence& e) {
  e = TimedCallsEvidence{};
  if (!j.is_object()) return;
  if (auto it = j.find("variant"); it != j.end() && it->is_string())
    e.variant = it->get<std::string>();
  const auto series = [&j](const char* key) -> std::optional<Stats> {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_object()) return std::nullopt;
    return it->get<Stats>();
  };
  e.reference_event_ms = series("reference_event_ms");
  e.candidate_event_ms = series("candidate_event_ms");
}

void to_json(json& j, const AutoTritonEvidence& e) {
  j = {{"is_triton", e.is_triton}, {"outputs_match", e.outputs_match}};
  if (!e.engine_outcome.empty()) j["engine_outcome"] = e.engine_outcome;
}

void from_json(const json& j, AutoTritonEvidence& e) {
  e = AutoTritonEvidence{};
  e.is_triton = j.value("is_triton", false);
  e.outputs_match = j.value("outputs_match", false);
  e.engine_outcome = j.value("engine_outcome", std::string());
}

}  // namespace tritonrl::eval
