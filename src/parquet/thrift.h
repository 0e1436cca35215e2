// A minimal decoder of the Thrift compact protocol, enough for Parquet's footer and page headers
// (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md). It reads
// from a byte range it does not own and never reads past it; the first problem is kept as a sticky
// error so that struct parsers can read a whole struct and check `ok()` once. Every count read from
// the wire is checked against the bytes left before a caller may allocate for it. One reader per
// thread; no state survives a crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tritonrl::parquet {

// Wire types of the compact protocol (the low nibble of a field header).
enum class WireType : uint8_t {
  kStop = 0,
  kTrue = 1,  // a bool field whose value is in its type
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

const char* WireTypeName(WireType t);

class CompactReader {
 public:
  explicit CompactReader(std::string_view bytes) : bytes_(bytes) {}

  // The next field header of the struct being read. `last_id` is the previous field id of that
  // struct (0 at its start) and is updated. False at the struct's STOP byte or on an error.
  bool NextField(int16_t* last_id, int16_t* id, WireType* type);
  // A bool field's value is its wire type; in a list each bool is one byte.
  bool BoolField(WireType type);
  int32_t ReadI32();
  // An i8, i16 or i32 value, by the field's wire type, widened to 32 bits.
  int32_t ReadInt(WireType type);
  int64_t ReadI64();
  std::string ReadBinary();
  // A list or set header; `size` is checked against the bytes left (every element is at least
  // one byte on the wire, except a list of empty structs, which is at least one STOP byte too).
  bool ReadListHeader(WireType* element, uint32_t* size);
  // Skips a value of any type, nested structs and containers included, to a bounded depth.
  void Skip(WireType type);

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t position() const { return pos_; }
  // Records the first error (later ones are dropped: the first explains the rest).
  void Fail(std::string why);

 private:
  uint64_t ReadVarint();
  uint8_t ReadByte();
  void SkipDepth(WireType type, int depth);
  void SkipElement(WireType type, int depth);  // a list, set or map element

  std::string_view bytes_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace tritonrl::parquet
