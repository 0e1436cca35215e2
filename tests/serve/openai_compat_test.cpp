#include "serve/openai_compat.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "serve/http_server.h"

namespace tritonrl::serve {
namespace {

using nlohmann::json;

// The JSON of each "data: " event of a stream, and whether it ended with [DONE].
std::vector<json> Events(const std::string& stream, bool* done) {
  std::vector<json> out;
  *done = false;
  size_t at = 0;
  while (at < stream.size()) {
    size_t end = stream.find("\n\n", at);
    EXPECT_NE(end, std::string::npos) << "an event without its blank line";
    if (end == std::string::npos) break;
    std::string line = stream.substr(at, end - at);
    EXPECT_EQ(line.rfind("data: ", 0), 0u) << line;
    std::string data = line.substr(6);
    EXPECT_FALSE(*done) << "an event after [DONE]";
    if (data == "[DONE]") {
      *done = true;
    } else {
      out.push_back(json::parse(data));
    }
    at = end + 2;
  }
  return out;
}

TEST(Sse, OneDataLinePerEventAndTheDoneMarker) {
  EXPECT_EQ(SseData({{"a", 1}}), "data: {\"a\":1}\n\n");
  // A newline inside the text is escaped by JSON: an event is always one line.
  EXPECT_EQ(SseData({{"t", "x\ny"}}), "data: {\"t\":\"x\\ny\"}\n\n");
  EXPECT_EQ(std::string(kSseDone), "data: [DONE]\n\n");
  EXPECT_EQ(std::string(kEventStreamType), "text/event-stream");
}

TEST(StreamFormat, CompletionChunksAsOpenAiSendsThem) {
  StreamFormat f{CompletionApi::kCompletions, "cmpl-1", 1700000000, "m", 2, false, 5};
  EXPECT_EQ(FormatStreamStart(f), "");
  bool done = false;
  auto ev = Events(FormatStreamDelta(f, {1, "def", ""}) + FormatStreamDelta(f, {1, "", "length"}) +
                       FormatStreamEnd(f, std::nullopt, 7),
                   &done);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_TRUE(done);
  EXPECT_EQ(ev[0]["object"], "text_completion");
  EXPECT_EQ(ev[0]["id"], "cmpl-1");
  EXPECT_EQ(ev[0]["created"], 1700000000);
  EXPECT_EQ(ev[0]["model"], "m");
  EXPECT_EQ(
      ev[0]["choices"][0],
      json({{"index", 1}, {"text", "def"}, {"logprobs", nullptr}, {"finish_reason", nullptr}}));
  EXPECT_EQ(ev[1]["choices"][0]["finish_reason"], "length");
  // Without include_usage there is no usage key at all (OpenAI's behaviour).
  EXPECT_FALSE(ev[0].contains("usage"));
}

TEST(StreamFormat, ChatStartsWithTheRoleThenContentThenFinish) {
  StreamFormat f{CompletionApi::kChat, "chatcmpl-1", 1, "m", 2, true, 5};
  bool done = false;
  auto ev = Events(FormatStreamStart(f) + FormatStreamDelta(f, {0, "hi", ""}) +
                       FormatStreamDelta(f, {0, "", "stop"}) + FormatStreamEnd(f, std::nullopt, 3),
                   &done);
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_TRUE(done);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(ev[i]["object"], "chat.completion.chunk");
    EXPECT_EQ(ev[i]["choices"][0]["index"], i);
    EXPECT_EQ(ev[i]["choices"][0]["delta"], json({{"role", "assistant"}, {"content", ""}}));
    EXPECT_TRUE(ev[i]["usage"].is_null());
  }
  EXPECT_EQ(ev[2]["choices"][0]["delta"], json({{"content", "hi"}}));
  EXPECT_TRUE(ev[2]["choices"][0]["finish_reason"].is_null());
  EXPECT_EQ(ev[3]["choices"][0]["delta"], json::object());
  EXPECT_EQ(ev[3]["choices"][0]["finish_reason"], "stop");
  // The usage chunk: no choices, the counts.
  EXPECT_EQ(ev[4]["choices"], json::array());
  EXPECT_EQ(ev[4]["usage"],
            json({{"prompt_tokens", 5}, {"completion_tokens", 3}, {"total_tokens", 8}}));
}

TEST(StreamFormat, AFailureIsAnErrorEventThenDone) {
  StreamFormat f{CompletionApi::kChat, "c", 1, "m", 1, true, 0};
  bool done = false;
  auto ev = Events(FormatStreamEnd(f, ApiError{500, "generation_failed", "", "boom"}, 0), &done);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(done);
  EXPECT_EQ(ev[0]["error"]["code"], "generation_failed");
  EXPECT_EQ(ev[0]["error"]["message"], "boom");
}

TEST(StreamableBytes, HoldsBackWhatMayStillChange) {
  const std::vector<std::string> none;
  EXPECT_EQ(StreamableBytes("abc", false, none), 3u);
  // A cut-off character (the first 2 bytes of the 3-byte "€") waits for its last byte.
  EXPECT_EQ(StreamableBytes("ab\xE2\x82", false, none), 2u);
  EXPECT_EQ(StreamableBytes("ab\xE2\x82\xAC", false, none), 5u);
  // A stray continuation byte is invalid whatever follows: nothing to wait for.
  EXPECT_EQ(StreamableBytes("ab\x82", false, none), 3u);
  const std::vector<std::string> stops = {"```", "END"};
  // "``" and "EN" may grow into a stop string; "`x" cannot.
  EXPECT_EQ(StreamableBytes("code``", false, stops), 4u);
  EXPECT_EQ(StreamableBytes("code EN", false, stops), 5u);
  EXPECT_EQ(StreamableBytes("code E", false, stops), 5u);
  EXPECT_EQ(StreamableBytes("code NE", false, stops), 6u);  // "E" may begin "END"
  EXPECT_EQ(StreamableBytes("code `x", false, stops), 7u);
  // Finished: everything (the generator already cut a matched stop string off).
  EXPECT_EQ(StreamableBytes("code``", true, stops), 6u);
  EXPECT_EQ(StreamableBytes("ab\xE2\x82", true, none), 4u);
}

TEST(UnsupportedFields, NeutralValuesPassOthersAreNamed) {
  using enum CompletionApi;
  EXPECT_FALSE(CheckUnsupportedFields({{"min_p", 0},
                                       {"min_tokens", 0.0},
                                       {"logit_bias", json::object()},
                                       {"best_of", 2},
                                       {"n", 2},
                                       {"echo", false},
                                       {"suffix", nullptr}},
                                      kCompletions));
  auto e = CheckUnsupportedFields({{"min_p", 0.5}}, kCompletions);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, 400);
  EXPECT_EQ(e->code, "unsupported");
  EXPECT_EQ(e->field, "min_p");
  EXPECT_NE(e->message.find("min_p is not supported"), std::string::npos) << e->message;
  EXPECT_NE(e->message.find("accepted: 0"), std::string::npos) << e->message;
  // best_of is neutral only when it equals n (default 1).
  EXPECT_EQ(CheckUnsupportedFields({{"best_of", 3}}, kCompletions)->field, "best_of");
  EXPECT_EQ(
      CheckUnsupportedFields({{"tools", json::array({{{"type", "function"}}})}}, kChat)->field,
      "tools");
  EXPECT_FALSE(CheckUnsupportedFields({{"tools", json::array()}, {"tool_choice", "none"}}, kChat));
  EXPECT_EQ(CheckUnsupportedFields({{"top_logprobs", 2}}, kChat)->field, "top_logprobs");
}

