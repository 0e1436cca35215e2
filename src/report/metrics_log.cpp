#include "report/metrics_log.h"

#include <cstdint>
#include <fstream>

namespace tritonrl::report {

Result<Curves> ReadCurves(const std::string& path,
                          const std::function<void(const nlohmann::json& line)>& each_line) {
  std::ifstream in(path);
  if (!in) return Status::IoError(path + ": cannot open");
  Curves curves;
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("step") || !j["step"].is_number()) {
      return Status::ParseError(path + ":" + std::to_string(n) +
                                ": not a metrics line (a JSON object with \"step\")");
    }
    const double step = j["step"].get<double>();
    for (const auto& [key, value] : j.items()) {
      if (key == "step" || !value.is_number()) continue;
      curves[key].x.push_back(step);
      curves[key].y.push_back(value.get<double>());
    }
    if (each_line) each_line(j);
  }
  return curves;
}

}  // namespace tritonrl::report
