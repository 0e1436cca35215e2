#include "eval/proof_of_work.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

namespace tritonrl::eval {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxItems = 64;  // per list: a frame cannot blow up the verdict
constexpr std::size_t kMaxItemChars = 160;

// The field as a list of strings, or nullopt when missing or not a list of strings.
std::optional<std::vector<std::string>> StringList(const json& h, const char* key) {
  auto it = h.find(key);
  if (it == h.end() || !it->is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& v : *it) {
    if (!v.is_string()) return std::nullopt;
    if (out.size() < kMaxItems) out.push_back(v.get<std::string>().substr(0, kMaxItemChars));
  }
  return out;
}

struct CallSteps {
  long long steps = 0, launches = 0;
};

// The frame's host_steps: one [steps, launches] pair per call it covers (a trial's call, or
// every audited call of the timing stage), else nullopt when missing or malformed.
std::optional<std::vector<CallSteps>> HostSteps(const json& h) {
  auto it = h.find("host_steps");
  if (it == h.end() || !it->is_array()) return std::nullopt;
  std::vector<CallSteps> out;
  for (const auto& pair : *it) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
        !pair[1].is_number_integer() || pair[0].get<long long>() < 0 ||
        pair[1].get<long long>() < 0) {
      return std::nullopt;
    }
    out.push_back({pair[0].get<long long>(), pair[1].get<long long>()});
  }
  return out;
}

// The first of `calls` over its host-step budget, as a host_compute failure.
std::optional<GuardFailure> OverStepBudget(const std::vector<CallSteps>& calls,
                                           const std::string& where, std::string_view what) {
  for (const CallSteps& c : calls) {
    if (c.steps <= HostStepBudget(c.launches)) continue;
    return GuardFailure{
        "host_compute",
        fmt::format("{}: the candidate's code ran {} host steps (loop iterations and function "
                    "starts) in {} with {} kernel launches, more than the {} that bookkeeping "
                    "needs: a table computed on the host",
                    where, c.steps, what, c.launches, HostStepBudget(c.launches))};
  }
  return std::nullopt;
}

std::string Joined(const std::vector<std::string>& v) {
  return fmt::format("{}",
                     fmt::join(v.begin(), v.begin() + std::min<std::size_t>(v.size(), 6), ", "));
}

}  // namespace

std::vector<GuardFailure> CheckGuards(const json& h, const std::string& where,
                                      GuardEvidence* evidence) {
  std::vector<GuardFailure> failures;
  const auto writers = StringList(h, "output_writers");
  const auto hooks = StringList(h, "module_hooks");
  const auto host = StringList(h, "host_calls");
  const auto internal = StringList(h, "internal_calls");
  std::vector<std::string> missing;
  if (!writers) missing.push_back("output_writers");
  if (!hooks) missing.push_back("module_hooks");
  if (!host) missing.push_back("host_calls");
  if (!internal) missing.push_back("internal_calls");
  const auto steps = HostSteps(h);
  if (!steps) missing.push_back("host_steps");
  if (!missing.empty()) {
    failures.push_back({"evidence_missing", fmt::format("{}: the trial frame lacks {}", where,
                                                        fmt::join(missing, ", "))});
  }
  if (auto it = h.find("thread_ban"); it != h.end() && it->is_string()) {
    evidence->thread_ban = it->get<std::string>().substr(0, kMaxItemChars);
  }
  if (writers) {
    const auto outs = h.find("outputs");
    if (outs != h.end() && outs->is_array() && outs->size() != writers->size()) {
      failures.push_back({"evidence_missing", fmt::format("{}: {} output writers for {} outputs",
                                                          where, writers->size(), outs->size())});
    }
    std::vector<std::string> bad;
    for (std::size_t i = 0; i < writers->size(); ++i) {
      evidence->output_writers.insert((*writers)[i]);
      if ((*writers)[i] != "kernel") bad.push_back(fmt::format("output {}: {}", i, (*writers)[i]));
      if ((*writers)[i].rfind("torch:", 0) == 0) evidence->torch_did_work = true;
    }
    if (!bad.empty()) {
      failures.push_back(
          {"output_not_from_kernel",
           fmt::format("{}: an output was last written by something other than a kernel of the "
                       "candidate during this call ({}; torch: a torch op, alloc: never written, "
                       "none: a tensor this call did not touch)",
                       where, Joined(bad))});
    }
  }
  if (hooks && !hooks->empty()) {
    evidence->module_hooks.insert(hooks->begin(), hooks->end());
    failures.push_back({"forward_hook", fmt::format("{}: forward hooks are registered ({})", where,
                                                    Joined(*hooks))});
  }
  if (host && !host->empty()) {
    evidence->host_calls.insert(host->begin(), host->end());
    evidence->torch_did_work = true;
    failures.push_back(
        {"host_compute", fmt::format("{}: the candidate's code computed outside Triton: {}", where,
                                     Joined(*host))});
  }
  if (steps) {
    for (const CallSteps& c : *steps)
      evidence->host_steps = std::max(evidence->host_steps, c.steps);
    if (auto f = OverStepBudget(*steps, where, "one call")) {
      evidence->torch_did_work = true;
      failures.push_back(std::move(*f));
    }
  }
  if (internal && !internal->empty()) {
    evidence->internal_calls.insert(internal->begin(), internal->end());
    failures.push_back(
        {"internal_access", fmt::format("{}: the candidate's code called interpreter, torch or "
                                        "evaluator internals: {}",
                                        where, Joined(*internal))});
  }
  return failures;
}

std::vector<GuardFailure> CheckStageHostSteps(const json& stage_frame, const std::string& where) {
  const auto steps = HostSteps(stage_frame);
  if (!steps || steps->size() != 1) {
    return {
        {"evidence_missing",
         fmt::format("{}: the stage frame lacks host_steps (one [steps, launches] pair)", where)}};
  }
  if (auto f = OverStepBudget(*steps, where, "the import or the constructor")) return {*f};
  return {};
}

json GuardEvidenceJson(const GuardEvidence& e) {
  return {{"output_writers", e.output_writers}, {"module_hooks", e.module_hooks},
          {"host_calls", e.host_calls},         {"internal_calls", e.internal_calls},
          {"thread_ban", e.thread_ban},         {"host_steps", e.host_steps}};
}

}  // namespace tritonrl::eval
