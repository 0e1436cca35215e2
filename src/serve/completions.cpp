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

namespace tritonrl::serve {

namespace {

using nlohmann::json;

bool SameBatchOptions(const model::SamplingOptions& a, const model::SamplingOptions& b) {
  return a.temperature == b.temperature && a.top_p == b.top_p && a.top_k == b.top_k &&
         a.max_new_tokens == b.max_new_tokens && a.num_samples == b.num_samples &&
         a.stop_strings == b.stop_strings && a.stop_token_ids == b.stop_token_ids;
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

}  // namespace

class CompletionsService {
 public:
  CompletionsService(std::shared_ptr<model::Policy> policy, CompletionsConfig config,
                     const ServeContext& ctx)
      : policy_(std::move(policy)), config_(std::move(config)), ctx_(ctx) {
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
                                                  {"owned_by", "tritonrl"}}})}});
  }

 private:
  struct Job {
    std::vector<std::string> prompts;
    model::SamplingOptions options;
    bool mergeable = true;
    std::promise<Result<std::vector<model::Completion>>> done;
  };

  // The sampling fields both endpoints share; `max_tokens_keys` are the names of the length field.
  struct Sampling {
    model::SamplingOptions options;
    bool seeded = false;
  };
  Sampling ReadSampling(FieldReader& r, std::initializer_list<std::string_view> max_tokens_keys);
  std::optional<ApiError> CheckModel(FieldReader& r);
  Result<std::vector<model::Completion>> Generate(std::vector<std::string> prompts,
                                                  const Sampling& sampling);
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
  static Reply GenerationFailed(const Status& st) {
    const bool timeout = st.code() == StatusCode::kUnavailable;
    return ErrorReply(
        {timeout ? 504 : 500, timeout ? "timeout" : "generation_failed", "", st.message()});
  }
  void Loop();

  std::shared_ptr<model::Policy> policy_;
  CompletionsConfig config_;
  const ServeContext& ctx_;
  base::Mutex mu_;
  base::CondVar cv_{&mu_};
  std::deque<std::shared_ptr<Job>> queue_ GUARDED_BY(mu_);
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

void CompletionsService::Loop() {
  for (;;) {
    std::vector<std::shared_ptr<Job>> batch;
    {
      base::MutexLock lock(&mu_);
      while (!stop_ && queue_.empty()) cv_.Wait();
      if (stop_ && queue_.empty()) return;
      batch.push_back(queue_.front());
      queue_.pop_front();
      // Merge the waiting requests that sample alike, up to the row budget.
      int64_t rows = static_cast<int64_t>(batch[0]->prompts.size()) * batch[0]->options.num_samples;
      if (batch[0]->mergeable) {
        for (auto it = queue_.begin(); it != queue_.end();) {
          const int64_t more =
              static_cast<int64_t>((*it)->prompts.size()) * (*it)->options.num_samples;
          if ((*it)->mergeable && SameBatchOptions((*it)->options, batch[0]->options) &&
              rows + more <= config_.max_batch_rows) {
            rows += more;
            batch.push_back(*it);
            it = queue_.erase(it);
          } else {
            ++it;
          }
        }
      }
    }
    std::vector<std::string> prompts;
    std::vector<size_t> first_prompt;
    for (const auto& job : batch) {
      first_prompt.push_back(prompts.size());
      prompts.insert(prompts.end(), job->prompts.begin(), job->prompts.end());
    }
    auto result = model::GenerateText(*policy_, prompts, batch[0]->options);
    if (!result.ok()) {
      for (auto& job : batch) job->done.set_value(result.status());
      continue;
    }
    std::vector<std::vector<model::Completion>> split(batch.size());
    for (model::Completion& c : *result) {
      size_t j = batch.size() - 1;
      while (static_cast<size_t>(c.prompt_index) < first_prompt[j]) --j;
      c.prompt_index -= static_cast<int64_t>(first_prompt[j]);
      split[j].push_back(std::move(c));
    }
    for (size_t j = 0; j < batch.size(); ++j) batch[j]->done.set_value(std::move(split[j]));
  }
}

