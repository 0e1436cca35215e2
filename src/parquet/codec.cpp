#include "parquet/codec.h"

#include <fmt/format.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <climits>

#include "parquet/metadata.h"

namespace tritonrl::parquet {

namespace {

// The most bytes a codec can produce from n compressed bytes, so that a page header cannot make
// us allocate more than its compressed bytes could ever justify. Snappy: a 3-byte copy makes at
// most 64 bytes. Deflate: at most 258 bytes per 2 bits (about 1032:1). Zstd: an RLE block of
// 128 KiB costs 4 bytes.
uint64_t MaxExpansion(Codec c, uint64_t n) {
  switch (c) {
    case Codec::kSnappy:
      return 32 * n + 64;
    case Codec::kGzip:
      return 1032 * n + 1024;
    case Codec::kZstd:
      return 32768 * n + (1u << 17);
    default:
      return n;
  }
}

Status Inflate(std::string_view in, std::string* out) {
  z_stream zs{};
  // 15 + 32: a zlib or gzip header, detected automatically (writers use gzip framing).
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::Internal("zlib: inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data());
  zs.avail_out = static_cast<uInt>(out->size());
  const int rc = inflate(&zs, Z_FINISH);
  const uint64_t produced = zs.total_out;
  const char* msg = zs.msg;
  inflateEnd(&zs);
  if (rc == Z_STREAM_END && produced == out->size()) return Status::Ok();
  if (rc == Z_BUF_ERROR && zs.avail_out == 0)
    return Status::Corruption("GZIP data is longer than the declared page size");
  if (rc == Z_STREAM_END)
    return Status::Corruption(
        fmt::format("GZIP data gave {} bytes, the page declares {}", produced, out->size()));
  return Status::Corruption(fmt::format("GZIP data is corrupt ({})", msg ? msg : "truncated"));
}

}  // namespace

Result<std::string_view> Decompress(int32_t codec, std::string_view in, uint64_t uncompressed_size,
                                    uint64_t max_bytes, std::string* out) {
  const auto c = static_cast<Codec>(codec);
  if (c != Codec::kUncompressed && c != Codec::kSnappy && c != Codec::kGzip && c != Codec::kZstd)
    return Status::Unavailable(
        fmt::format("unsupported codec {} (this reader has UNCOMPRESSED, SNAPPY, GZIP and ZSTD)",
                    CodecName(codec)));
  if (uncompressed_size > max_bytes)
    return Status::Corruption(
        fmt::format("page declares {} bytes, above the limit of {}", uncompressed_size, max_bytes));
  if (c == Codec::kUncompressed) {
    if (uncompressed_size != in.size())
      return Status::Corruption(fmt::format("uncompressed page of {} bytes declares {} bytes",
                                            in.size(), uncompressed_size));
    return in;
  }
  if (uncompressed_size > MaxExpansion(c, in.size()))
    return Status::Corruption(fmt::format("page declares {} bytes, more than {} can make of {}",
                                          uncompressed_size, CodecName(codec), in.size()));
  if (c == Codec::kSnappy) {
    size_t declared = 0;
    if (snappy_uncompressed_length(in.data(), in.size(), &declared) != SNAPPY_OK)
      return Status::Corruption("SNAPPY data has no valid length preamble");
    if (declared != uncompressed_size)
      return Status::Corruption(fmt::format("SNAPPY data holds {} bytes, the page declares {}",
                                            declared, uncompressed_size));
  }
  out->assign(uncompressed_size, '\0');
  switch (c) {
    case Codec::kSnappy: {
      size_t len = out->size();
      if (snappy_uncompress(in.data(), in.size(), out->data(), &len) != SNAPPY_OK ||
          len != uncompressed_size)
        return Status::Corruption("SNAPPY data is corrupt");
      break;
    }
    case Codec::kGzip: {
      if (in.size() > UINT_MAX || uncompressed_size > UINT_MAX)
        return Status::Corruption("GZIP page larger than 4 GiB");
      TRITONRL_RETURN_IF_ERROR(Inflate(in, out));
      break;
    }
    case Codec::kZstd: {
      const size_t n = ZSTD_decompress(out->data(), out->size(), in.data(), in.size());
      if (ZSTD_isError(n))
        return Status::Corruption(fmt::format("ZSTD data is corrupt ({})", ZSTD_getErrorName(n)));
      if (n != uncompressed_size)
        return Status::Corruption(
            fmt::format("ZSTD data gave {} bytes, the page declares {}", n, uncompressed_size));
      break;
    }
    default:
      break;
  }
  return std::string_view(*out);
}

}  // namespace tritonrl::parquet
