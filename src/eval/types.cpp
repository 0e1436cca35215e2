#include "eval/types.h"

namespace tritonrl::eval {
using nlohmann::json;

json Verdict::ToJson() const {
  json reasons_json = json::array();
  for (const auto& r : reasons)
    reasons_json.push_back({{"stage", r.stage}, {"code", r.code}, {"message", r.message}});
  json j = {{"sample", sample},
            {"task", task},
            {"outcome", vocab::OutcomeName(outcome)},
            {"reasons", reasons_json},
            {"flags", flags},
            {"sandbox", sandbox},
            {"timings_ms", timings_ms},
            {"evidence", evidence},
            {"speedup", speedup ? json(*speedup) : json(nullptr)},
            {"device", device},
            {"provisional", provisional},
            {"from_cache", from_cache}};
  if (infra_failure) j["infra_failure"] = true;
  return j;
}

}  // namespace tritonrl::eval
