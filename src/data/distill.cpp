#include "data/distill.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "base/mutex.h"

namespace tritonrl::data {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Endpoint {
  std::string origin;  // scheme://host[:port]
  std::string path;    // .../chat/completions
};

Result<Endpoint> ParseEndpoint(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos ||
      (url.substr(0, scheme) != "http" && url.substr(0, scheme) != "https")) {
    return Status::InvalidArgument("--endpoint must be an http:// or https:// URL: " + url);
  }
  const size_t slash = url.find('/', scheme + 3);
  Endpoint e;
  e.origin = url.substr(0, slash);
  std::string base = slash == std::string::npos ? "" : url.substr(slash);
  while (!base.empty() && base.back() == '/') base.pop_back();
  const bool has_v1 = base.size() >= 3 && base.substr(base.size() - 3) == "/v1";
  e.path = base + (has_v1 ? "" : "/v1") + "/chat/completions";
  return e;
}

std::string Key(const std::string& task, int index) {
  return task + "\n" + std::to_string(index);
}

// Spaces request starts at least 1/rps apart across threads.
class RateLimiter {
 public:
  explicit RateLimiter(double rps) : interval_(rps > 0 ? 1.0 / rps : 0) {}
  void Wait() {
    if (interval_ <= 0) return;
    Clock::time_point slot;
    {
      base::MutexLock lock(&mu_);
      const auto now = Clock::now();
      next_ = std::max(next_, now);
      slot = next_;
      next_ +=
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_));
    }
    std::this_thread::sleep_until(slot);
  }

 private:
  double interval_;
  base::Mutex mu_;
  Clock::time_point next_ GUARDED_BY(mu_){};
};

LedgerEntry Ask(const Endpoint& ep, const DistillRequest& req, const DistillOptions& o,
                RateLimiter& limiter) {
  LedgerEntry e{req.task, req.index, false, false, "", "", 0};
  const json body = {{"model", o.model},
                     {"messages", json::array({{{"role", "user"}, {"content", req.prompt}}})},
                     {"temperature", o.temperature},
                     {"max_tokens", o.max_tokens}};
  const std::string text = body.dump();
  httplib::Headers headers;
  if (!o.api_key.empty()) headers.emplace("Authorization", "Bearer " + o.api_key);
  double wait = o.backoff_s;
  for (int attempt = 0; attempt <= o.max_retries; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(wait, 30.0)));
      wait *= 2;
    }
    limiter.Wait();
    ++e.attempts;
    // httplib picks TLS from the scheme (Debian's build has OpenSSL); the certificate and the
    // host name are verified against the system's CAs unless told otherwise.
    httplib::Client cli(ep.origin);
    if (!o.ca_cert.empty()) cli.set_ca_cert_path(o.ca_cert);
    cli.enable_server_certificate_verification(!o.insecure);
    const auto secs = static_cast<time_t>(o.timeout_s);
    cli.set_connection_timeout(10, 0);
    cli.set_read_timeout(secs, 0);
    cli.set_write_timeout(60, 0);
    auto res = cli.Post(ep.path.c_str(), headers, text, "application/json");
    if (!res) {
      e.error = "connection: " + httplib::to_string(res.error());
      if (res.error() == httplib::Error::SSLServerVerification)
        e.error += " (the server's certificate is not trusted: --ca-cert FILE names its CA)";
      continue;
    }
    if (res->status != 200) {
      e.error = fmt::format("http {}: {}", res->status, res->body.substr(0, 200));
      const bool retryable = res->status == 408 || res->status == 429 || res->status >= 500;
      if (!retryable) {
        e.permanent = true;
        return e;
      }
      continue;
    }
    json j = json::parse(res->body, nullptr, false);
    if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() ||
        j["choices"].empty() || !j["choices"][0].contains("message")) {
      e.error = "malformed response: " + res->body.substr(0, 200);
      continue;
    }
    const json& msg = j["choices"][0]["message"];
    std::string content = msg.contains("content") && msg["content"].is_string()
                              ? msg["content"].get<std::string>()
                              : "";
    // Reasoning models (vLLM, DeepSeek) return the thoughts beside the answer.
    if (msg.contains("reasoning_content") && msg["reasoning_content"].is_string() &&
        content.find("<think>") == std::string::npos) {
      content =
          "<think>\n" + msg["reasoning_content"].get<std::string>() + "\n</think>\n\n" + content;
    }
    e.ok = true;
    e.error.clear();
    e.output = std::move(content);
    return e;
  }
  return e;
}

// A line of the ledger that is an entry (anything else is torn, or not a ledger).
bool IsLedgerLine(const json& j) {
  return j.is_object() && j.contains("task") && j["task"].is_string() && j.contains("index") &&
         j["index"].is_number_integer() && j.contains("ok");
}

}  // namespace

json LedgerEntry::ToJson() const {
  return {{"task", task},           {"index", index},   {"ok", ok},
          {"permanent", permanent}, {"output", output}, {"error", error},
          {"attempts", attempts}};
}

