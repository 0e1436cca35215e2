// RunAuditResumable: the audit's per-task JSONL cache (see audit.h).
#include <cstdio>
#include <map>
#include <sstream>

#include "base/file.h"
#include "task/audit.h"

namespace tritonrl::task {
namespace {

// What a cached verdict depends on besides the task file.
std::string OptionsKey(const AuditOptions& o) {
  std::ostringstream key;
  key << o.device << "|" << o.seed << "|" << o.timeout_s << "|" << o.max_memory_gb << "|";
  for (const auto& v : o.variants) key << v << ",";
  return key.str();
}

bool Retryable(const AuditResult& r) {
  return r.status == "error" || r.status == "timeout";
}

Json RecordJson(const AuditResult& r) {
  return Json{{"variant", r.variant}, {"status", r.status}, {"detail", r.detail}};
}

// task id -> records, for the lines of `text` that match `sha` of their task and `key`.
std::map<std::string, std::vector<AuditResult>> LoadCache(
    const std::string& text, const std::map<std::string, std::string>& sha,
    const std::string& key) {
  std::map<std::string, std::vector<AuditResult>> cached;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    Json j = Json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("records") || !j["records"].is_array()) continue;
    const std::string task = j.value("task", "");
    auto it = sha.find(task);
    if (it == sha.end() || j.value("sha256", "") != it->second || j.value("options", "") != key)
      continue;
    std::vector<AuditResult> records;
    for (const auto& r : j["records"]) {
      if (!r.is_object()) continue;
      records.push_back({task, r.value("variant", ""), r.value("status", ""),
                         r.contains("detail") ? r["detail"] : Json()});
    }
    if (!records.empty()) cached[task] = std::move(records);
  }
  return cached;
}

}  // namespace

Result<std::vector<AuditResult>> RunAuditResumable(
    const std::vector<TaskInfo>& tasks, const AuditOptions& options, const std::string& cache_path,
    const std::function<void(const AuditResult&)>& on_result, std::size_t* resumed) {
  const std::string key = OptionsKey(options);
  std::map<std::string, std::string> sha;
  for (const auto& t : tasks) sha[t.id] = t.sha256;
  std::map<std::string, std::vector<AuditResult>> cached;
  if (auto text = ReadFile(cache_path); text.ok()) cached = LoadCache(*text, sha, key);

  std::vector<TaskInfo> pending;
  for (const auto& t : tasks) {
    if (!cached.contains(t.id)) pending.push_back(t);
  }
  if (resumed) *resumed = tasks.size() - pending.size();

  std::FILE* out = std::fopen(cache_path.c_str(), "a");
  if (!out) return Status::IoError("cannot append to the audit cache " + cache_path);
  // RunAudit publishes a task's records one after another (never interleaved with another
  // task's), so a task is over when the next one begins or the audit returns.
  std::string current;
  std::vector<AuditResult> records;
  auto flush = [&] {
    if (current.empty() || records.empty()) return;
    bool keep = sha.contains(current);
    Json line{{"task", current}, {"options", key}, {"records", Json::array()}};
    if (keep) line["sha256"] = sha.at(current);
    for (const auto& r : records) {
      keep = keep && !Retryable(r);
      line["records"].push_back(RecordJson(r));
    }
    if (keep) {
      const std::string text = line.dump() + "\n";
      std::fwrite(text.data(), 1, text.size(), out);
      std::fflush(out);
    }
    records.clear();
  };
  auto fresh = RunAudit(pending, options, [&](const AuditResult& r) {
    if (r.task != current) {
      flush();
      current = r.task;
    }
    records.push_back(r);
    if (on_result) on_result(r);
  });
  flush();
  std::fclose(out);
  if (!fresh.ok()) return fresh.status();

  // Back in the order of `tasks`; records of no known task (protocol errors) last.
  std::map<std::string, std::vector<AuditResult>> by_task;
  std::vector<AuditResult> unknown;
  for (auto& r : *fresh) {
    if (sha.contains(r.task)) {
      by_task[r.task].push_back(std::move(r));
    } else {
      unknown.push_back(std::move(r));
    }
  }
  std::vector<AuditResult> all;
  for (const auto& t : tasks) {
    auto& from = cached.contains(t.id) ? cached[t.id] : by_task[t.id];
    for (auto& r : from) {
      if (cached.contains(t.id) && on_result) on_result(r);
      all.push_back(std::move(r));
    }
  }
  for (auto& r : unknown) all.push_back(std::move(r));
  return all;
}

}  // namespace tritonrl::task
