// The compact protocol decoder and the footer parser on bytes built by hand from the Thrift
// compact protocol spec (field header = delta << 4 | type, zigzag varints, list header =
// size << 4 | element type) and parquet.thrift's field ids.
#include <gtest/gtest.h>

#include <string>

#include "bytes.h"
#include "parquet/metadata.h"
#include "parquet/thrift.h"

namespace tritonrl::parquet {
namespace {

TEST(CompactReader, FieldHeadersZigzagAndLongFieldIds) {
  // field 1 i32 = 1 (zigzag 2); field 2 i32 = -1 (zigzag 1); field 3 i32 = 150 (zigzag 300 =
  // 0xAC 0x02); field 100 in long form (type byte 0x05, zigzag id 200 = 0xC8 0x01), i32 = 0;
  // field 101 (delta 1) bool true in the type nibble; STOP.
  const std::string b =
      Bytes({0x15, 0x02, 0x15, 0x01, 0x15, 0xAC, 0x02, 0x05, 0xC8, 0x01, 0x00, 0x11, 0x00});
  CompactReader r(b);
  int16_t last = 0, id = 0;
  WireType t;
  ASSERT_TRUE(r.NextField(&last, &id, &t));
  EXPECT_EQ(id, 1);
  EXPECT_EQ(t, WireType::kI32);
  EXPECT_EQ(r.ReadI32(), 1);
  ASSERT_TRUE(r.NextField(&last, &id, &t));
  EXPECT_EQ(id, 2);
  EXPECT_EQ(r.ReadI32(), -1);
  ASSERT_TRUE(r.NextField(&last, &id, &t));
  EXPECT_EQ(id, 3);
  EXPECT_EQ(r.ReadI32(), 150);
  ASSERT_TRUE(r.NextField(&last, &id, &t));
  EXPECT_EQ(id, 100);
  EXPECT_EQ(r.ReadI32(), 0);
  ASSERT_TRUE(r.NextField(&last, &id, &t));
  EXPECT_EQ(id, 101);
  EXPECT_TRUE(r.BoolField(t));
  EXPECT_FALSE(r.NextField(&last, &id, &t));
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.position(), b.size());
}

TEST(CompactReader, ListsBinariesAndLongLists) {
  // list of 3 i32 (header 0x35): 1, 2, 3; binary "abc"; a list of 20 bytes (header 0xF3 then
  // varint 20).
  std::string b = Bytes({0x35, 0x02, 0x04, 0x06, 0x03, 'a', 'b', 'c', 0xF3, 20});
  b += std::string(20, '\x07');
  CompactReader r(b);
  WireType e;
  uint32_t n = 0;
  ASSERT_TRUE(r.ReadListHeader(&e, &n));
  EXPECT_EQ(e, WireType::kI32);
  ASSERT_EQ(n, 3u);
  EXPECT_EQ(r.ReadI32(), 1);
  EXPECT_EQ(r.ReadI32(), 2);
  EXPECT_EQ(r.ReadI32(), 3);
  EXPECT_EQ(r.ReadBinary(), "abc");
  ASSERT_TRUE(r.ReadListHeader(&e, &n));
  EXPECT_EQ(e, WireType::kByte);
  EXPECT_EQ(n, 20u);
  EXPECT_TRUE(r.ok());
}

TEST(CompactReader, CountsLargerThanTheBytesLeftFail) {
  // The reader views bytes it does not own: each input lives in a named string.
  const std::string list_bytes = Bytes({0xF5, 0xE8, 0x07, 0x02});  // 1000 i32 in 1 byte
  CompactReader list(list_bytes);
  WireType e;
  uint32_t n = 0;
  EXPECT_FALSE(list.ReadListHeader(&e, &n));
  EXPECT_NE(list.error().find("list of 1000 elements"), std::string::npos) << list.error();

  const std::string bin_bytes = Bytes({0x80, 0x80, 0x80, 0x80, 0x08, 'x'});  // 2^31 bytes
  CompactReader bin(bin_bytes);
  EXPECT_EQ(bin.ReadBinary(), "");
  EXPECT_FALSE(bin.ok());

  const std::string ff(11, '\xff');
  CompactReader varint(ff);
  varint.ReadI64();
  EXPECT_NE(varint.error().find("varint"), std::string::npos) << varint.error();
}

TEST(CompactReader, SkipsEveryTypeAndStopsDeepNesting) {
  // An unknown struct holding: a double (field 1), a map<binary,i32> of one entry (field 2),
  // a list of 2 bools (field 3), a nested struct with an i64 (field 4); then i32 7.
  const std::string b = Bytes({0x17, 0,    0,    0,    0,   0,    0, 0xF0, 0x3F,  // 1.0
                               0x1B, 0x01, 0x85, 0x01, 'k', 0x0E,                 // map {"k": 7}
                               0x19, 0x21, 0x01, 0x02,  // list<bool>[true,false]
                               0x1C, 0x16, 0x04, 0x00,  // struct {1: i64 2}
                               0x00,                    // STOP
                               0x0E});                  // zigzag 7
  CompactReader r(b);
  r.Skip(WireType::kStruct);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.ReadI32(), 7);

