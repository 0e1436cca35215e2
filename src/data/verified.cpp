#include "data/verified.h"

#include <algorithm>

#include <fmt/format.h>

#include "vocab/verdict_vocab.h"

namespace tritonrl::data {

std::string RejectionOf(const scoring::ScoredSample& s) {
  std::string reason;
  const nlohmann::json& reasons =
      s.verdict.contains("reasons") ? s.verdict["reasons"] : nlohmann::json::array();
  if (reasons.is_array() && !reasons.empty() && reasons[0].is_object()) {
    reason = reasons[0].value("stage", "") + "." + reasons[0].value("code", "");
  }
  // A task whose reference a null model matches earns nothing, whatever its solution does.
  const bool weak = std::find(s.flags.begin(), s.flags.end(), "weak_task") != s.flags.end();
  const std::string outcome = weak ? "weak_task" : std::string(vocab::OutcomeName(s.outcome));
  if (outcome == vocab::OutcomeName(vocab::Outcome::kCorrect)) return "";
  return outcome + (reason.empty() ? "" : ":" + reason);
}

Result<std::map<std::string, std::string>> Judge(scoring::Scorer& scorer,
                                                 const std::vector<scoring::Sample>& batch,
                                                 const scoring::Callbacks& callbacks) {
  auto result = scorer.Score(batch, {}, callbacks);
  if (!result.ok()) return result.status();
  if (result->samples.size() != batch.size())
    return Status::Internal(
        fmt::format("{} of {} samples scored", result->samples.size(), batch.size()));
  if (callbacks.on_note && result->resumed + result->from_cache > 0)
    callbacks.on_note(fmt::format("{} verdicts resumed and {} from the cache of {}",
                                  result->resumed, result->from_cache, scorer.config().db));
  std::map<std::string, std::string> rejections;
  for (const auto& s : result->samples) rejections[s.id] = RejectionOf(s);
  return rejections;
}

std::vector<scoring::Sample> SolutionSamples(const std::vector<SynthTask>& tasks) {
  std::vector<scoring::Sample> batch;
  for (const auto& t : tasks) batch.push_back({t.id, t.id, t.solution, scoring::TextKind::kCode});
  return batch;
}

Result<std::map<std::string, std::string>> RejectedSolutions(scoring::Scorer& scorer,
                                                             const std::vector<SynthTask>& tasks,
                                                             const scoring::Callbacks& callbacks) {
  auto judged = Judge(scorer, SolutionSamples(tasks), callbacks);
  if (!judged.ok()) return judged.status();
  std::map<std::string, std::string> rejected;
  for (auto& [task, why] : *judged) {
    if (!why.empty()) rejected[task] = std::move(why);
  }
  return rejected;
}

}  // namespace tritonrl::data
