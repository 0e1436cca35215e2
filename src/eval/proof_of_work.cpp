#include "eval/proof_of_work.h"

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
  if (internal && !internal->empty()) {
    evidence->internal_calls.insert(internal->begin(), internal->end());
    failures.push_back(
        {"internal_access", fmt::format("{}: the candidate's code called interpreter, torch or "
                                        "evaluator internals: {}",
                                        where, Joined(*internal))});
  }
  return failures;
}

json GuardEvidenceJson(const GuardEvidence& e) {
  return {{"output_writers", e.output_writers},
          {"module_hooks", e.module_hooks},
          {"host_calls", e.host_calls},
          {"internal_calls", e.internal_calls},
          {"thread_ban", e.thread_ban}};
}

}  // namespace tritonrl::eval
