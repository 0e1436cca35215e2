// The parts of OpenAI's (and vLLM's) completion API that need no model, kept here so they are
// tested without libtorch: server-sent events, how much of a growing output may be streamed, and
// the request fields this server knows but cannot honour (docs/serve.md has the table).
// Pure functions; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/reply.h"

namespace tritonrl::serve {

// The content type of a streamed completion. Exactly this, without a charset: httplib compresses
// other text/* replies for clients that accept gzip, which would hold every event back.
inline constexpr const char* kEventStreamType = "text/event-stream";

// One server-sent event carrying `payload`: "data: {json}\n\n".
std::string SseData(const nlohmann::json& payload);
// The event that ends every stream.
inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";

// How many leading bytes of `text`, a row's output so far, may be streamed now. A finished row
// streams all of it. A running one holds back a cut-off UTF-8 character (the rest of its bytes
// comes with the next token) and the longest suffix that begins one of `stops` (if the stop
// string completes, the final text ends before it). So the streamed pieces, each made valid
// UTF-8 alone, concatenate to the final text.
size_t StreamableBytes(std::string_view text, bool finished, const std::vector<std::string>& stops);

enum class CompletionApi { kCompletions, kChat };

// What every chunk of one streamed reply shares.
struct StreamFormat {
  CompletionApi api = CompletionApi::kCompletions;
  std::string id;  // "cmpl-..." or "chatcmpl-...", the same in every chunk
  int64_t created = 0;
  std::string model;
  int64_t choices = 1;         // prompts x n
  bool include_usage = false;  // stream_options.include_usage
  int64_t prompt_tokens = 0;
};

// A piece of one choice's text; the choice's last piece carries its finish reason.
struct StreamDelta {
  int64_t index = 0;
  std::string text;           // valid UTF-8, may be empty
  std::string finish_reason;  // empty until the choice ends
};

// OpenAI's chunks as events. The start is, for chat, one chunk per choice with the delta
// {"role": "assistant", "content": ""} (nothing for completions); each delta is one chunk
// (object "text_completion" with "text", or "chat.completion.chunk" with "delta": {"content"});
// the end is an error event if generation failed, else the usage chunk (empty choices) when
// include_usage, then "data: [DONE]". With include_usage every other chunk has "usage": null.
std::string FormatStreamStart(const StreamFormat& format);
std::string FormatStreamDelta(const StreamFormat& format, const StreamDelta& delta);
std::string FormatStreamEnd(const StreamFormat& format, const std::optional<ApiError>& failure,
                            int64_t completion_tokens);

// Request fields of OpenAI's or vLLM's API that this server does not honour. Each has the
// value(s) that mean "off" (a client library sending its default is served as usual); any other
// value is refused with 400 "unsupported" naming the field, never ignored.
std::span<const std::string_view> UnsupportedFieldNames(CompletionApi api);
std::optional<ApiError> CheckUnsupportedFields(const nlohmann::json& body, CompletionApi api);

}  // namespace tritonrl::serve
