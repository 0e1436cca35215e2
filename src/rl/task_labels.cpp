#include "rl/task_labels.h"

#include <nlohmann/json.hpp>

#include "base/file.h"

namespace tritonrl::rl {

using json = nlohmann::json;

TaskLabel LabelOf(const std::string& task, int64_t passed, int64_t samples) {
  TaskLabel l;
  l.task = task;
  l.samples = samples;
  l.passed = passed;
  l.pass_rate = samples > 0 ? static_cast<double>(passed) / static_cast<double>(samples) : 0.0;
  l.level = passed > 0 ? kLevelWithinReach : kLevelOutOfReach;
  return l;
}

double LabelShare(const TaskLabel& l, const std::string& metric) {
  if (l.samples <= 0) return 0;
  auto count = [&](const std::string& c) {
    auto it = l.outcomes.find(c);
    return it == l.outcomes.end() ? int64_t{0} : it->second;
  };
  int64_t n = 0;
  if (metric == "pass@1") {
    n = l.passed;
  } else if (metric == "valid") {
    n = l.valid;
  } else if (metric == "invalid") {
    n = count("invalid_syntax") + count("invalid_functionality");
  } else {
    n = count(metric);
  }
  return static_cast<double>(n) / static_cast<double>(l.samples);
}

Status WriteTaskLabels(const std::string& path, const std::vector<TaskLabel>& labels) {
  std::string text;
  for (const TaskLabel& l : labels) {
    json j = {{"task", l.task},           {"samples", l.samples}, {"passed", l.passed},
              {"pass_rate", l.pass_rate}, {"level", l.level},     {"valid", l.valid}};
    if (!l.outcomes.empty()) j["outcomes"] = l.outcomes;
    text += j.dump() + "\n";
  }
  return WriteFileAtomic(path, text);
}

Result<std::map<std::string, TaskLabel>> ReadTaskLabels(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  std::map<std::string, TaskLabel> out;
  size_t pos = 0;
  for (int no = 1; pos < text->size(); ++no) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    const std::string line = text->substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(no) + ": ";
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("task") || !j["task"].is_string() || !j.contains("level") ||
        !j["level"].is_number_integer() || j["level"].get<int>() < 1) {
      return Status::ParseError(where +
                                "not a task label (want an object with \"task\" and an "
                                "integer \"level\" >= 1)");
    }
    TaskLabel l;
    l.task = j["task"].get<std::string>();
    l.level = j["level"].get<int>();
    l.samples = j.value("samples", int64_t{0});
    l.passed = j.value("passed", int64_t{0});
    l.pass_rate = j.value("pass_rate", 0.0);
    l.valid = j.value("valid", int64_t{0});
    if (auto o = j.find("outcomes"); o != j.end()) {
      if (!o->is_object()) return Status::ParseError(where + "\"outcomes\" is not an object");
      for (const auto& [name, n] : o->items()) {
        if (!n.is_number_integer()) {
          return Status::ParseError(where + "outcome count \"" + name + "\" is not an integer");
        }
        l.outcomes[name] = n.get<int64_t>();
      }
    }
    if (!out.emplace(l.task, l).second) {
      return Status::ParseError(where + "task '" + l.task + "' is labelled twice");
    }
  }
  return out;
}

}  // namespace tritonrl::rl
