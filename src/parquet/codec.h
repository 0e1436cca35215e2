// Page decompression: UNCOMPRESSED, SNAPPY (raw, libsnappy), GZIP (zlib) and ZSTD (libzstd).
// The declared size is checked before any allocation: never above `max_bytes`, and never above
// what the codec can produce from the compressed bytes given. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace tritonrl::parquet {

// Decompresses `in` (a page body compressed with the Parquet codec `codec`) into `*out`, which
// must come to exactly `uncompressed_size` bytes. Returns a view of the result: `*out` for a
// compressed page, `in` itself for an uncompressed one. Errors say why (no file context).
Result<std::string_view> Decompress(int32_t codec, std::string_view in, uint64_t uncompressed_size,
                                    uint64_t max_bytes, std::string* out);

}  // namespace tritonrl::parquet
