#include "serve/openai_compat.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "model/tokenizer.h"

namespace tritonrl::serve {

namespace {

using nlohmann::json;

// A field this server knows but does not honour, and its values that mean "off".
struct Unsupported {
  std::string_view name;
  const char* neutral;  // a JSON array of the accepted values (null is always accepted)
  const char* why;
  bool completions;  // the field exists in /v1/completions
  bool chat;         // ... in /v1/chat/completions
};

// Decided per field (docs/serve.md, "Request fields"): logit biases, min_p and a minimum length
// are not in the sampler; tools and structured output have no parser here; best_of and beam
// search are not how this policy is sampled.
constexpr Unsupported kUnsupported[] = {
    {"logit_bias", "[{}]", "logit biases are not implemented by the sampler", true, true},
    {"min_p", "[0]", "min-p sampling is not implemented (top_p and top_k are)", true, true},
    {"min_tokens", "[0]", "a minimum length is not implemented", true, true},
    {"best_of", "[]", "best-of ranking is not implemented (n samples are returned as they are)",
     true, false},
    {"use_beam_search", "[false]", "beam search is not implemented", true, true},
    {"length_penalty", "[1]", "beam search is not implemented", true, true},
    {"echo", "[false]", "the prompt is not echoed", true, false},
    {"suffix", "[\"\"]", "insertion (suffix) is not implemented", true, false},
    {"prompt_logprobs", "[0]", "prompt log-probabilities are not computed", true, true},
    {"top_logprobs", "[0]", "alternative tokens' log-probabilities are not computed", false, true},
    {"ignore_eos", "[false]", "generation always stops at the end-of-sequence token", true, true},
    {"include_stop_str_in_output", "[false]", "the stop string is always cut off", true, true},
    {"response_format", "[{\"type\": \"text\"}]", "structured output is not implemented", true,
     true},
    {"guided_json", "[]", "structured output is not implemented", true, true},
    {"guided_regex", "[]", "structured output is not implemented", true, true},
    {"guided_choice", "[]", "structured output is not implemented", true, true},
    {"guided_grammar", "[]", "structured output is not implemented", true, true},
    {"structured_outputs", "[]", "structured output is not implemented", true, true},
    {"tools", "[[]]", "tool calls are not implemented", false, true},
    {"tool_choice", "[\"none\"]", "tool calls are not implemented", false, true},
    {"functions", "[[]]", "function calls are not implemented", false, true},
    {"function_call", "[\"none\"]", "function calls are not implemented", false, true},
    {"parallel_tool_calls", "[true, false]", "tool calls are not implemented", false, true},
    {"reasoning_effort", "[]", "the policy has no reasoning-effort control", false, true},
};

bool InApi(const Unsupported& u, CompletionApi api) {
  return api == CompletionApi::kCompletions ? u.completions : u.chat;
}

template <CompletionApi kApi>
std::span<const std::string_view> NamesOf() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const Unsupported& u : kUnsupported) {
      if (InApi(u, kApi)) v.push_back(u.name);
    }
    return v;
  }();
  return names;
}

// "0", "false", "{}", "\"none\"", "0 or null": the accepted values for the message.
std::string Accepted(const json& neutral) {
  std::string out;
  for (const json& v : neutral) out += (out.empty() ? "" : ", ") + v.dump();
  return out.empty() ? "null or absent" : out + " (or null)";
}

}  // namespace

std::string SseData(const json& payload) {
  return "data: " + payload.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

namespace {

json ChunkOf(const StreamFormat& f, json choices) {
  json chunk = {
      {"id", f.id},
      {"object", f.api == CompletionApi::kChat ? "chat.completion.chunk" : "text_completion"},
      {"created", f.created},
      {"model", f.model},
      {"choices", std::move(choices)}};
  if (f.include_usage) chunk["usage"] = nullptr;
  return chunk;
}

json FinishOf(const std::string& reason) {
  return reason.empty() ? json(nullptr) : json(reason);
}

}  // namespace

std::string FormatStreamStart(const StreamFormat& f) {
  if (f.api != CompletionApi::kChat) return "";
  std::string out;
  for (int64_t i = 0; i < f.choices; ++i) {
    out += SseData(ChunkOf(f, json::array({{{"index", i},
                                            {"delta", {{"role", "assistant"}, {"content", ""}}},
                                            {"logprobs", nullptr},
                                            {"finish_reason", nullptr}}})));
  }
  return out;
}

std::string FormatStreamDelta(const StreamFormat& f, const StreamDelta& d) {
  json choice = {{"index", d.index}};
  if (f.api == CompletionApi::kChat) {
    choice["delta"] = d.text.empty() ? json::object() : json{{"content", d.text}};
  } else {
    choice["text"] = d.text;
  }
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = FinishOf(d.finish_reason);
  return SseData(ChunkOf(f, json::array({std::move(choice)})));
}

std::string FormatStreamEnd(const StreamFormat& f, const std::optional<ApiError>& failure,
                            int64_t completion_tokens) {
  std::string out;
  if (failure) {
    json e = {{"code", failure->code}, {"message", failure->message}, {"field", nullptr}};
    out += SseData({{"error", e}});
  } else if (f.include_usage) {
    json chunk = ChunkOf(f, json::array());
    chunk["usage"] = {{"prompt_tokens", f.prompt_tokens},
                      {"completion_tokens", completion_tokens},
                      {"total_tokens", f.prompt_tokens + completion_tokens}};
    out += SseData(chunk);
  }
  out += kSseDone;
  return out;
}

size_t StreamableBytes(std::string_view text, bool finished,
                       const std::vector<std::string>& stops) {
  if (finished) return text.size();
  size_t hold = 0;
  for (const std::string& stop : stops) {
    // Suffixes of `text` shorter than the stop string that the stop string begins with.
    for (size_t k = std::min(text.size(), stop.empty() ? 0 : stop.size() - 1); k > hold; --k) {
      if (text.substr(text.size() - k) == std::string_view(stop).substr(0, k)) {
        hold = k;
        break;
      }
    }
  }
  return model::CompleteUtf8Prefix(text.substr(0, text.size() - hold));
}

std::span<const std::string_view> UnsupportedFieldNames(CompletionApi api) {
  return api == CompletionApi::kCompletions ? NamesOf<CompletionApi::kCompletions>()
                                            : NamesOf<CompletionApi::kChat>();
}

std::optional<ApiError> CheckUnsupportedFields(const json& body, CompletionApi api) {
  if (!body.is_object()) return std::nullopt;
  for (const Unsupported& u : kUnsupported) {
    if (!InApi(u, api)) continue;
    auto it = body.find(u.name);
    if (it == body.end() || it->is_null()) continue;
    json neutral = json::parse(u.neutral);
    // best_of equal to n asks for nothing more than n samples.
    if (u.name == "best_of") neutral.push_back(body.value("n", json(1)));
    bool ok = false;
    for (const json& v : neutral) {
      // 0 and 0.0 alike: json compares numbers by value.
      ok = ok || *it == v;
    }
    if (!ok)
      return BadField(std::string(u.name), "unsupported",
                      fmt::format("{} is not supported by this server: {}; accepted: {}", u.name,
                                  u.why, Accepted(neutral)));
  }
  return std::nullopt;
}

}  // namespace tritonrl::serve
