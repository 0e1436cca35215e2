// Page decompression limits. The Snappy bytes follow Snappy's format_description.txt: a varint
// of the uncompressed length, then a literal tag ((length - 1) << 2) and its bytes.
#include <gtest/gtest.h>

#include <string>

#include "parquet/codec.h"
#include "parquet/metadata.h"

namespace tritonrl::parquet {
namespace {

const std::string kSnappyHello = std::string("\x05\x10hello", 7);
constexpr int32_t kSnappy = static_cast<int32_t>(Codec::kSnappy);
constexpr uint64_t kLimit = 1 << 20;

TEST(Decompress, SnappyByTheFormatDescription) {
  std::string buf;
  auto out = Decompress(kSnappy, kSnappyHello, 5, kLimit, &buf);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "hello");
  // The page header must agree with the stream's own length.
  auto lie = Decompress(kSnappy, kSnappyHello, 6, kLimit, &buf);
  ASSERT_FALSE(lie.ok());
  EXPECT_NE(lie.status().message().find("SNAPPY data holds 5 bytes"), std::string::npos);
}

TEST(Decompress, DeclaredSizesAreBoundedBeforeAllocating) {
  std::string buf;
  // 10 bytes of gzip cannot make 1 GiB; the limit is checked first anyway.
  auto big = Decompress(static_cast<int32_t>(Codec::kGzip), std::string(10, 'x'), 1ull << 30,
                        1ull << 40, &buf);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("more than GZIP can make of 10"), std::string::npos)
      << big.status().message();
  EXPECT_EQ(buf.capacity() < 1024, true);
  auto over = Decompress(kSnappy, kSnappyHello, 5, 4, &buf);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("above the limit"), std::string::npos);
  auto plain = Decompress(0, "abc", 4, kLimit, &buf);
  EXPECT_FALSE(plain.ok());
}

TEST(Decompress, UnsupportedCodecsAreNamed) {
  std::string buf;
  auto lz4 = Decompress(static_cast<int32_t>(Codec::kLz4), "x", 1, kLimit, &buf);
  ASSERT_FALSE(lz4.ok());
  EXPECT_EQ(lz4.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(lz4.status().message().find("LZ4"), std::string::npos);
  auto brotli = Decompress(static_cast<int32_t>(Codec::kBrotli), "x", 1, kLimit, &buf);
  EXPECT_NE(brotli.status().message().find("BROTLI"), std::string::npos);
}

TEST(Decompress, CorruptStreamsAreErrors) {
  std::string buf;
  for (int32_t codec : {1, 2, 6}) {
    auto out = Decompress(codec, std::string("\x05garbage!", 9), 5, kLimit, &buf);
    EXPECT_FALSE(out.ok()) << CodecName(codec);
  }
}

}  // namespace
}  // namespace tritonrl::parquet
