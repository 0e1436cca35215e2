#include "parquet/metadata.h"

#include <fmt/format.h>

#include <bitset>

#include "parquet/thrift.h"

namespace tritonrl::parquet {

namespace {

// Reads one struct: `field(id, type)` handles the fields it knows and returns false for the
// others, which are skipped. `required` lists the field ids that must appear.
template <typename OnField>
void ReadStruct(CompactReader& r, const char* what, std::initializer_list<int> required,
                OnField field) {
  std::bitset<64> seen;
  int16_t last = 0, id = 0;
  WireType type;
  while (r.NextField(&last, &id, &type)) {
    if (id > 0 && id < 64) seen.set(id);
    if (!field(id, type)) r.Skip(type);
    if (!r.ok()) return;
  }
  if (!r.ok()) return;
  for (int f : required) {
    if (!seen.test(f)) {
      r.Fail(fmt::format("{} lacks its required field {}", what, f));
      return;
    }
  }
}

// Checks a known field's wire type; a mismatch is corruption, not an unknown field.
bool Expect(CompactReader& r, const char* what, int id, WireType got, WireType want) {
  // i8/i16/i32 share the integer reader; a writer may choose the narrower one for enums.
  const bool is_int = want == WireType::kI32 &&
                      (got == WireType::kI16 || got == WireType::kByte || got == WireType::kI32);
  if (got == want || is_int) return true;
  r.Fail(fmt::format("{} field {} is {}, expected {}", what, id, WireTypeName(got),
                     WireTypeName(want)));
  return false;
}

template <typename ReadElement>
void ReadList(CompactReader& r, const char* what, int id, WireType type, WireType want,
              ReadElement read) {
  if (!Expect(r, what, id, type, WireType::kList)) return;
  WireType e;
  uint32_t n = 0;
  if (!r.ReadListHeader(&e, &n)) return;
  if (n > 0 && e != want) {
    r.Fail(fmt::format("{} field {} lists {}, expected {}", what, id, WireTypeName(e),
                       WireTypeName(want)));
    return;
  }
  for (uint32_t i = 0; i < n && r.ok(); ++i) read();
}

void ReadLogicalType(CompactReader& r, SchemaElement* s) {
  // A union: field 1 is STRING (an empty struct); the others do not concern a string reader.
  ReadStruct(r, "LogicalType", {}, [&](int id, WireType t) {
    if (id != 1) return false;
    if (Expect(r, "LogicalType", id, t, WireType::kStruct)) r.Skip(t);
    s->logical_string = true;
    return true;
  });
}

SchemaElement ReadSchemaElement(CompactReader& r) {
  SchemaElement s;
  ReadStruct(r, "SchemaElement", {4}, [&](int id, WireType t) {
    switch (id) {
      case 1:
        s.type = Expect(r, "SchemaElement", id, t, WireType::kI32) ? r.ReadInt(t) : 0;
        return true;
      case 3:
        s.repetition = Expect(r, "SchemaElement", id, t, WireType::kI32) ? r.ReadInt(t) : 0;
        return true;
      case 4:
        if (Expect(r, "SchemaElement", id, t, WireType::kBinary)) s.name = r.ReadBinary();
        return true;
      case 5:
        if (Expect(r, "SchemaElement", id, t, WireType::kI32)) s.num_children = r.ReadInt(t);
        return true;
      case 6:
        s.converted_type = Expect(r, "SchemaElement", id, t, WireType::kI32) ? r.ReadInt(t) : 0;
        return true;
      case 10:
        if (Expect(r, "SchemaElement", id, t, WireType::kStruct)) ReadLogicalType(r, &s);
        return true;
      default:
        return false;
    }
  });
  return s;
}

int64_t ReadI64Field(CompactReader& r, const char* what, int id, WireType t) {
  // Writers may narrow an i64 to i32 on the wire; both are zigzag varints.
  if (t == WireType::kI32 || t == WireType::kI16) return r.ReadI64();
  return Expect(r, what, id, t, WireType::kI64) ? r.ReadI64() : 0;
}

ColumnMetaData ReadColumnMetaData(CompactReader& r) {
  ColumnMetaData m;
  const char* w = "ColumnMetaData";
  ReadStruct(r, w, {1, 2, 3, 4, 5, 6, 7, 9}, [&](int id, WireType t) {
    switch (id) {
      case 1:
        if (Expect(r, w, id, t, WireType::kI32)) m.type = r.ReadInt(t);
        return true;
      case 3:
        ReadList(r, w, id, t, WireType::kBinary,
                 [&] { m.path_in_schema.push_back(r.ReadBinary()); });
        return true;
      case 4:
        if (Expect(r, w, id, t, WireType::kI32)) m.codec = r.ReadInt(t);
        return true;
      case 5:
        m.num_values = ReadI64Field(r, w, id, t);
        return true;
      case 6:
        m.total_uncompressed_size = ReadI64Field(r, w, id, t);
        return true;
      case 7:
        m.total_compressed_size = ReadI64Field(r, w, id, t);
        return true;
      case 9:
        m.data_page_offset = ReadI64Field(r, w, id, t);
        return true;
      case 11:
        m.dictionary_page_offset = ReadI64Field(r, w, id, t);
        return true;
      default:
        return false;  // 2 (encodings) is implied by the page headers
    }
  });
  return m;
}

ColumnChunk ReadColumnChunk(CompactReader& r) {
  ColumnChunk c;
  const char* w = "ColumnChunk";
  ReadStruct(r, w, {2}, [&](int id, WireType t) {
    switch (id) {
      case 1:
        if (Expect(r, w, id, t, WireType::kBinary)) c.file_path = r.ReadBinary();
        return true;
      case 2:
        c.file_offset = ReadI64Field(r, w, id, t);
        return true;
      case 3:
        if (Expect(r, w, id, t, WireType::kStruct)) c.meta_data = ReadColumnMetaData(r);
        return true;
      default:
        return false;
    }
  });
  return c;
}

RowGroup ReadRowGroup(CompactReader& r) {
  RowGroup g;
  const char* w = "RowGroup";
  ReadStruct(r, w, {1, 2, 3}, [&](int id, WireType t) {
    switch (id) {
      case 1:
        ReadList(r, w, id, t, WireType::kStruct, [&] { g.columns.push_back(ReadColumnChunk(r)); });
        return true;
      case 3:
        g.num_rows = ReadI64Field(r, w, id, t);
        return true;
      default:
        return false;
    }
  });
  return g;
}

int32_t ReadI32Field(CompactReader& r, const char* what, int id, WireType t) {
  return Expect(r, what, id, t, WireType::kI32) ? r.ReadInt(t) : 0;
}

// A struct whose known fields are i32s (`fields`: field id and member), plus the fields that
// `other(out, id, type)` reads (it returns false for unknown ones, which are skipped).
template <typename T, typename Other>
T ReadI32Struct(CompactReader& r, const char* what, std::initializer_list<int> required,
                std::initializer_list<std::pair<int, int32_t T::*>> fields, Other other) {
  T out;
  ReadStruct(r, what, required, [&](int id, WireType t) {
    for (const auto& [field, member] : fields) {
      if (field == id) {
        out.*member = ReadI32Field(r, what, id, t);
        return true;
      }
    }
    return other(out, id, t);
  });
  return out;
}

}  // namespace

std::string PhysicalTypeName(int32_t t) {
  static const char* const kNames[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                       "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return t >= 0 && t < 8 ? kNames[t] : fmt::format("type {}", t);
}

std::string CodecName(int32_t c) {
  static const char* const kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                       "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
  return c >= 0 && c < 8 ? kNames[c] : fmt::format("codec {}", c);
}

std::string EncodingName(int32_t e) {
  static const char* const kNames[] = {
      "PLAIN",          "GROUP_VAR_INT",       "PLAIN_DICTIONARY",        "RLE",
      "BIT_PACKED",     "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
      "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
  return e >= 0 && e < 10 ? kNames[e] : fmt::format("encoding {}", e);
}

Result<FileMetaData> ParseFileMetaData(std::string_view bytes) {
  CompactReader r(bytes);
  FileMetaData f;
  const char* w = "FileMetaData";
  ReadStruct(r, w, {1, 2, 3, 4}, [&](int id, WireType t) {
    switch (id) {
      case 1:
        f.version = ReadI32Field(r, w, id, t);
        return true;
      case 2:
        ReadList(r, w, id, t, WireType::kStruct, [&] { f.schema.push_back(ReadSchemaElement(r)); });
        return true;
      case 3:
        f.num_rows = ReadI64Field(r, w, id, t);
        return true;
      case 4:
        ReadList(r, w, id, t, WireType::kStruct, [&] { f.row_groups.push_back(ReadRowGroup(r)); });
        return true;
      case 6:
        if (Expect(r, w, id, t, WireType::kBinary)) f.created_by = r.ReadBinary();
        return true;
      default:
        return false;
    }
  });
  if (!r.ok()) return Status::Corruption("footer: " + r.error());
  return f;
}

Result<PageHeader> ParsePageHeader(std::string_view bytes, size_t* consumed) {
  CompactReader r(bytes);
  auto none = [](auto&, int, WireType) { return false; };
  auto page = ReadI32Struct<PageHeader>(
      r, "PageHeader", {1, 2, 3},
      {{1, &PageHeader::type},
       {2, &PageHeader::uncompressed_page_size},
       {3, &PageHeader::compressed_page_size}},
      [&](PageHeader& h, int id, WireType t) {
        if (id != 5 && id != 7 && id != 8) return false;
        if (!Expect(r, "PageHeader", id, t, WireType::kStruct)) return true;
        if (id == 5) {
          h.data_page_header =
              ReadI32Struct<DataPageHeader>(r, "DataPageHeader", {1, 2, 3, 4},
                                            {{1, &DataPageHeader::num_values},
                                             {2, &DataPageHeader::encoding},
                                             {3, &DataPageHeader::definition_level_encoding},
                                             {4, &DataPageHeader::repetition_level_encoding}},
                                            none);
        } else if (id == 7) {
          h.dictionary_page_header = ReadI32Struct<DictionaryPageHeader>(
              r, "DictionaryPageHeader", {1, 2},
              {{1, &DictionaryPageHeader::num_values}, {2, &DictionaryPageHeader::encoding}}, none);
        } else {
          h.data_page_header_v2 = ReadI32Struct<DataPageHeaderV2>(
              r, "DataPageHeaderV2", {1, 2, 3, 4, 5, 6},
              {{1, &DataPageHeaderV2::num_values},
               {2, &DataPageHeaderV2::num_nulls},
               {3, &DataPageHeaderV2::num_rows},
               {4, &DataPageHeaderV2::encoding},
               {5, &DataPageHeaderV2::definition_levels_byte_length},
               {6, &DataPageHeaderV2::repetition_levels_byte_length}},
              [&](DataPageHeaderV2& d, int i, WireType u) {
                if (i != 7) return false;
                d.is_compressed = r.BoolField(u);
                return true;
              });
        }
        return true;
      });
  if (!r.ok()) return Status::Corruption("page header: " + r.error());
  *consumed = r.position();
  return page;
}

}  // namespace tritonrl::parquet
