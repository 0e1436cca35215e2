// Strict reading of JSON request bodies: a body is parsed only if it is small enough and not nested
// deeper than a fixed bound (a deep "[[[[..." must not cost a deep recursion anywhere), and every
// object is read through a FieldReader that refuses unknown fields and wrong types with an
// ApiError naming the field ("samples[2].code"). Clients learn of a misspelt option instead of
// having it silently ignored. Pure functions and a per-request object; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/reply.h"

namespace tritonrl::serve {

// Nesting bound of request bodies; our schemas need 4.
inline constexpr int kMaxJsonDepth = 32;

// A value or the reason the request is refused.
template <typename T>
struct Checked {
  std::optional<T> value;
  ApiError error;
  bool ok() const { return value.has_value(); }
  static Checked Fail(ApiError e) { return Checked{std::nullopt, std::move(e)}; }
};

// The body as a JSON object: 400 "empty_body", "too_deep", "malformed_json" (with the byte offset)
// or "wrong_type" (not an object).
Checked<nlohmann::json> ParseJsonObject(std::string_view body);

enum class Need { kRequired, kOptional };

// Reads the fields of one JSON object. The first failure is kept and later calls return nothing,
// so a handler reads every field and checks ok() once.
class FieldReader {
 public:
  // `path` is where the object sits in the body ("" for the body itself). Fails at once if `value`
  // is not an object or holds a key outside `allowed`.
  FieldReader(const nlohmann::json& value, std::string path,
              std::initializer_list<std::string_view> allowed,
              std::span<const std::string_view> also_allowed = {});

  bool ok() const { return !error_.has_value(); }
  const ApiError& error() const { return *error_; }
  void Fail(ApiError error);  // keeps the first failure
  std::string PathOf(std::string_view key) const;
  const std::string& path() const { return path_; }

  // Absent and JSON null read as "not given" for optional fields.
  std::optional<std::string> String(std::string_view key, Need need, size_t max_bytes);
  std::optional<bool> Bool(std::string_view key, Need need);
  std::optional<double> Number(std::string_view key, Need need, double lo, double hi);
  std::optional<int64_t> Integer(std::string_view key, Need need, int64_t lo, int64_t hi);
  // The array (1 to max_items elements unless allow_empty), or nullptr.
  const nlohmann::json* Array(std::string_view key, Need need, size_t max_items,
                              bool allow_empty = false);
  // The object (its fields read with a FieldReader of its own), or nullptr.
  const nlohmann::json* Object(std::string_view key, Need need);
  // A string or an integer (a client's own id, echoed back), or nullopt.
  std::optional<nlohmann::json> Id(std::string_view key, Need need);
  // A string or an array of 1..max_items strings (OpenAI's "prompt" and "stop"), or nullopt.
  std::optional<std::vector<std::string>> Strings(std::string_view key, Need need, size_t max_items,
                                                  size_t max_bytes);

 private:
  const nlohmann::json* Find(std::string_view key, Need need);
  const nlohmann::json& object_;
  std::string path_;
  std::optional<ApiError> error_;
};

// "samples" + 3 -> "samples[3]".
std::string ElementPath(const std::string& array_path, size_t index);

}  // namespace tritonrl::serve
