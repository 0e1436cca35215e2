#include "serve/reply.h"

#include <utility>

namespace tritonrl::serve {

ApiError BadField(std::string field, std::string code, std::string message) {
  return ApiError{400, std::move(code), std::move(field), std::move(message)};
}

Reply JsonReply(int status, const nlohmann::json& body) {
  // Invalid UTF-8 from a client (a task id, a sample id) is replaced rather than thrown on: a
  // reply must always be writable.
  return Reply{status, "application/json",
               body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"};
}

Reply ErrorReply(const ApiError& error) {
  nlohmann::json e = {{"code", error.code}, {"message", error.message}};
  e["field"] = error.field.empty() ? nlohmann::json(nullptr) : nlohmann::json(error.field);
  return JsonReply(error.status, {{"error", e}});
}

}  // namespace tritonrl::serve