Result<std::vector<LedgerEntry>> ReadLedger(const std::string& path) {
  std::vector<LedgerEntry> out;
  std::ifstream in(path);
  if (!in) return out;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    json j = json::parse(lines[i], nullptr, false);
    if (!IsLedgerLine(j)) {
      if (i + 1 == lines.size()) break;  // torn by a kill mid-write: that request is redone
      return Status::ParseError(fmt::format("{}:{}: not a ledger entry", path, i + 1));
    }
    LedgerEntry e;
    e.task = j["task"];
    e.index = j["index"];
    e.ok = j.value("ok", false);
    e.permanent = j.value("permanent", false);
    e.output = j.value("output", "");
    e.error = j.value("error", "");
    e.attempts = j.value("attempts", 0);
    out.push_back(std::move(e));
  }
  return out;
}

// A run killed mid-write leaves a last line without its newline. Appending after it would glue
// the next entry to it, and the glued line, no longer last, would make the ledger unreadable: end
// a complete entry with its newline, and cut a torn one off (ReadLedger ignores it; it is redone).
namespace {

Status RepairLedgerTail(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size == 0) return Status::Ok();  // no ledger yet
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in) return Status::IoError("cannot read " + path);
  if (text.empty() || text.back() == '\n') return Status::Ok();
  const size_t start = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  const json last = json::parse(text.substr(start), nullptr, false);
  if (IsLedgerLine(last)) {
    std::ofstream out(path, std::ios::app);
    out << "\n";
    return out ? Status::Ok() : Status::IoError("cannot append to " + path);
  }
  std::filesystem::resize_file(path, start, ec);
  return ec ? Status::IoError("cannot cut the torn last line of " + path + ": " + ec.message())
            : Status::Ok();
}

}  // namespace

Result<std::vector<LedgerEntry>> RunLedger(
    const std::vector<DistillRequest>& requests, const std::string& ledger_path, int max_requests,
    const AnswerFn& answer, const std::function<void(const LedgerEntry&)>& on_entry) {
  auto ledger = ReadLedger(ledger_path);
  if (!ledger.ok()) return ledger.status();
  std::set<std::string> done;
  for (const auto& e : *ledger) {
    if (e.ok || e.permanent) done.insert(Key(e.task, e.index));
  }
  std::vector<const DistillRequest*> todo;
  for (const auto& r : requests) {
    if (!done.count(Key(r.task, r.index))) todo.push_back(&r);
  }
  if (max_requests > 0 && static_cast<int>(todo.size()) > max_requests) {
    todo.resize(static_cast<size_t>(max_requests));
  }
  if (auto repaired = RepairLedgerTail(ledger_path); !repaired.ok()) return repaired;
  std::ofstream out(ledger_path, std::ios::app);
  if (!out) return Status::IoError("cannot append to " + ledger_path);
  std::mutex mu;
  std::vector<LedgerEntry> fresh;
  const Status answered = answer(todo, [&](LedgerEntry e) {
    std::lock_guard<std::mutex> lock(mu);
    out << e.ToJson().dump() << "\n";
    out.flush();
    on_entry(e);
    fresh.push_back(std::move(e));
  });
  if (!out) return Status::IoError("writing " + ledger_path + " failed");
  if (!answered.ok()) return answered;
  // The ledger after the run: earlier entries superseded by a newer one for the same request.
  std::map<std::string, LedgerEntry> latest;
  for (auto& e : *ledger) latest[Key(e.task, e.index)] = std::move(e);
  for (auto& e : fresh) latest[Key(e.task, e.index)] = std::move(e);
  std::vector<LedgerEntry> all;
  for (auto& [k, e] : latest) all.push_back(std::move(e));
  return all;
}

Result<std::vector<LedgerEntry>> RunDistill(
    const std::vector<DistillRequest>& requests, const DistillOptions& o,
    const std::function<void(const LedgerEntry&)>& on_entry) {
  auto endpoint = ParseEndpoint(o.endpoint);
  if (!endpoint.ok()) return endpoint.status();
  // A CA file that cannot be read would fail every request the same way: say so once, up front.
  if (!o.ca_cert.empty() && !std::ifstream(o.ca_cert).good())
    return Status::InvalidArgument("--ca-cert " + o.ca_cert + ": cannot read the file");
  auto ask_all = [&](const std::vector<const DistillRequest*>& todo, const RecordFn& record) {
    RateLimiter limiter(o.requests_per_second);
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i = next++; i < todo.size(); i = next++)
        record(Ask(*endpoint, *todo[i], o, limiter));
    };
    std::vector<std::thread> threads;
    const int n = std::max(1, std::min<int>(o.concurrency, static_cast<int>(todo.size())));
    for (int t = 0; t < n; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    return Status::Ok();
  };
  return RunLedger(requests, o.ledger_path, o.max_requests, ask_all, on_entry);
}

}  // namespace tritonrl::data
