// Internal to the demo module: a Status with a prefix naming where it happened
// ("stage sft: ...", "generate: ..."), keeping its code.
#pragma once

#include <string>

#include "base/status.h"

namespace tritonrl::demo {

inline Status WithContext(const std::string& where, const Status& s) {
  std::string m = where + ": " + s.message();
  switch (s.code()) {
    case StatusCode::kOk:
      return s;
    case StatusCode::kInvalidArgument:
      return Status::InvalidArgument(std::move(m));
    case StatusCode::kNotFound:
      return Status::NotFound(std::move(m));
    case StatusCode::kIoError:
      return Status::IoError(std::move(m));
    case StatusCode::kParseError:
      return Status::ParseError(std::move(m));
    case StatusCode::kCorruption:
      return Status::Corruption(std::move(m));
    case StatusCode::kFailedPrecondition:
      return Status::FailedPrecondition(std::move(m));
    case StatusCode::kUnavailable:
      return Status::Unavailable(std::move(m));
    case StatusCode::kInternal:
      return Status::Internal(std::move(m));
  }
  return Status::Internal(std::move(m));
}

}  // namespace tritonrl::demo
