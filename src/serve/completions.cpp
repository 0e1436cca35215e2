#include "serve/completions.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <future>
#include <limits>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "base/mutex.h"
#include "model/chat_template.h"
#include "serve/openai_compat.h"

namespace tritonrl::serve {

namespace {

using nlohmann::json;

bool SameBatchOptions(const model::SamplingOptions& a, const model::SamplingOptions& b) {
  return a.temperature == b.temperature && a.top_p == b.top_p && a.top_k == b.top_k &&
         a.max_new_tokens == b.max_new_tokens && a.num_samples == b.num_samples &&
         a.stop_strings == b.stop_strings && a.stop_token_ids == b.stop_token_ids &&
         a.skip_special_tokens == b.skip_special_tokens &&
         a.presence_penalty == b.presence_penalty && a.frequency_penalty == b.frequency_penalty &&
         a.repetition_penalty == b.repetition_penalty;
}

std::string RandomHex(size_t n) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string s;
  while (s.size() < n) s += fmt::format("{:016x}", rng());
  return s.substr(0, n);
}

uint64_t RandomSeed() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng();
}

// The stream of one request: pieces of text pushed by the generation thread, taken by the
// request's HTTP thread; `abandoned` goes the other way (the client left, stop its rows).
class StreamChannel {
 public:
  void Push(std::vector<StreamDelta> deltas) {
    if (deltas.empty()) return;
    {
      base::MutexLock lock(&mu_);
      for (auto& d : deltas) pending_.push_back(std::move(d));
    }
    cv_.SignalAll();
  }
  void Finish(std::optional<ApiError> failure, int64_t completion_tokens) {
    {
      base::MutexLock lock(&mu_);
      finished_ = true;
      failure_ = std::move(failure);
      completion_tokens_ = completion_tokens;
    }
    cv_.SignalAll();
  }

  struct Taken {
    std::vector<StreamDelta> deltas;
    bool finished = false;  // nothing follows `deltas`
    std::optional<ApiError> failure;
    int64_t completion_tokens = 0;
  };
  // What arrived, waiting up to `wait` for something.
  Taken Take(std::chrono::milliseconds wait) {
    base::MutexLock lock(&mu_);
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (pending_.empty() && !finished_) {
      if (!cv_.WaitUntil(deadline)) break;
    }
    Taken t;
    t.deltas.swap(pending_);
    t.finished = finished_;
    t.failure = failure_;
    t.completion_tokens = completion_tokens_;
    return t;
  }
  void Abandon() { abandoned_ = true; }
  bool abandoned() const { return abandoned_; }

 private:
  base::Mutex mu_;
  base::CondVar cv_{&mu_};
  std::vector<StreamDelta> pending_ GUARDED_BY(mu_);
  bool finished_ GUARDED_BY(mu_) = false;
  std::optional<ApiError> failure_ GUARDED_BY(mu_);
  int64_t completion_tokens_ GUARDED_BY(mu_) = 0;
  std::atomic<bool> abandoned_{false};
};

// A streamed reply: chunks from `channel` as server-sent events until [DONE]. A client that
// leaves early abandons the channel, so the generation thread gives its rows up.
Reply StreamReply(std::shared_ptr<StreamChannel> channel, StreamFormat format) {
  Reply reply;
  reply.content_type = kEventStreamType;
  auto stage = std::make_shared<int>(0);  // 0: start not sent, 1: streaming, 2: ended
  reply.next_chunk = [channel, format, stage]() -> std::optional<std::string> {
    if (*stage == 2) return std::nullopt;
    if (*stage == 0) {
      *stage = 1;
      if (std::string start = FormatStreamStart(format); !start.empty()) return start;
    }
    // A bounded wait: an empty chunk lets the HTTP layer check that the client is still there.
    StreamChannel::Taken taken = channel->Take(std::chrono::milliseconds(500));
    std::string out;
    for (const StreamDelta& d : taken.deltas) out += FormatStreamDelta(format, d);
    if (taken.finished) {
      out += FormatStreamEnd(format, taken.failure, taken.completion_tokens);
      *stage = 2;
    }
    return out;
  };
  reply.on_close = [channel](bool completed) {
    if (!completed) channel->Abandon();
  };
  return reply;
}

}  // namespace

