// Safe accessors for untrusted frame headers: a hostile worker may put any JSON
// type under any key, so a wrong type reads as absent. Pure functions, any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tritonrl::eval {

inline std::string GetString(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
inline std::optional<std::int64_t> GetInt(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}
inline bool GetBool(const nlohmann::json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}
inline double GetDouble(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}
inline std::vector<std::string> GetStrings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}
// The last `n` characters of `s`, marked as cut ("..."), for messages built from worker text.
inline std::string Truncate(std::string s, std::size_t n) {
  if (s.size() > n) s = "..." + s.substr(s.size() - n);
  return s;
}

}  // namespace tritonrl::eval