  std::string deep;
  for (int i = 0; i < 100; ++i) deep += '\x1c';  // field 1: struct, nested 100 times
  CompactReader d(deep);
  d.Skip(WireType::kStruct);
  EXPECT_NE(d.error().find("nested too deeply"), std::string::npos) << d.error();
}

// FileMetaData {1: version 1, 2: schema [root "schema" with 1 child, "s" BYTE_ARRAY OPTIONAL
// UTF8], 3: num_rows 3, 4: row_groups [], 5 (skipped): key_value_metadata [{"k","v"}],
// 6: created_by "abc", 200 (skipped, long form): a double}.
std::string HandBuiltFooter() {
  return Bytes({0x15, 0x02,  // version
                0x19, 0x2C,  // schema: 2 structs
                0x48, 0x06, 's',  'c',  'h',  'e',  'm',  'a',  0x15, 0x02, 0x00,  // root
                0x15, 0x0C, 0x25, 0x02, 0x18, 0x01, 's',  0x25, 0x00, 0x00,        // leaf "s"
                0x16, 0x06,                                                        // num_rows 3
                0x19, 0x0C,                                                        // row_groups: []
                0x19, 0x1C, 0x18, 0x01, 'k',  0x18, 0x01, 'v',  0x00,              // key/value
                0x18, 0x03, 'a',  'b',  'c',                                       // created_by
                0x07, 0x90, 0x03, 0,    0,    0,    0,    0,    0,    0,    0,     // field 200
                0x00});
}

TEST(FileMetaDataParser, ReadsKnownFieldsAndSkipsOthers) {
  auto m = ParseFileMetaData(HandBuiltFooter());
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->version, 1);
  ASSERT_EQ(m->schema.size(), 2u);
  EXPECT_EQ(m->schema[0].name, "schema");
  EXPECT_EQ(m->schema[0].num_children, 1);
  EXPECT_FALSE(m->schema[0].type.has_value());
  EXPECT_EQ(m->schema[1].name, "s");
  EXPECT_EQ(m->schema[1].type, static_cast<int32_t>(PhysicalType::kByteArray));
  EXPECT_EQ(m->schema[1].repetition, static_cast<int32_t>(Repetition::kOptional));
  EXPECT_EQ(m->schema[1].converted_type, kConvertedUtf8);
  EXPECT_EQ(m->num_rows, 3);
  EXPECT_TRUE(m->row_groups.empty());
  EXPECT_EQ(m->created_by, "abc");
}

TEST(FileMetaDataParser, EveryTruncationIsAnError) {
  const std::string full = HandBuiltFooter();
  for (size_t n = 0; n < full.size(); ++n) {
    auto m = ParseFileMetaData(full.substr(0, n));
    EXPECT_FALSE(m.ok()) << "prefix of " << n << " bytes parsed";
    if (!m.ok()) {
      EXPECT_EQ(m.status().code(), StatusCode::kCorruption);
    }
  }
}

TEST(FileMetaDataParser, MissingRequiredFieldAndWrongWireTypeFail) {
  // Only version and num_rows: no schema (field 2).
  auto missing = ParseFileMetaData(Bytes({0x15, 0x02, 0x26, 0x06, 0x19, 0x0C, 0x00}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("required field 2"), std::string::npos)
      << missing.status().message();
  // version (field 1, an i32) sent as a binary.
  auto wrong = ParseFileMetaData(Bytes({0x18, 0x01, 'x', 0x00}));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("field 1 is binary"), std::string::npos)
      << wrong.status().message();
}

TEST(PageHeaderParser, DataPageV2AndConsumedLength) {
  // PageHeader {1: type 3, 2: uncompressed 100, 3: compressed 60, 8: DataPageHeaderV2 {1: 10
  // values, 2: 2 nulls, 3: 10 rows, 4: encoding 8, 5: def bytes 3, 6: rep bytes 0, 7: false}}
  // followed by page bytes that must not be consumed.
  const std::string b =
      Bytes({0x15, 0x06, 0x15, 0xC8, 0x01, 0x15, 0x78, 0x5C, 0x15, 0x14, 0x15, 0x04, 0x15, 0x14,
             0x15, 0x10, 0x15, 0x06, 0x15, 0x00, 0x12, 0x00, 0x00, 'p',  'a',  'g',  'e'});
  size_t consumed = 0;
  auto h = ParsePageHeader(b, &consumed);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(consumed, b.size() - 4);
  EXPECT_EQ(h->type, static_cast<int32_t>(PageType::kDataPageV2));
  EXPECT_EQ(h->uncompressed_page_size, 100);
  EXPECT_EQ(h->compressed_page_size, 60);
  ASSERT_TRUE(h->data_page_header_v2.has_value());
  const auto& v2 = *h->data_page_header_v2;
  EXPECT_EQ(v2.num_values, 10);
  EXPECT_EQ(v2.num_nulls, 2);
  EXPECT_EQ(v2.num_rows, 10);
  EXPECT_EQ(v2.encoding, static_cast<int32_t>(Encoding::kRleDictionary));
  EXPECT_EQ(v2.definition_levels_byte_length, 3);
  EXPECT_EQ(v2.repetition_levels_byte_length, 0);
  EXPECT_FALSE(v2.is_compressed);
}

}  // namespace
}  // namespace tritonrl::parquet
