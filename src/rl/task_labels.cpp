#include "rl/task_labels.h"

#include <cctype>
#include <cstdint>
#include <set>

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

std::string PlanChoice(std::string_view plan) {
  std::set<uint64_t> sizes;
  for (size_t i = 0; i < plan.size();) {
    if (!std::isdigit(static_cast<unsigned char>(plan[i]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < plan.size() && std::isdigit(static_cast<unsigned char>(plan[end]))) ++end;
    // Part of a word or a longer number (x86, 1.5, v2) is no choice; neither is an exponent.
    const bool glued = i > 0 && (std::isalnum(static_cast<unsigned char>(plan[i - 1])) ||
                                 plan[i - 1] == '.' || plan[i - 1] == '_' || plan[i - 1] == '^');
    const bool bits = plan.substr(end, 4) == "-bit";
    if (!glued && !bits && end - i <= 6) {
      const uint64_t v = std::stoull(std::string(plan.substr(i, end - i)));
      if (v >= 16 && v <= 65536 && (v & (v - 1)) == 0) sizes.insert(v);
    }
    i = end;
  }
  if (sizes.empty()) return "none";
  std::string key;
  for (uint64_t v : sizes) key += (key.empty() ? "" : "+") + std::to_string(v);
  return key;
}

double LabelShare(const TaskLabel& l, const std::string& metric) {
  if (l.samples <= 0) return 0;
  if (metric == "mean_speedup") return l.speedup_sum / static_cast<double>(l.samples);
  if (metric == "plan_concentration") {
    int64_t n = 0, same = 0;
    for (const auto& [choice, k] : l.plan_choices) {
      n += k;
      same += k * (k - 1);
    }
    return n < 2 ? 0.0 : static_cast<double>(same) / static_cast<double>(n * (n - 1));
  }
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
    if (l.speedup_sum != 0) j["speedup_sum"] = l.speedup_sum;
    if (!l.plan_choices.empty()) j["plan_choices"] = l.plan_choices;
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
    for (const char* field : {"outcomes", "plan_choices"}) {
      auto o = j.find(field);
      if (o == j.end()) continue;
      if (!o->is_object()) {
        return Status::ParseError(where + "\"" + field + "\" is not an object");
      }
      auto& into = std::string_view(field) == "outcomes" ? l.outcomes : l.plan_choices;
      for (const auto& [name, n] : o->items()) {
        if (!n.is_number_integer() || n.get<int64_t>() < 0) {
          return Status::ParseError(where + "count \"" + name + "\" of \"" + field +
                                    "\" is not a non-negative integer");
        }
        into[name] = n.get<int64_t>();
      }
    }
    if (auto s = j.find("speedup_sum"); s != j.end()) {
      if (!s->is_number() || s->get<double>() < 0) {
        return Status::ParseError(where + "\"speedup_sum\" is not a non-negative number");
      }
      l.speedup_sum = s->get<double>();
    }
    if (!out.emplace(l.task, l).second) {
      return Status::ParseError(where + "task '" + l.task + "' is labelled twice");
    }
  }
  return out;
}

}  // namespace tritonrl::rl
