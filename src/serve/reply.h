// What every endpoint hands back: an HTTP status, a content type and a body, and the one JSON shape
// of an error ({"error": {"code", "field", "message"}}). Plain values: the HTTP layer
// (http_server.cpp) copies them onto the wire, the tests read them without a socket.
// Pure functions; any thread.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace tritonrl::serve {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Set for a streamed reply (sent chunked instead of `body`): called on the connection's thread
  // until it returns nullopt; an empty string sends nothing and calls again (it may block a while
  // waiting for progress, not forever).
  std::function<std::optional<std::string>()> next_chunk;
  // Set with next_chunk: called once when the streamed reply ends, with false when the client
  // left before its end (a write failed or the connection closed), so the work behind it stops.
  std::function<void(bool completed)> on_close;
};

// A request the server refuses. `field` names the offending part of the request body as a path
// ("samples[3].code"); empty when the problem is not one field (a malformed body, a bad token).
struct ApiError {
  int status = 400;
  std::string code;  // stable, machine-readable: "unknown_field", "wrong_type", ...
  std::string field;
  std::string message;  // for people; never echoes more than a short prefix of client text
};

ApiError BadField(std::string field, std::string code, std::string message);

Reply JsonReply(int status, const nlohmann::json& body);
Reply ErrorReply(const ApiError& error);

}  // namespace tritonrl::serve
