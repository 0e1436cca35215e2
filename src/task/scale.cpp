#include "task/scale.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "base/file.h"

namespace tritonrl::task {
namespace {

namespace fs = std::filesystem;

bool IsMetadata(const std::string& name) {
  return name == "LEVEL" || name == "VARIANTS" || name == "DTYPE" || name == "ATOL" ||
         name == "RTOL";
}

// A JSON value as a Python literal (the values task metadata holds: numbers, strings, bools,
// None, lists and str-keyed dicts). JSON string escapes are valid Python escapes.
std::string PyLiteral(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_array()) {
    std::string out = "[";
    for (const auto& e : v) out += (out.size() > 1 ? ", " : "") + PyLiteral(e);
    return out + "]";
  }
  if (v.is_object()) {
    std::string out = "{";
    for (const auto& [k, e] : v.items())
      out += (out.size() > 1 ? ", " : "") + Json(k).dump() + ": " + PyLiteral(e);
    return out + "}";
  }
  return v.dump();
}

// The file's variants plus the scaled one, as a VARIANTS assignment. A file without VARIANTS
// has only its module defaults ("default"), which stays a variant so nothing else changes.
std::string VariantsLine(const TaskInfo& task, const Json& scaled) {
  Json all = Json::object();
  for (const auto& v : task.variants) all[v.name] = v.overrides;
  all[kScaledVariant] = scaled;
  return "VARIANTS = " + PyLiteral(all) + "\n";
}

}  // namespace

ScaledTask ScaleTask(const TaskInfo& task, const ScaleRule& rule) {
  ScaledTask out;
  out.id = task.id;
  for (const auto& [name, value] : task.constants.items()) {
    if (IsMetadata(name) || !value.is_number_integer()) continue;
    const auto from = value.get<std::int64_t>();
    if (from < rule.min_value) continue;
    const auto to = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::llround(static_cast<double>(from) * rule.factor)));
    if (to != from) out.changed[name] = Json::array({from, to});
  }
  return out;
}

Result<std::vector<ScaledTask>> WriteScaledSuite(const Suite& suite, const ScaleRule& rule,
                                                 const std::string& out_dir) {
  if (!std::isfinite(rule.factor) || rule.factor <= 0)
    return Status::InvalidArgument("the size factor must be a finite number > 0, not " +
                                   std::to_string(rule.factor));
  std::vector<ScaledTask> out;
  for (const TaskInfo& t : suite.tasks) {
    ScaledTask s = ScaleTask(t, rule);
    Json overrides = Json::object();
    for (const auto& [name, ft] : s.changed.items()) overrides[name] = ft[1];
    auto source = ReadFile(t.path);
    if (!source.ok()) return source.status();
    const fs::path dest = fs::path(out_dir) / fs::relative(t.path, suite.root);
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    if (ec)
      return Status::IoError(dest.parent_path().string() + ": cannot create: " + ec.message());
    std::string text = *source;
    if (!text.empty() && text.back() != '\n') text += '\n';
    text +=
        "\n# Added by tritonrl bench --scale-sizes (docs/bench.md).\n" + VariantsLine(t, overrides);
    TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(dest.string(), text));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace tritonrl::task
