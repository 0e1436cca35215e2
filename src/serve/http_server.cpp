#include "serve/http_server.h"

#include <arpa/inet.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <exception>
#include <limits>
#include <regex>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

namespace tritonrl::serve {

namespace {

// Which route a request reached, so the logger does not count it twice.
thread_local bool t_recorded = false;

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // The length is not secret (tokens are fixed-length in practice); the content is.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

void Apply(const Reply& reply, httplib::Response& res) {
  res.status = reply.status;
  res.set_content(reply.body, reply.content_type.c_str());
}

void ApplyError(int status, const char* code, std::string message, httplib::Response& res) {
  Apply(ErrorReply(ApiError{status, code, "", std::move(message)}), res);
}

}  // namespace

std::optional<ApiError> CheckBodyHeaders(std::string_view content_length,
                                         std::string_view content_type, size_t max_body_bytes) {
  if (!content_length.empty()) {
    uint64_t n = 0;
    const auto [end, ec] =
        std::from_chars(content_length.data(), content_length.data() + content_length.size(), n);
    if (ec == std::errc::result_out_of_range) {
      n = std::numeric_limits<uint64_t>::max();
    } else if (ec != std::errc() || end != content_length.data() + content_length.size()) {
      return ApiError{400, "bad_request", "", "Content-Length is not a number"};
    }
    if (n > max_body_bytes)
      return ApiError{413, "too_large", "",
                      fmt::format("the body is {} bytes, more than the limit of {} bytes "
                                  "(--max-body-mb)",
                                  n, max_body_bytes)};
  }
  const std::string_view multipart = "multipart/form-data";
  if (content_type.substr(0, multipart.size()) == multipart)
    return ApiError{415, "unsupported_media_type", "",
                    "the body must be JSON (any Content-Type but multipart/form-data is read as "
                    "JSON; with curl use -d or --data-binary, not -F)"};
  return std::nullopt;
}

std::string AllowHeader(std::vector<std::string> methods) {
  std::sort(methods.begin(), methods.end());
  methods.erase(std::unique(methods.begin(), methods.end()), methods.end());
  std::string out;
  for (const std::string& m : methods) out += (out.empty() ? "" : ", ") + m;
  return out;
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr a{};
  if (inet_pton(AF_INET, host.c_str(), &a) != 1) return false;
  return (ntohl(a.s_addr) >> 24) == 127;
}

Status CheckBindPolicy(const HttpOptions& options) {
  if (!options.token.empty() && options.token.size() < 16)
    return Status::InvalidArgument("--token must be at least 16 characters");
  if (!IsLoopbackHost(options.host) && options.token.empty())
    return Status::InvalidArgument(fmt::format(
        "--host {} is reachable from other machines: give --token (or --token-file) so that "
        "only clients holding it are served",
        options.host));
  if (options.port < 0 || options.port > 65535)
    return Status::InvalidArgument(fmt::format("--port {} is not a TCP port", options.port));
  return Status::Ok();
}

struct HttpServer::Impl {
  HttpOptions options;
  std::vector<Route> routes;
  std::vector<std::regex> patterns;
  ServeMetrics* metrics = nullptr;
  httplib::Server server;
  bool bound = false;
  int listen_fd = -1;  // the socket httplib binds (its socket-options hook sees it first)

  std::string EndpointOf(const std::string& path) const {
    for (size_t i = 0; i < routes.size(); ++i) {
      if (std::regex_match(path, patterns[i])) return routes[i].endpoint;
    }
    return "unknown";
  }

  // Every other method on each route's pattern answers 405 (after the real routes, which httplib
  // tries first).
  void RouteNotAllowed() {
    auto plain = [this](const httplib::Request& req, httplib::Response& res) {
      NotAllowed(req, res, nullptr);
    };
    auto with_body = [this](const httplib::Request& req, httplib::Response& res,
                            const httplib::ContentReader& reader) {
      NotAllowed(req, res, &reader);
    };
    std::vector<std::string> seen;
    for (const Route& r : routes) {
      if (std::find(seen.begin(), seen.end(), r.pattern) != seen.end()) continue;
      seen.push_back(r.pattern);
      server.Get(r.pattern, plain);  // reached only when no GET route matched first
      server.Post(r.pattern, with_body);
      server.Put(r.pattern, with_body);
      server.Patch(r.pattern, with_body);
      server.Delete(r.pattern, with_body);
      server.Options(r.pattern, plain);
    }
  }

  // The methods of the routes matching `path`; none for an unknown path.
  std::vector<std::string> MethodsOf(const std::string& path) const {
    std::vector<std::string> methods;
    for (size_t i = 0; i < routes.size(); ++i) {
      if (std::regex_match(path, patterns[i])) methods.push_back(routes[i].method);
    }
    return methods;
  }

