// The parts of a verdict's evidence (Verdict::evidence, docs/eval.md) that C++ reads back, as
// typed structs with their JSON: the pool writes PoolEvidence, AdmissionEvidence and
// OomRerunEvidence, the timing stage TimedCallsEvidence, the scoring library AutoTritonEvidence;
// the scoring library reads the timed calls back into the store's timing table and the reward's
// speedup interval and the AutoTriton inputs into the binary reward, and the tests read the rest.
// Each struct's fields are its JSON keys, spelled as they always were: stored verdicts and the
// benchmarks' scripts read the same keys. Plain data and pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/timing_stats.h"

namespace tritonrl::eval {

// evidence.pool: where a sample sat in its pool run (for the benchmarks' utilisation figures).
struct PoolEvidence {
  static constexpr const char* kKey = "pool";
  int thread = 0;
  double start_ms = 0;  // since the pool began
  double end_ms = 0;
  bool ran_reference = false;  // this sample's thread ran its task's reference
  // The reference ran for an earlier run (EngineConfig::reuse_reference). Written only when true.
  bool reference_kept = false;
  // How the pool ran the reference again after it ran out of GPU memory (ReferenceResult::
  // oom_reruns), in order. Written only when not empty.
  std::vector<std::string> reference_oom_reruns;
};
void to_json(nlohmann::json& j, const PoolEvidence& e);
void from_json(const nlohmann::json& j, PoolEvidence& e);

// evidence.admission: the sample's memory estimate against the run's budgets (src/eval/
// admission.h; a budget of 0 is none).
struct AdmissionEvidence {
  static constexpr const char* kKey = "admission";
  std::uint64_t host_bytes_estimate = 0;
  std::uint64_t device_bytes_estimate = 0;
  std::uint64_t host_budget_bytes = 0;
  std::uint64_t device_budget_bytes = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AdmissionEvidence, host_bytes_estimate,
                                                device_bytes_estimate, host_budget_bytes,
                                                device_budget_bytes)

// evidence.out_of_memory_rerun: the candidate ran out of GPU memory beside other workers and ran
// again alone; that run's verdict stands.
struct OomRerunEvidence {
  static constexpr const char* kKey = "out_of_memory_rerun";
  std::string first_run;  // the first run's out_of_memory message
  double wait_ms = 0;     // waited for the pool to itself
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OomRerunEvidence, first_run, wait_ms)

// evidence.timing's summaries of the timed calls (CUDA events of both sides, docs/
// measurement.md): the keys of the timing evidence that C++ reads back. The timing evidence
// holds more (JudgeTiming's judgement, src/eval/timing_verdict.h), or other keys when the sample
// was not timed ("skipped", "over_budget"); those are written as JSON and never read.
struct TimedCallsEvidence {
  static constexpr const char* kKey = "timing";
  std::string variant;
  std::optional<Stats> reference_event_ms;  // written only when set
  std::optional<Stats> candidate_event_ms;  // written only when set
};
void to_json(nlohmann::json& j, const TimedCallsEvidence& e);
// Lenient, as the readers of stored verdicts were: a series that is missing or not an object is
// nullopt, a variant that is missing or not a string is empty (Stats' own from_json: a missing
// number is 0).
void from_json(const nlohmann::json& j, TimedCallsEvidence& e);

// evidence.autotriton: AutoTriton's reward inputs beside our verdict (scoring's autotriton_check,
// docs/rl.md): the paper's is_Triton rule on the code, whether the outputs matched on every trial
// with our proof of work aside (OutputsMatched, trial_check.h), and, where our static rules had
// rejected the code and it ran anyway, what the engine said of it.
struct AutoTritonEvidence {
  static constexpr const char* kKey = "autotriton";
  bool is_triton = false;
  bool outputs_match = false;
  std::string engine_outcome;  // vocab::OutcomeName; written only when not empty
};
void to_json(nlohmann::json& j, const AutoTritonEvidence& e);
void from_json(const nlohmann::json& j, AutoTritonEvidence& e);

// evidence[T::kKey] as a T; nullopt when `evidence` is not an object or has no such object.
// Throws nlohmann::json's type_error where a key of T holds another type (TimedCallsEvidence
// never does).
template <class T>
std::optional<T> ReadEvidence(const nlohmann::json& evidence) {
  if (!evidence.is_object()) return std::nullopt;
  const auto it = evidence.find(T::kKey);
  if (it == evidence.end() || !it->is_object()) return std::nullopt;
  return it->template get<T>();
}

// Sets evidence[T::kKey] to `e` (evidence becomes an object if it was null).
template <class T>
void WriteEvidence(nlohmann::json& evidence, const T& e) {
  evidence[T::kKey] = e;
}

}  // namespace tritonrl::eval