Result<std::vector<model::Completion>> CompletionsService::Generate(
    std::vector<std::string> prompts, const Sampling& sampling) {
  auto job = std::make_shared<Job>();
  job->prompts = std::move(prompts);
  job->options = sampling.options;
  job->mergeable = !sampling.seeded;
  auto future = job->done.get_future();
  {
    base::MutexLock lock(&mu_);
    queue_.push_back(job);
  }
  cv_.Signal();
  if (future.wait_for(ctx_.limits.request_timeout) != std::future_status::ready)
    return Status::Unavailable("generation did not finish within the request timeout");
  return future.get();
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
  if (auto v = r.Strings("stop", Need::kOptional, 4, 256)) o.stop_strings = *v;
  if (auto v = r.Integer("seed", Need::kOptional, 0, std::numeric_limits<int64_t>::max())) {
    o.seed = static_cast<uint64_t>(*v);
    s.seeded = true;
  } else {
    o.seed = RandomSeed();
  }
  if (auto v = r.Bool("stream", Need::kOptional); v && *v)
    r.Fail(BadField("stream", "unsupported", "streamed completions are not supported"));
  r.String("user", Need::kOptional, 256);
  o.stop_token_ids = model::DefaultStopTokens(*policy_);
  return s;
}

Reply CompletionsService::Completions(std::string_view body) {
  auto parsed = ParseJsonObject(body);
  if (!parsed.ok()) return ErrorReply(parsed.error);
  FieldReader r(*parsed.value, "",
                {"model", "prompt", "max_tokens", "temperature", "top_p", "top_k", "n", "stop",
                 "seed", "logprobs", "echo", "stream", "user"});
  if (auto e = CheckModel(r)) return ErrorReply(*e);
  auto prompts = r.Strings("prompt", Need::kRequired, static_cast<size_t>(config_.max_prompts),
                           ctx_.limits.max_text_bytes);
  Sampling s = ReadSampling(r, {"max_tokens"});
  // The chosen tokens' log-probabilities are returned; alternatives are not computed.
  auto logprobs = r.Integer("logprobs", Need::kOptional, 0, 5);
  if (auto echo = r.Bool("echo", Need::kOptional); echo && *echo)
    r.Fail(BadField("echo", "unsupported", "echo is not supported"));
  if (!r.ok()) return ErrorReply(r.error());

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
  int64_t prompt_tokens = 0;
  for (const auto& p : *prompts) prompt_tokens += CountTokens(p);
  return Envelope("cmpl-", "text_completion", std::move(choices), prompt_tokens, completion_tokens);
}

Reply CompletionsService::ChatCompletions(std::string_view body) {
  auto parsed = ParseJsonObject(body);
  if (!parsed.ok()) return ErrorReply(parsed.error);
  FieldReader r(
      *parsed.value, "",
      {"model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k",
       "n", "stop", "seed", "logprobs", "top_logprobs", "stream", "user", "chat_template_kwargs"});
  if (auto e = CheckModel(r)) return ErrorReply(*e);
  const json* messages = r.Array("messages", Need::kRequired, 256);
  Sampling s = ReadSampling(r, {"max_tokens", "max_completion_tokens"});
  auto logprobs = r.Bool("logprobs", Need::kOptional);
  r.Integer("top_logprobs", Need::kOptional, 0, 0);  // alternatives are not computed
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

  const std::string prompt = model::ApplyQwen3ChatTemplate(msgs, chat);
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
  auto policy = model::LoadPolicy(config.policy);
  if (!policy.ok()) return policy.status();
  std::fprintf(stderr, "serve: policy %s\n", model::PolicyDescription(**policy).c_str());
  return std::make_shared<CompletionsService>(std::move(*policy), config, ctx);
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
