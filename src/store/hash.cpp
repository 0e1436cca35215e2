// Cache keys, timestamps and run ids (the hash itself is base/sha256.h).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>

#include "store/store.h"
#include "store/store_internal.h"

namespace tritonrl::store {

// JSON is re-serialised with sorted keys so that key order and whitespace do not
// split the cache; text that is not JSON is used as is.
std::string CanonicalJson(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return text;
  return j.dump();
}

std::string ComputeCacheKey(const CacheKeyInput& in) {
  // Length prefixes make the encoding injective: no two field tuples hash the same bytes.
  std::string buf = "tritonrl-cache-v1\n";
  auto add = [&buf](std::string_view name, std::string_view value) {
    buf += name;
    buf += ' ';
    buf += std::to_string(value.size());
    buf += '\n';
    buf += value;
    buf += '\n';
  };
  add("task", in.task_content);
  add("candidate", in.candidate);
  add("config", CanonicalJson(in.eval_config_json));
  add("device", in.device_model);
  add("evaluator", in.evaluator_version);
  return Sha256Hex(buf);
}

std::string NowUtc() {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

std::string NewRunId() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  std::random_device rd;
  char rnd[16];
  std::snprintf(rnd, sizeof rnd, "%08x", static_cast<unsigned>(rd()));
  return std::string(stamp) + "-" + rnd;
}

}  // namespace tritonrl::store
