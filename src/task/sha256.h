// SHA-256 of a byte string (FIPS 180-4), as 64 lowercase hex digits: the
// content hash that identifies a task file's exact text.
#pragma once

#include <string>
#include <string_view>

namespace tritonrl::task {

std::string Sha256Hex(std::string_view data);

}  // namespace tritonrl::task