TEST(UnsupportedFields, NamesDifferPerEndpoint) {
  auto has = [](CompletionApi api, std::string_view name) {
    for (std::string_view n : UnsupportedFieldNames(api)) {
      if (n == name) return true;
    }
    return false;
  };
  EXPECT_TRUE(has(CompletionApi::kCompletions, "echo"));
  EXPECT_FALSE(has(CompletionApi::kChat, "echo"));
  EXPECT_TRUE(has(CompletionApi::kChat, "tools"));
  EXPECT_FALSE(has(CompletionApi::kCompletions, "tools"));
  EXPECT_TRUE(has(CompletionApi::kChat, "logit_bias"));
  // Honoured fields are not in the table (the handlers read them).
  EXPECT_FALSE(has(CompletionApi::kChat, "presence_penalty"));
  EXPECT_FALSE(has(CompletionApi::kCompletions, "temperature"));
}

TEST(BodyHeaders, SizeFromContentLengthAnyTypeButMultipart) {
  const size_t limit = 8 << 20;
  EXPECT_FALSE(CheckBodyHeaders("", "", limit));
  EXPECT_FALSE(CheckBodyHeaders("100000", "application/x-www-form-urlencoded", limit));
  EXPECT_FALSE(CheckBodyHeaders("10", "text/plain", limit));
  auto big = CheckBodyHeaders("8388609", "application/json", limit);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_NE(big->message.find("8388609 bytes"), std::string::npos) << big->message;
  EXPECT_NE(big->message.find("8388608 bytes"), std::string::npos) << big->message;
  EXPECT_EQ(CheckBodyHeaders("99999999999999999999999", "", limit)->status, 413);
  EXPECT_EQ(CheckBodyHeaders("12x", "", limit)->status, 400);
  EXPECT_EQ(CheckBodyHeaders("10", "multipart/form-data; boundary=x", limit)->status, 415);
}

TEST(AllowHeader, SortedAndUnique) {
  EXPECT_EQ(AllowHeader({"POST", "GET", "POST"}), "GET, POST");
  EXPECT_EQ(AllowHeader({}), "");
}

}  // namespace
}  // namespace tritonrl::serve
