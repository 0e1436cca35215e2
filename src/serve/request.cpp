#include "serve/request.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace tritonrl::serve {

namespace {

using nlohmann::json;

const char* TypeName(const json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number_float()) return "number";
  return v.type_name();
}

// Deepest bracket nesting outside strings, stopping early past `limit`.
int NestingDepth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

Checked<json> ParseJsonObject(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Checked<json>::Fail({400, "empty_body", "", "the request needs a JSON object body"});
  if (NestingDepth(body, kMaxJsonDepth) > kMaxJsonDepth)
    return Checked<json>::Fail(
        {400, "too_deep", "", fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth)});
  json j;
  try {
    j = json::parse(body);
  } catch (const json::parse_error& e) {
    // nlohmann's own words after its prefix: "line L, column C: syntax error ... - unexpected
    // '}'; expected ...". Cut short: the token it quotes is client text.
    std::string why = e.what();
    const std::string_view at = "parse error at ";
    const size_t pos = why.find(at);
    why = pos == std::string::npos ? "" : ", " + why.substr(pos + at.size(), 200);
    return Checked<json>::Fail(
        {400, "malformed_json", "", fmt::format("malformed JSON at byte {}{}", e.byte, why)});
  }
  if (!j.is_object())
    return Checked<json>::Fail(
        {400, "wrong_type", "",
         fmt::format("the body must be a JSON object, got {}", TypeName(j))});
  return Checked<json>{std::move(j), {}};
}

std::string ElementPath(const std::string& array_path, size_t index) {
  return fmt::format("{}[{}]", array_path, index);
}

FieldReader::FieldReader(const json& value, std::string path,
                         std::initializer_list<std::string_view> allowed,
                         std::span<const std::string_view> also_allowed)
    : object_(value), path_(std::move(path)) {
  if (!object_.is_object()) {
    Fail(BadField(path_, "wrong_type",
                  fmt::format("{} must be an object, got {}", path_.empty() ? "the body" : path_,
                              TypeName(object_))));
    return;
  }
  for (const auto& [key, v] : object_.items()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    for (std::string_view a : also_allowed) known = known || a == key;
    if (!known) {
      // A short, printable prefix: the key is client text.
      std::string shown = key.substr(0, 64);
      Fail(BadField(PathOf(shown), "unknown_field", fmt::format("unknown field \"{}\"", shown)));
      return;
    }
  }
}

void FieldReader::Fail(ApiError error) {
  if (!error_) error_ = std::move(error);
}

std::string FieldReader::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

const json* FieldReader::Find(std::string_view key, Need need) {
  if (!ok()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) {
    if (need == Need::kRequired)
      Fail(BadField(PathOf(key), "missing_field", fmt::format("missing field \"{}\"", key)));
    return nullptr;
  }
  return &*it;
}

namespace {
ApiError WrongType(const std::string& path, const char* want, const json& got) {
  return BadField(path, "wrong_type",
                  fmt::format("{} must be {}, got {}", path, want, TypeName(got)));
}
}  // namespace

std::optional<std::string> FieldReader::String(std::string_view key, Need need, size_t max_bytes) {
  const json* v = Find(key, need);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    Fail(WrongType(PathOf(key), "a string", *v));
    return std::nullopt;
  }
  const auto& s = v->get_ref<const std::string&>();
  if (s.size() > max_bytes) {
    Fail({413, "too_large", PathOf(key),
          fmt::format("{} is {} bytes, more than the limit of {}", PathOf(key), s.size(),
                      max_bytes)});
    return std::nullopt;
  }
  return s;
}

std::optional<bool> FieldReader::Bool(std::string_view key, Need need) {
  const json* v = Find(key, need);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    Fail(WrongType(PathOf(key), "true or false", *v));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<double> FieldReader::Number(std::string_view key, Need need, double lo, double hi) {
  const json* v = Find(key, need);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) {
    Fail(WrongType(PathOf(key), "a number", *v));
    return std::nullopt;
  }
  const double d = v->get<double>();
  if (!std::isfinite(d) || d < lo || d > hi) {
    Fail(BadField(PathOf(key), "out_of_range",
                  fmt::format("{} must be within [{}, {}]", PathOf(key), lo, hi)));
    return std::nullopt;
  }
  return d;
}

std::optional<int64_t> FieldReader::Integer(std::string_view key, Need need, int64_t lo,
                                            int64_t hi) {
  const json* v = Find(key, need);
  if (v == nullptr) return std::nullopt;
  // 3.0 is refused too: an integer field given a float is a client bug worth naming.
  if (!v->is_number_integer() && !v->is_number_unsigned()) {
    Fail(WrongType(PathOf(key), "an integer", *v));
    return std::nullopt;
  }
  const bool too_big =
      v->is_number_unsigned() &&
      v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const int64_t i = too_big ? std::numeric_limits<int64_t>::max() : v->get<int64_t>();
  if (too_big || i < lo || i > hi) {
    Fail(BadField(PathOf(key), "out_of_range",
                  fmt::format("{} must be within [{}, {}]", PathOf(key), lo, hi)));
    return std::nullopt;
  }
  return i;
}

const json* FieldReader::Array(std::string_view key, Need need, size_t max_items,
                               bool allow_empty) {
  const json* v = Find(key, need);
  if (v == nullptr) return nullptr;
  if (!v->is_array()) {
    Fail(WrongType(PathOf(key), "an array", *v));
    return nullptr;
  }
  if (v->empty() && !allow_empty) {
    Fail(BadField(PathOf(key), "empty", fmt::format("{} must not be empty", PathOf(key))));
    return nullptr;
  }
  if (v->size() > max_items) {
    Fail({413, "too_many", PathOf(key),
          fmt::format("{} has {} items, more than the limit of {}", PathOf(key), v->size(),
                      max_items)});
    return nullptr;
  }
  return v;
}

const json* FieldReader::Object(std::string_view key, Need need) {
  const json* v = Find(key, need);
  if (v == nullptr) return nullptr;
  if (!v->is_object()) {
    Fail(WrongType(PathOf(key), "an object", *v));
    return nullptr;
  }
  return v;
}

std::optional<json> FieldReader::Id(std::string_view key, Need need) {
  const json* v = Find(key, need);
  if (v == nullptr) return std::nullopt;
  if (!(v->is_string() && v->get_ref<const std::string&>().size() <= 256) &&
      !v->is_number_integer() && !v->is_number_unsigned()) {
    Fail(WrongType(PathOf(key), "a string (at most 256 bytes) or an integer", *v));
    return std::nullopt;
  }
  return *v;
}

std::optional<std::vector<std::string>> FieldReader::Strings(std::string_view key, Need need,
                                                             size_t max_items, size_t max_bytes) {
  const json* v = Find(key, need);
  if (v == nullptr) return std::nullopt;
  std::vector<std::string> out;
  if (v->is_string()) {
    out.push_back(v->get<std::string>());
  } else if (v->is_array() && !v->empty() && v->size() <= max_items) {
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        Fail(WrongType(ElementPath(PathOf(key), i), "a string", (*v)[i]));
        return std::nullopt;
      }
      out.push_back((*v)[i].get<std::string>());
    }
  } else {
    Fail(WrongType(PathOf(key), fmt::format("a string or 1 to {} strings", max_items).c_str(), *v));
    return std::nullopt;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].size() > max_bytes) {
      Fail({413, "too_large", PathOf(key),
            fmt::format("{} holds a string of {} bytes, more than the limit of {}", PathOf(key),
                        out[i].size(), max_bytes)});
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace tritonrl::serve
