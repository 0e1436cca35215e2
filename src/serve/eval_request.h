// Reading the samples of /v1/evaluate and the rollouts of /v1/reward into scoring samples: ids,
// the text (exactly one of "output" and "code"), the task (looked up in the served suite only),
// and unique (task, id) pairs. Pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scoring/score_batch.h"
#include "serve/endpoints.h"
#include "serve/request.h"

namespace tritonrl::serve {

// Reads "id" (a string or an integer; default: the index) and exactly one of "output" and
// "code" from an element already opened by `r`.
std::optional<scoring::Sample> ReadSampleFields(FieldReader& r, const Limits& limits, size_t index,
                                                std::string task);

// The array at `path` of {"task", "id"?, "output" | "code"} objects (with `task` empty) or of
// {"id"?, "output" | "code"} objects of `task` (already resolved). Duplicate (task, id) pairs are
// refused naming the second one.
Checked<std::vector<scoring::Sample>> ReadSamples(const ServeContext& ctx,
                                                  const nlohmann::json& array,
                                                  const std::string& path, const std::string& task);

}  // namespace tritonrl::serve