  bool IsPublic(const std::string& path) const {
    for (size_t i = 0; i < routes.size(); ++i) {
      if (routes[i].public_route && std::regex_match(path, patterns[i])) return true;
    }
    return false;
  }

  // Runs before the body is read: refusing here costs no memory.
  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res) {
    t_recorded = false;
    if (!options.token.empty() && !IsPublic(req.path)) {
      const std::string auth = req.get_header_value("Authorization");
      const std::string_view prefix = "Bearer ";
      if (auth.size() <= prefix.size() || auth.compare(0, prefix.size(), prefix) != 0 ||
          !ConstantTimeEquals(std::string_view(auth).substr(prefix.size()), options.token)) {
        res.set_header("WWW-Authenticate", "Bearer");
        ApplyError(401, "unauthorized", "a valid \"Authorization: Bearer TOKEN\" header is needed",
                   res);
        res.set_header("Connection", "close");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    // httplib limits a body by its Content-Length only; a chunked body could grow without bound.
    if (req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos) {
      ApplyError(411, "length_required", "send the body with a Content-Length", res);
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  }

  // Reads a body through httplib's content reader, whatever its Content-Type: httplib would
  // otherwise parse an application/x-www-form-urlencoded body (curl -d's default) as a form,
  // capped at 8 KiB, while every body here is JSON. A refused body is read to its end all the
  // same (httplib skips an over-limit one unstored): closing a socket with unread bytes resets
  // the connection, and the client could lose the reply that says why.
  std::optional<ApiError> ReadBody(const httplib::Request& req,
                                   const httplib::ContentReader& reader, std::string& body) const {
    if (!req.has_header("Content-Length")) return std::nullopt;  // no body: the handler says so
    auto refusal = CheckBodyHeaders(req.get_header_value("Content-Length"),
                                    req.get_header_value("Content-Type"), options.max_body_bytes);
    bool read = false;
    if (req.is_multipart_form_data()) {
      read = reader([](const httplib::MultipartFormData&) { return true; },
                    [](const char*, size_t) { return true; });
    } else {
      read = reader([&body, keep = !refusal](const char* data, size_t n) {
        if (keep) body.append(data, n);
        return true;
      });
    }
    if (refusal) return refusal;
    if (!read) return ApiError{400, "bad_request", "", "the request body could not be read"};
    return std::nullopt;
  }

  void DispatchPost(const Route& route, const httplib::Request& req, httplib::Response& res,
                    const httplib::ContentReader& reader) {
    std::string body;
    if (auto refusal = ReadBody(req, reader, body)) {
      Apply(ErrorReply(*refusal), res);
      res.set_header("Connection", "close");
      return;
    }
    Dispatch(route, req, body, res);
  }

  // A known path asked with a method none of its routes takes: 405 with the Allow header (a body
  // is read and dropped first, as above).
  void NotAllowed(const httplib::Request& req, httplib::Response& res,
                  const httplib::ContentReader* reader) {
    std::string ignored;
    if (reader != nullptr) ReadBody(req, *reader, ignored);
    const std::string allow = AllowHeader(MethodsOf(req.path));
    ApplyError(405, "method_not_allowed",
               fmt::format("{} takes {}, not {}", req.path.substr(0, 128), allow,
                           req.method.substr(0, 16)),
               res);
    res.set_header("Allow", allow);
  }

  void Dispatch(const Route& route, const httplib::Request& req, std::string_view body,
                httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    HttpRequest r;
    r.body = body;
    for (size_t i = 1; i < req.matches.size(); ++i) r.path_params.push_back(req.matches[i].str());
    for (const auto& [k, v] : req.params) r.query.emplace(k, v);
    Reply reply;
    try {
      reply = route.handler(r);
    } catch (const std::bad_alloc&) {
      reply =
          ErrorReply({503, "out_of_memory", "", "the server ran out of memory on this request"});
    } catch (const std::exception& e) {
      reply = ErrorReply({500, "internal", "", fmt::format("internal error: {}", e.what())});
    }
    if (reply.next_chunk) {
      res.status = reply.status;
      auto next = reply.next_chunk;
      auto on_close = reply.on_close;
      res.set_chunked_content_provider(
          reply.content_type,
          [next](size_t, httplib::DataSink& sink) {
            std::optional<std::string> chunk = next();
            if (!chunk) {
              sink.done();
              return true;
            }
            // Nothing to send yet: a client that hung up is noticed here, not only at the next
            // write, so the work it asked for stops early.
            if (chunk->empty()) return sink.is_writable();
            return sink.write(chunk->data(), chunk->size());
          },
          [on_close](bool success) {
            if (on_close) on_close(success);
          });
    } else {
      Apply(reply, res);
    }
    if (metrics) {
      metrics->RecordRequest(
          route.endpoint, reply.status,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    t_recorded = true;
  }
};

HttpServer::HttpServer(HttpOptions options, std::vector<Route> routes, ServeMetrics* metrics)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.options = std::move(options);
  s.routes = std::move(routes);
  s.metrics = metrics;
  for (const Route& r : s.routes) s.patterns.emplace_back(r.pattern);

  const int threads = std::max(1, s.options.threads);
  s.server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.server.set_payload_max_length(s.options.max_body_bytes);
  s.server.set_read_timeout(s.options.socket_timeout);
  s.server.set_write_timeout(s.options.socket_timeout);
  s.server.set_keep_alive_timeout(5);
  // httplib's own options (SO_REUSEPORT), and the socket noted so Bind() can widen its backlog.
  s.server.set_socket_options([&s](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEPORT, &yes, sizeof(yes));
    s.listen_fd = sock;
  });
  s.server.set_pre_routing_handler(
      [&s](const httplib::Request& req, httplib::Response& res) { return s.PreRoute(req, res); });
  for (const Route& r : s.routes) {
    if (r.method == "GET") {
      s.server.Get(r.pattern, [&s, &r](const httplib::Request& req, httplib::Response& res) {
        s.Dispatch(r, req, req.body, res);
      });
    } else {
      s.server.Post(r.pattern, [&s, &r](const httplib::Request& req, httplib::Response& res,
                                        const httplib::ContentReader& reader) {
        s.DispatchPost(r, req, res, reader);
      });
    }
  }
  s.RouteNotAllowed();
  // Statuses httplib sets itself (no route, body too large, unreadable request) get a JSON body;
  // replies of our handlers already have one.
  s.server.set_error_handler(httplib::Server::HandlerWithResponse([&s](const httplib::Request& req,
                                                                       httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    switch (res.status) {
      case 404:
        ApplyError(404, "not_found",
                   fmt::format("no route {} {}", req.method.substr(0, 16), req.path.substr(0, 128)),
                   res);
        break;
      case 413:
        ApplyError(
            413, "too_large",
            fmt::format("the body is larger than the limit of {} bytes", s.options.max_body_bytes),
            res);
        break;
      default:
        ApplyError(res.status, "bad_request", "the request could not be read", res);
    }
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        ApplyError(500, "internal", "internal error", res);
      });
  s.server.set_logger([&s](const httplib::Request& req, const httplib::Response& res) {
    if (!t_recorded && s.metrics) s.metrics->RecordRequest(s.EndpointOf(req.path), res.status, 0);
    t_recorded = false;
  });
}

HttpServer::~HttpServer() = default;

Result<int> HttpServer::Bind() {
  if (auto st = CheckBindPolicy(impl_->options); !st.ok()) return st;
  int port = impl_->options.port;
  if (port == 0) {
    port = impl_->server.bind_to_any_port(impl_->options.host);
    if (port < 0) port = 0;
  } else if (!impl_->server.bind_to_port(impl_->options.host, port)) {
    port = 0;
  }
  if (port == 0)
    return Status::Unavailable(fmt::format("cannot listen on {}:{}: {}", impl_->options.host,
                                           impl_->options.port, std::strerror(errno)));
  // Debian's httplib 0.11 listens with a backlog of 5 (compiled in): a burst of clients (50 at
  // once in serve_http_test.py) overflows it on a loaded machine and some connections are reset.
  // listen() again on the bound socket only widens the queue.
  if (impl_->listen_fd >= 0) ::listen(impl_->listen_fd, SOMAXCONN);
  impl_->bound = true;
  return port;
}

Status HttpServer::Listen() {
  if (!impl_->bound) return Status::FailedPrecondition("Listen() before a successful Bind()");
  if (!impl_->server.listen_after_bind())
    return Status::IoError("the HTTP server stopped with an error");
  return Status::Ok();
}

void HttpServer::Stop() {
  impl_->server.stop();
}

namespace {
volatile sig_atomic_t g_termination_signal = 0;
void OnTerminationSignal(int sig) {
  g_termination_signal = sig;
}
}  // namespace

Status CatchTerminationSignals() {
  // A flag set from the handler (async-signal-safe) rather than a blocked mask: the mask would be
  // inherited by every worker process the engine forks, a handler is reset by exec.
  struct sigaction sa {};
  sa.sa_handler = OnTerminationSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT}) {
    if (sigaction(sig, &sa, nullptr) != 0)
      return Status::Internal(fmt::format("sigaction: {}", std::strerror(errno)));
  }
  return Status::Ok();
}

int WaitForTerminationSignal(const std::atomic<bool>& stop) {
  while (!stop.load() && g_termination_signal == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return g_termination_signal;
}

}  // namespace tritonrl::serve