class CompletionsService {
 public:
  CompletionsService(std::shared_ptr<model::Policy> policy, model::ChatTemplate chat,
                     CompletionsConfig config, const ServeContext& ctx)
      : policy_(std::move(policy)), chat_(std::move(chat)), config_(std::move(config)), ctx_(ctx) {
    if (config_.served_name.empty()) config_.served_name = config_.policy.model;
    thread_ = std::thread([this] { Loop(); });
  }
  ~CompletionsService() {
    {
      base::MutexLock lock(&mu_);
      stop_ = true;
    }
    cv_.SignalAll();
    thread_.join();
  }

  Reply Completions(std::string_view body);
  Reply ChatCompletions(std::string_view body);
  Reply Models() const {
    return JsonReply(200, {{"object", "list"},
                           {"data", json::array({{{"id", config_.served_name},
                                                  {"object", "model"},
                                                  {"created", started_},
                                                  {"owned_by", "tritonrl"},
                                                  {"root", config_.policy.model}}})}});
  }

 private:
  struct Job {
    std::vector<std::string> prompts;
    model::SamplingOptions options;
    bool mergeable = true;
    std::promise<Result<std::vector<model::Completion>>> done;
    // Streamed requests only. The rest is the generation thread's: per row, the bytes of its
    // text already streamed, the bytes held back since, and whether its end was streamed.
    std::shared_ptr<StreamChannel> stream;
    std::vector<size_t> sent;
    std::vector<std::string> held;
    std::vector<bool> ended;
  };

  // The sampling fields both endpoints share; `max_tokens_keys` are the names of the length field.
  struct Sampling {
    model::SamplingOptions options;
    bool seeded = false;
    bool stream = false;
    bool include_usage = false;
  };
  Sampling ReadSampling(FieldReader& r, std::initializer_list<std::string_view> max_tokens_keys);
  std::optional<ApiError> CheckModel(FieldReader& r);
  std::shared_ptr<Job> Submit(std::vector<std::string> prompts, const Sampling& sampling);
  Result<std::vector<model::Completion>> Generate(std::vector<std::string> prompts,
                                                  const Sampling& sampling);
  Reply Stream(std::vector<std::string> prompts, const Sampling& sampling, CompletionApi api,
               int64_t prompt_tokens);
  bool TakeBatch(std::vector<std::shared_ptr<Job>>& batch);
  void RunBatch(const std::vector<std::shared_ptr<Job>>& batch);
  static void StreamProgress(Job& job, size_t first, const std::vector<std::string>& text,
                             const std::vector<bool>& done);
  static void FinishStream(Job& job, const std::vector<model::Completion>& rows);
  int64_t CountTokens(const std::string& text) const {
    auto e = model::Encode(model::PolicyTokenizer(*policy_), text, true);
    return e.ok() ? static_cast<int64_t>(e->ids.size()) : 0;
  }
  // The reply both endpoints share: id, object, created, model, choices (sorted by index), usage.
  Reply Envelope(const char* id_prefix, const char* object, json choices, int64_t prompt_tokens,
                 int64_t completion_tokens) const {
    std::sort(choices.begin(), choices.end(),
              [](const json& a, const json& b) { return a["index"] < b["index"]; });
    return JsonReply(200, {{"id", id_prefix + RandomHex(24)},
                           {"object", object},
                           {"created", static_cast<int64_t>(std::time(nullptr))},
                           {"model", config_.served_name},
                           {"choices", std::move(choices)},
                           {"usage",
                            {{"prompt_tokens", prompt_tokens},
                             {"completion_tokens", completion_tokens},
                             {"total_tokens", prompt_tokens + completion_tokens}}}});
  }
  static ApiError GenerationError(const Status& st) {
    const bool timeout = st.code() == StatusCode::kUnavailable;
    return {timeout ? 504 : 500, timeout ? "timeout" : "generation_failed", "", st.message()};
  }
  static Reply GenerationFailed(const Status& st) { return ErrorReply(GenerationError(st)); }
  void Loop();

