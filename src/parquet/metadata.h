// Parquet's Thrift structs, as far as a reader of flat string and integer columns needs them
// (field ids from parquet-format's parquet.thrift), and their parsers over the compact protocol.
// Unknown fields are skipped; a known field with the wrong wire type, a missing required field or
// a count larger than the bytes left is a Corruption error. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace tritonrl::parquet {

// parquet.thrift enums, by their wire values.
enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};
enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum class Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7,
};
enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};
enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3
};
constexpr int32_t kConvertedUtf8 = 0;

std::string PhysicalTypeName(int32_t t);
std::string CodecName(int32_t c);
std::string EncodingName(int32_t e);

struct SchemaElement {
  std::optional<int32_t> type;  // absent on group nodes
  std::optional<int32_t> repetition;
  std::string name;
  int32_t num_children = 0;
  std::optional<int32_t> converted_type;
  bool logical_string = false;  // LogicalType STRING
};

struct ColumnMetaData {
  int32_t type = 0;
  std::vector<std::string> path_in_schema;
  int32_t codec = 0;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
};

struct ColumnChunk {
  std::string file_path;  // set when the data lives in another file (not read by us)
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t num_rows = 0;
};

struct FileMetaData {
  int32_t version = 0;
  std::vector<SchemaElement> schema;  // depth-first, schema[0] is the root
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::string created_by;
};

struct DataPageHeader {
  int32_t num_values = 0;
  int32_t encoding = 0;
  int32_t definition_level_encoding = 0;
  int32_t repetition_level_encoding = 0;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  int32_t encoding = 0;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  int32_t encoding = 0;
};

struct PageHeader {
  int32_t type = 0;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
};

// The footer: the bytes between the first data and the 4-byte length before the final magic.
Result<FileMetaData> ParseFileMetaData(std::string_view bytes);
// A page header at the start of `bytes`; `*consumed` is its length on the wire.
Result<PageHeader> ParsePageHeader(std::string_view bytes, size_t* consumed);

}  // namespace tritonrl::parquet
