// The RLE / bit-packed hybrid decoder on the examples of parquet-format's Encodings.md: bit
// packing of 0..7 at width 3 is the bytes 10001000 11000110 11111010; a run header is
// (count << 1) for a repeated value (stored in ceil(width / 8) little-endian bytes) and
// (groups << 1 | 1) for groups of 8 bit-packed values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bytes.h"
#include "parquet/rle.h"

namespace tritonrl::parquet {
namespace {

std::vector<uint32_t> All(RleBitPackedDecoder d) {
  std::vector<uint32_t> out;
  uint32_t v = 0;
  while (d.Next(&v)) out.push_back(v);
  EXPECT_EQ(d.error(), "");
  return out;
}

TEST(RleBitPacked, SpecBitPackingExampleThenAnRleRun) {
  // One bit-packed group (header 0x03) of 0..7 at width 3, then 5 repeats of 4 (0x0A 0x04).
  const std::string b = Bytes({0x03, 0x88, 0xC6, 0xFA, 0x0A, 0x04});
  EXPECT_EQ(All(RleBitPackedDecoder(b, 3)),
            (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 4, 4, 4, 4, 4}));
}

TEST(RleBitPacked, DefinitionLevelsAtWidthOne) {
  // 0x55 = 01010101: least significant bit first gives 1,0,1,0,...; then 3 ones by RLE.
  EXPECT_EQ(All(RleBitPackedDecoder(Bytes({0x03, 0x55, 0x06, 0x01}), 1)),
            (std::vector<uint32_t>{1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1}));
}

TEST(RleBitPacked, WideAndZeroWidths) {
  // Width 9: the repeated value takes 2 bytes, little-endian (300 = 0x012C).
  EXPECT_EQ(All(RleBitPackedDecoder(Bytes({0x04, 0x2C, 0x01}), 9)),
            (std::vector<uint32_t>{300, 300}));
  // Width 0 (a dictionary of one entry): an RLE run has no value bytes.
  EXPECT_EQ(All(RleBitPackedDecoder(Bytes({0x08}), 0)), (std::vector<uint32_t>{0, 0, 0, 0}));
  // Width 32 bit-packed: 8 little-endian words.
  std::string b = Bytes({0x03});
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t v = 0xfffffff0u + i;
    for (int k = 0; k < 4; ++k) b.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  }
  auto v = All(RleBitPackedDecoder(b, 32));
  ASSERT_EQ(v.size(), 8u);
  EXPECT_EQ(v[0], 0xfffffff0u);
  EXPECT_EQ(v[7], 0xfffffff7u);
}

TEST(RleBitPacked, CorruptRunsAreErrorsNotReadsPastTheData) {
  // A value 9 does not fit in 3 bits.
  // The decoder views bytes it does not own: each input lives in a named string.
  const std::string wide_bytes = Bytes({0x02, 0x09});
  RleBitPackedDecoder wide(wide_bytes, 3);
  uint32_t v = 0;
  EXPECT_FALSE(wide.Next(&v));
  EXPECT_NE(wide.error().find("does not fit"), std::string::npos);
  // Two groups announced (header 0x05), one present: 8 values, then an error.
  const std::string cut_bytes = Bytes({0x05, 0x88, 0xC6, 0xFA});
  RleBitPackedDecoder cut(cut_bytes, 3);
  int read = 0;
  while (cut.Next(&v)) ++read;
  EXPECT_EQ(read, 8);
  EXPECT_NE(cut.error().find("truncated"), std::string::npos);
  // An RLE run value cut off.
  const std::string value_bytes = Bytes({0x02, 0x2C});
  RleBitPackedDecoder value(value_bytes, 9);
  EXPECT_FALSE(value.Next(&v));
  EXPECT_NE(value.error(), "");
  EXPECT_NE(RleBitPackedDecoder("", 33).error(), "");
}

TEST(RleBitPacked, HugeRunCountsStreamWithoutAllocating) {
  // A run of 2^40 repeats of 1 costs six header bytes and one value byte.
  const std::string b = Bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 0x01});
  RleBitPackedDecoder d(b, 1);
  uint32_t v = 0;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(d.Next(&v));
    ASSERT_EQ(v, 1u);
  }
}

}  // namespace
}  // namespace tritonrl::parquet