  std::shared_ptr<model::Policy> policy_;
  const model::ChatTemplate chat_;  // the model's own template, else the built-in (any thread)
  CompletionsConfig config_;
  const int64_t started_ = static_cast<int64_t>(std::time(nullptr));  // "created" of the model
  const ServeContext& ctx_;
  base::Mutex mu_;
  base::CondVar cv_{&mu_};
  std::deque<std::shared_ptr<Job>> queue_ GUARDED_BY(mu_);
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

void CompletionsService::Loop() {
  std::vector<std::shared_ptr<Job>> batch;
  while (TakeBatch(batch)) RunBatch(batch);
}

// The next request and the waiting ones that sample alike, up to the row budget; false once
// stopping with nothing queued. Streamed requests whose client already left are dropped.
bool CompletionsService::TakeBatch(std::vector<std::shared_ptr<Job>>& batch) {
  batch.clear();
  base::MutexLock lock(&mu_);
  for (;;) {
    while (!stop_ && queue_.empty()) cv_.Wait();
    if (stop_ && queue_.empty()) return false;
    std::shared_ptr<Job> first = queue_.front();
    queue_.pop_front();
    if (first->stream && first->stream->abandoned()) continue;
    batch.push_back(std::move(first));
    break;
  }
  int64_t rows = static_cast<int64_t>(batch[0]->prompts.size()) * batch[0]->options.num_samples;
  if (!batch[0]->mergeable) return true;
  for (auto it = queue_.begin(); it != queue_.end();) {
    const int64_t more = static_cast<int64_t>((*it)->prompts.size()) * (*it)->options.num_samples;
    if ((*it)->mergeable && SameBatchOptions((*it)->options, batch[0]->options) &&
        rows + more <= config_.max_batch_rows) {
      rows += more;
      batch.push_back(*it);
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  return true;
}

void CompletionsService::RunBatch(const std::vector<std::shared_ptr<Job>>& batch) {
  std::vector<std::string> prompts;
  std::vector<size_t> first_prompt;
  bool streamed = false;
  for (const auto& job : batch) {
    first_prompt.push_back(prompts.size());
    prompts.insert(prompts.end(), job->prompts.begin(), job->prompts.end());
    streamed = streamed || job->stream != nullptr;
  }
  const auto n = static_cast<size_t>(batch[0]->options.num_samples);
  model::ProgressFn progress;
  if (streamed) {
    progress = [&](const std::vector<model::Completion>&, const std::vector<std::string>& text,
                   const std::vector<bool>& done, std::vector<bool>& abandon) {
      for (size_t j = 0; j < batch.size(); ++j) {
        Job& job = *batch[j];
        if (!job.stream) continue;
        const size_t first = first_prompt[j] * n;
        if (job.stream->abandoned()) {
          for (size_t r = 0; r < job.sent.size(); ++r) abandon[first + r] = true;
        } else {
          StreamProgress(job, first, text, done);
        }
      }
    };
  }
  auto result = model::GenerateText(*policy_, prompts, batch[0]->options, nullptr, progress);
  if (!result.ok()) {
    for (const auto& job : batch) {
      if (job->stream) job->stream->Finish(GenerationError(result.status()), 0);
      job->done.set_value(result.status());
    }
    return;
  }
  std::vector<std::vector<model::Completion>> split(batch.size());
  for (model::Completion& c : *result) {
    size_t j = batch.size() - 1;
    while (static_cast<size_t>(c.prompt_index) < first_prompt[j]) --j;
    c.prompt_index -= static_cast<int64_t>(first_prompt[j]);
    split[j].push_back(std::move(c));
  }
  for (size_t j = 0; j < batch.size(); ++j) {
    if (batch[j]->stream) FinishStream(*batch[j], split[j]);
    batch[j]->done.set_value(std::move(split[j]));
  }
}

// Streams what the job's rows (rows [first, first + rows) of the batch) gained since the last
// call: the text that can no longer change (StreamableBytes), and the end of each row stopped.
void CompletionsService::StreamProgress(Job& job, size_t first,
                                        const std::vector<std::string>& text,
                                        const std::vector<bool>& done) {
  std::vector<StreamDelta> deltas;
  for (size_t r = 0; r < job.sent.size(); ++r) {
    if (job.ended[r]) continue;
    const std::string& t = text[first + r];
    const bool stopped = done[first + r];
    // A stop string is only ever found in bytes held back, so the text never shrinks below what
    // was sent.
    const size_t upto =
        std::max(job.sent[r], StreamableBytes(t, stopped, job.options.stop_strings));
    std::string piece =
        model::ToValidUtf8(std::string_view(t).substr(job.sent[r], upto - job.sent[r]));
    job.sent[r] = upto;
    job.held[r] = t.substr(std::min(upto, t.size()));
    if (stopped) job.ended[r] = true;
    if (!piece.empty() || stopped)
      deltas.push_back({static_cast<int64_t>(r), std::move(piece), stopped ? "stop" : ""});
  }
  job.stream->Push(std::move(deltas));
}

// After generation: the rows still open (ended by length) send what they held back, and the
// stream ends with the token count for the usage chunk.
void CompletionsService::FinishStream(Job& job, const std::vector<model::Completion>& rows) {
  std::vector<StreamDelta> deltas;
  int64_t tokens = 0;
  for (const model::Completion& c : rows) {
    tokens += static_cast<int64_t>(c.tokens.size());
    const auto r = static_cast<size_t>(c.prompt_index * job.options.num_samples + c.sample_index);
    if (r >= job.ended.size() || job.ended[r]) continue;
    job.ended[r] = true;
    deltas.push_back({static_cast<int64_t>(r), model::ToValidUtf8(job.held[r]), c.finish_reason});
  }
  std::sort(deltas.begin(), deltas.end(),
            [](const StreamDelta& a, const StreamDelta& b) { return a.index < b.index; });
  job.stream->Push(std::move(deltas));
  job.stream->Finish(std::nullopt, tokens);
}

std::shared_ptr<CompletionsService::Job> CompletionsService::Submit(
    std::vector<std::string> prompts, const Sampling& sampling) {
  auto job = std::make_shared<Job>();
  job->prompts = std::move(prompts);
  job->options = sampling.options;
  job->mergeable = !sampling.seeded;
  if (sampling.stream) {
    const size_t rows = job->prompts.size() * static_cast<size_t>(sampling.options.num_samples);
    job->stream = std::make_shared<StreamChannel>();
    job->sent.assign(rows, 0);
    job->held.assign(rows, "");
    job->ended.assign(rows, false);
  }
  {
    base::MutexLock lock(&mu_);
    queue_.push_back(job);
  }
  cv_.Signal();
  return job;
}

Result<std::vector<model::Completion>> CompletionsService::Generate(
    std::vector<std::string> prompts, const Sampling& sampling) {
  auto future = Submit(std::move(prompts), sampling)->done.get_future();
  if (future.wait_for(ctx_.limits.request_timeout) != std::future_status::ready)
    return Status::Unavailable("generation did not finish within the request timeout");
  return future.get();
}

Reply CompletionsService::Stream(std::vector<std::string> prompts, const Sampling& sampling,
                                 CompletionApi api, int64_t prompt_tokens) {
  StreamFormat f;
  f.api = api;
  f.id = (api == CompletionApi::kChat ? "chatcmpl-" : "cmpl-") + RandomHex(24);
  f.created = static_cast<int64_t>(std::time(nullptr));
  f.model = config_.served_name;
  f.choices = static_cast<int64_t>(prompts.size()) * sampling.options.num_samples;
  f.include_usage = sampling.include_usage;
  f.prompt_tokens = prompt_tokens;
  std::shared_ptr<Job> job = Submit(std::move(prompts), sampling);
  return StreamReply(job->stream, std::move(f));
}

std::optional<ApiError> CompletionsService::CheckModel(FieldReader& r) {
  auto name = r.String("model", Need::kOptional, 512);
  if (name && *name != config_.served_name)
    return ApiError{404, "model_not_found", "model",
                    fmt::format("this server serves the model \"{}\"", config_.served_name)};
  return std::nullopt;
}

CompletionsService::Sampling CompletionsService::ReadSampling(
    FieldReader& r, std::initializer_list<std::string_view> max_tokens_keys) {
  Sampling s;
  auto& o = s.options;
  o.max_new_tokens = 16;  // OpenAI's default for completions
  for (std::string_view key : max_tokens_keys) {
    if (auto v = r.Integer(key, Need::kOptional, 1, config_.max_tokens)) o.max_new_tokens = *v;
  }
  if (auto v = r.Number("temperature", Need::kOptional, 0, 2)) o.temperature = *v;
  if (auto v = r.Number("top_p", Need::kOptional, 0, 1)) {
    if (*v <= 0) r.Fail(BadField("top_p", "out_of_range", "top_p must be within (0, 1]"));
    o.top_p = *v;
  }
  if (auto v = r.Integer("top_k", Need::kOptional, 0, 1 << 20)) o.top_k = *v;
  if (auto v = r.Integer("n", Need::kOptional, 1, config_.max_n)) o.num_samples = *v;
  // OpenAI's ranges; vLLM's repetition penalty is any positive number, 2 is already harsh.
  if (auto v = r.Number("presence_penalty", Need::kOptional, -2, 2)) o.presence_penalty = *v;
  if (auto v = r.Number("frequency_penalty", Need::kOptional, -2, 2)) o.frequency_penalty = *v;
  if (auto v = r.Number("repetition_penalty", Need::kOptional, 0, 10)) {
    if (*v <= 0)
      r.Fail(BadField("repetition_penalty", "out_of_range", "repetition_penalty must be positive"));
    o.repetition_penalty = *v;
  }
  if (auto v = r.Strings("stop", Need::kOptional, 4, 256)) o.stop_strings = *v;
  if (auto v = r.Integer("seed", Need::kOptional, 0, std::numeric_limits<int64_t>::max())) {
    o.seed = static_cast<uint64_t>(*v);
    s.seeded = true;
  } else {
    o.seed = RandomSeed();
  }
  s.stream = r.Bool("stream", Need::kOptional).value_or(false);
  if (const json* opts = r.Object("stream_options", Need::kOptional)) {
    FieldReader so(*opts, "stream_options", {"include_usage", "continuous_usage_stats"});
    s.include_usage = so.Bool("include_usage", Need::kOptional).value_or(false);
    if (so.Bool("continuous_usage_stats", Need::kOptional).value_or(false))
      so.Fail(BadField(so.PathOf("continuous_usage_stats"), "unsupported",
                       "continuous_usage_stats is not supported: usage comes in the last chunk"));
    if (!s.stream && so.ok())
      so.Fail(BadField("stream_options", "bad_value", "stream_options needs \"stream\": true"));
    if (!so.ok()) r.Fail(so.error());
  }
  // vLLM's default: special tokens (<|im_start|>, ...) are left out of the text.
  o.skip_special_tokens = r.Bool("skip_special_tokens", Need::kOptional).value_or(true);
  r.String("user", Need::kOptional, 256);
  o.stop_token_ids = model::DefaultStopTokens(*policy_);
  return s;
}

Reply CompletionsService::Completions(std::string_view body) {
  auto parsed = ParseJsonObject(body);
  if (!parsed.ok()) return ErrorReply(parsed.error);
  FieldReader r(*parsed.value, "",
                {"model", "prompt", "max_tokens", "temperature", "top_p", "top_k", "n", "stop",
                 "seed", "logprobs", "stream", "stream_options", "skip_special_tokens", "user",
                 "presence_penalty", "frequency_penalty", "repetition_penalty"},
                UnsupportedFieldNames(CompletionApi::kCompletions));
  if (auto e = CheckUnsupportedFields(*parsed.value, CompletionApi::kCompletions))
    return ErrorReply(*e);
  if (auto e = CheckModel(r)) return ErrorReply(*e);
  auto prompts = r.Strings("prompt", Need::kRequired, static_cast<size_t>(config_.max_prompts),
                           ctx_.limits.max_text_bytes);
  Sampling s = ReadSampling(r, {"max_tokens"});
  // The chosen tokens' log-probabilities are returned; alternatives are not computed.
  auto logprobs = r.Integer("logprobs", Need::kOptional, 0, 5);
  if (logprobs && s.stream)
    r.Fail(BadField("logprobs", "unsupported", "logprobs are not streamed; ask without stream"));
  if (!r.ok()) return ErrorReply(r.error());

  int64_t prompt_tokens = 0;
  for (const auto& p : *prompts) prompt_tokens += CountTokens(p);
  if (s.stream) return Stream(*prompts, s, CompletionApi::kCompletions, prompt_tokens);
  auto result = Generate(*prompts, s);
  if (!result.ok()) return GenerationFailed(result.status());
  const auto& tok = model::PolicyTokenizer(*policy_);
  json choices = json::array();
  int64_t completion_tokens = 0;
  for (const model::Completion& c : *result) {
    json choice = {{"index", c.prompt_index * s.options.num_samples + c.sample_index},
                   {"text", c.text},
                   {"finish_reason", c.finish_reason},
                   {"logprobs", nullptr}};
    if (logprobs) {
      json tokens = json::array(), offsets = json::array();
      int64_t offset = 0;
      for (int32_t id : c.tokens) {
        const std::string bytes = model::DecodeBytes(tok, std::span(&id, 1));
        tokens.push_back(model::ToValidUtf8(bytes));
        offsets.push_back(offset);
        offset += static_cast<int64_t>(bytes.size());
      }
      choice["logprobs"] = {{"tokens", tokens},
                            {"token_logprobs", c.logprobs},
                            {"top_logprobs", nullptr},
                            {"text_offset", offsets}};
    }
    completion_tokens += static_cast<int64_t>(c.tokens.size());
    choices.push_back(std::move(choice));
  }
  return Envelope("cmpl-", "text_completion", std::move(choices), prompt_tokens, completion_tokens);
}

Reply CompletionsService::ChatCompletions(std::string_view body) {
  auto parsed = ParseJsonObject(body);
  if (!parsed.ok()) return ErrorReply(parsed.error);
  FieldReader r(
      *parsed.value, "",
      {"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k",
       "n", "stop", "seed", "logprobs", "stream", "stream_options", "skip_special_tokens", "user",
       "chat_template_kwargs", "presence_penalty", "frequency_penalty", "repetition_penalty"},
      UnsupportedFieldNames(CompletionApi::kChat));
  if (auto e = CheckUnsupportedFields(*parsed.value, CompletionApi::kChat)) return ErrorReply(*e);
  if (auto e = CheckModel(r)) return ErrorReply(*e);
  const json* messages = r.Array("messages", Need::kRequired, 256);
  Sampling s = ReadSampling(r, {"max_tokens", "max_completion_tokens"});
  auto logprobs = r.Bool("logprobs", Need::kOptional);
  if (logprobs && *logprobs && s.stream)
    r.Fail(BadField("logprobs", "unsupported", "logprobs are not streamed; ask without stream"));
  model::ChatTemplateOptions chat;
  const json& request = *parsed.value;
  if (auto kw = request.find("chat_template_kwargs");
      r.ok() && kw != request.end() && !kw->is_null()) {
    FieldReader k(*kw, "chat_template_kwargs", {"enable_thinking"});
    if (auto t = k.Bool("enable_thinking", Need::kOptional)) chat.enable_thinking = *t;
    if (!k.ok()) r.Fail(k.error());
  }
  std::vector<model::ChatMessage> msgs;
  for (size_t i = 0; r.ok() && i < messages->size(); ++i) {
    FieldReader m((*messages)[i], ElementPath("messages", i), {"role", "content", "name"});
    auto role = m.String("role", Need::kRequired, 32);
    auto content = m.String("content", Need::kRequired, ctx_.limits.max_text_bytes);
    m.String("name", Need::kOptional, 64);
    if (m.ok() && *role != "system" && *role != "user" && *role != "assistant")
      m.Fail(BadField(m.PathOf("role"), "bad_value",
                      "role must be \"system\", \"user\" or \"assistant\""));
    if (!m.ok()) return ErrorReply(m.error());
    msgs.push_back({*role, *content});
  }
  if (!r.ok()) return ErrorReply(r.error());

  // A template that refuses the conversation (raise_exception: roles that do not alternate, a
  // role it does not know) is the client's error, with the template's message.
  auto rendered = chat_.Apply(msgs, chat);
  if (!rendered.ok())
    return ErrorReply(BadField("messages", "bad_value", rendered.status().message()));
  const std::string& prompt = *rendered;
  if (s.stream) return Stream({prompt}, s, CompletionApi::kChat, CountTokens(prompt));
  auto result = Generate({prompt}, s);
  if (!result.ok()) return GenerationFailed(result.status());
  const auto& tok = model::PolicyTokenizer(*policy_);
  json choices = json::array();
  int64_t completion_tokens = 0;
  for (const model::Completion& c : *result) {
    json choice = {{"index", c.sample_index},
                   {"message", {{"role", "assistant"}, {"content", c.text}}},
                   {"finish_reason", c.finish_reason},
                   {"logprobs", nullptr}};
    if (logprobs && *logprobs) {
      json content = json::array();
      for (size_t t = 0; t < c.tokens.size(); ++t) {
        const std::string bytes = model::DecodeBytes(tok, std::span(&c.tokens[t], 1));
        json raw = json::array();
        for (unsigned char b : bytes) raw.push_back(static_cast<int>(b));
        content.push_back({{"token", model::ToValidUtf8(bytes)},
                           {"logprob", c.logprobs[t]},
                           {"bytes", raw},
                           {"top_logprobs", json::array()}});
      }
      choice["logprobs"] = {{"content", content}};
    }
    completion_tokens += static_cast<int64_t>(c.tokens.size());
    choices.push_back(std::move(choice));
  }
  return Envelope("chatcmpl-", "chat.completion", std::move(choices), CountTokens(prompt),
                  completion_tokens);
}

Result<std::shared_ptr<CompletionsService>> StartCompletions(const CompletionsConfig& config,
                                                             const ServeContext& ctx) {
  auto chat = model::LoadChatTemplate(config.policy.model);
  if (!chat.ok()) return chat.status();
  auto policy = model::LoadPolicy(config.policy);
  if (!policy.ok()) return policy.status();
  std::fprintf(stderr, "serve: policy %s; chat template: %s\n",
               model::PolicyDescription(**policy).c_str(), chat->origin().c_str());
  return std::make_shared<CompletionsService>(std::move(*policy), std::move(chat.value()), config,
                                              ctx);
}

std::vector<Route> CompletionRoutes(std::shared_ptr<CompletionsService> service) {
  return {
      {"POST", "/v1/completions", "completions", false,
       [service](const HttpRequest& req) { return service->Completions(req.body); }},
      {"POST", "/v1/chat/completions", "chat_completions", false,
       [service](const HttpRequest& req) { return service->ChatCompletions(req.body); }},
      {"GET", "/v1/models", "models", false,
       [service](const HttpRequest&) { return service->Models(); }},
  };
}

}  // namespace tritonrl::serve
