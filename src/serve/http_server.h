// The HTTP layer of `tritonrl serve` on cpp-httplib: binding (loopback unless a token is set),
// the bearer-token check, the body-size limit (checked from Content-Length before the body is
// read; chunked request bodies are refused), POST bodies read as JSON whatever their
// Content-Type, socket timeouts, JSON errors for everything httplib answers itself (404, 405
// with Allow for a known path, 413), a catch-all that turns any exception in a handler into a
// 500 so no request can stop the server, per-endpoint request metrics, and streamed replies
// (whose client hanging up is reported to the handler's Reply::on_close).
//
// Threads: Listen() runs the accept loop on the calling thread and answers requests on a pool of
// `threads` workers; Stop() may be called from any thread. Nothing survives the process.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "serve/metrics.h"
#include "serve/reply.h"

namespace tritonrl::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;    // 0: any free port (Bind returns it)
  std::string token;  // required for a non-loopback host; then needed by every route but health
  int threads = 32;   // requests answered at once; more wait in the accept queue
  size_t max_body_bytes = size_t{8} << 20;
  std::chrono::seconds socket_timeout{30};  // reading a request, writing a reply
};

struct HttpRequest {
  std::string_view body;
  std::vector<std::string> path_params;      // the route pattern's capture groups
  std::map<std::string, std::string> query;  // first value of each query parameter
};

struct Route {
  std::string method;         // "GET" or "POST"
  std::string pattern;        // a regular expression matched against the whole path
  std::string endpoint;       // the metrics label
  bool public_route = false;  // answered without the token (health checks)
  std::function<Reply(const HttpRequest&)> handler;
};

// The refusal of a request from its body headers alone, before a byte of the body is kept (it is
// still read to its end and dropped, so the client gets the reply rather than a reset): a
// Content-Length over `max_body_bytes` (413 too_large) or not a number (400 bad_request), a
// multipart/form-data body (415 unsupported_media_type). Any other Content-Type is accepted: the
// body is parsed as JSON whatever it says (curl -d sends application/x-www-form-urlencoded).
std::optional<ApiError> CheckBodyHeaders(std::string_view content_length,
                                         std::string_view content_type, size_t max_body_bytes);
// The Allow header of a path served by routes of these methods: sorted, each once ("GET, POST").
std::string AllowHeader(std::vector<std::string> methods);

// A host is loopback if it is "localhost", "::1" or in 127.0.0.0/8.
bool IsLoopbackHost(const std::string& host);
// Refuses a non-loopback host without a token, and a token shorter than 16 bytes.
Status CheckBindPolicy(const HttpOptions& options);

class HttpServer {
 public:
  HttpServer(HttpOptions options, std::vector<Route> routes, ServeMetrics* metrics);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the socket (after CheckBindPolicy); returns the port.
  Result<int> Bind();
  // Serves until Stop(). Fails if Bind() did not succeed.
  Status Listen();
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Makes SIGTERM and SIGINT set a flag instead of ending the process (the default action again in
// any child after exec).
Status CatchTerminationSignals();
int WaitForTerminationSignal(const std::atomic<bool>& stop);

}  // namespace tritonrl::serve
