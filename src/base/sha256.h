// SHA-256 of a byte string (FIPS 180-4), as 64 lowercase hex digits: the one
// content hash of the project (task files, the store's texts and cache keys, run ids).
// Pure function; any thread.
#pragma once

#include <string>
#include <string_view>

namespace tritonrl {

std::string Sha256Hex(std::string_view data);

}  // namespace tritonrl
