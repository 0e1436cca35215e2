#include "eval/timing_recheck.h"

#include <map>
#include <utility>

#include <fmt/format.h>

namespace tritonrl::eval {

std::vector<std::string> CheckRechecks(const TimingPhase& c, const TimingPhase& r,
                                       const Tolerance& tolerance) {
  std::vector<std::string> bad;
  std::map<std::pair<int, int>, const RecheckSample*> ref;
  for (const auto& s : r.rechecks) ref[{s.trial, s.output}] = &s;
  std::size_t matched = 0;
  for (const auto& s : c.rechecks) {
    auto it = ref.find({s.trial, s.output});
    if (it == ref.end()) {
      bad.push_back(fmt::format("timed call {} output {}: not expected", s.trial, s.output));
      continue;
    }
    ++matched;
    const RecheckSample& rs = *it->second;
    if (!s.type_ok) {
      bad.push_back(
          fmt::format("timed call {} output {}: not exactly torch.Tensor", s.trial, s.output));
      continue;
    }
    if (s.shape != rs.shape) {
      bad.push_back(fmt::format("timed call {} output {}: shape differs", s.trial, s.output));
      continue;
    }
    const CompareResult cr =
        CompareTensor({s.dtype, {s.numel}, s.bytes}, {rs.dtype, {rs.numel}, rs.bytes}, tolerance);
    if (!cr.ok)
      bad.push_back(fmt::format("timed call {} output {}: {}", s.trial, s.output, cr.message));
  }
  if (matched != r.rechecks.size()) {
    bad.push_back(fmt::format("{} of {} re-checked outputs missing", r.rechecks.size() - matched,
                              r.rechecks.size()));
  }
  return bad;
}

}  // namespace tritonrl::eval
