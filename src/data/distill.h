// Teacher distillation through an OpenAI-compatible endpoint (POST /v1/chat/completions):
// k samples per task, requested by a bounded pool of threads with a rate limit and retries
// with exponential back-off. Every finished request is appended (and flushed) to a JSONL
// ledger before the next is taken, so a killed run resumes without repeating finished
// requests. Judging the outputs (rejection sampling) is the caller's: src/cli/cmd_data.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tritonrl::data {

struct DistillRequest {
  std::string task;    // task id
  int index = 0;       // sample number, 0..k-1
  std::string prompt;  // PromptFor(reference)
};

struct DistillOptions {
  std::string endpoint;   // "http[s]://host:port" or ".../v1"
  std::string ca_cert;    // https: PEM file of the CA(s) to trust; empty: the system's store
  bool insecure = false;  // https: skip certificate verification (a test server, never a teacher)
  std::string model;
  std::string api_key;  // sent as a Bearer token when not empty
  double temperature = 0.7;
  int max_tokens = 4096;
  int concurrency = 4;
  double requests_per_second = 0;  // 0: no limit
  int max_retries = 4;
  double backoff_s = 0.5;   // first wait; doubles per retry, capped at 30 s
  double timeout_s = 600;   // per request
  int max_requests = 0;     // 0: all; else stop after this many new requests (bounded cost)
  std::string ledger_path;  // JSONL, appended
};

struct LedgerEntry {
  std::string task;
  int index = 0;
  bool ok = false;         // got a completion
  bool permanent = false;  // a failure that a retry cannot fix (4xx other than 408/429)
  std::string output;      // the message content (reasoning_content prepended in <think>)
  std::string error;
  int attempts = 0;
  nlohmann::json ToJson() const;
};

// Entries of an existing ledger (missing file: none). A malformed line is an error naming
// file:line, except a torn last line (a run killed mid-write), which is ignored.
Result<std::vector<LedgerEntry>> ReadLedger(const std::string& path);

// The ledger's protocol, for any source of answers (RunDistill's endpoint, `bench`'s local
// policy). RunLedger reads the ledger, hands `answer` the requests without a finished entry (ok,
// or a permanent failure) in request order, at most `max_requests` of them (0: all), and appends
// every entry `answer` passes to `record`, flushed before `record` returns (`record` may be
// called from several threads; it calls `on_entry` under its lock). An error from `answer` is
// returned after the entries it recorded are on disk. Returns the ledger's entries after the
// run, a newer entry superseding an older one of the same request.
using RecordFn = std::function<void(LedgerEntry)>;
using AnswerFn =
    std::function<Status(const std::vector<const DistillRequest*>& todo, const RecordFn& record)>;
Result<std::vector<LedgerEntry>> RunLedger(const std::vector<DistillRequest>& requests,
                                           const std::string& ledger_path, int max_requests,
                                           const AnswerFn& answer,
                                           const std::function<void(const LedgerEntry&)>& on_entry);

// Sends every request that has no finished entry in the ledger (ok, or a permanent failure)
// and appends one entry per request. Returns the ledger's entries after the run.
Result<std::vector<LedgerEntry>> RunDistill(
    const std::vector<DistillRequest>& requests, const DistillOptions& options,
    const std::function<void(const LedgerEntry&)>& on_entry);

}  // namespace tritonrl::data
