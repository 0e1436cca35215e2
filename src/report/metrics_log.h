// Internal to report: a trainer's metrics log (metrics.jsonl of `train sft|grpo`, the demo's
// step logs) as curves over "step". One reader for the training report and the demo's page,
// so both accept and refuse the same lines. Reads the file; any thread.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "report/svg.h"

namespace tritonrl::report {

// Field name -> its values over "step" (name and color left empty).
using Curves = std::map<std::string, svg::Curve>;

// Every numeric field of every line, as a curve over "step"; `each_line`, if given, sees every
// line too. Blank lines are skipped; a line that is not a JSON object with a numeric "step"
// fails with FILE:LINE, a file that cannot be opened is IoError.
Result<Curves> ReadCurves(const std::string& path,
                          const std::function<void(const nlohmann::json& line)>& each_line = {});

}  // namespace tritonrl::report
