#include "parquet/thrift.h"

#include <fmt/format.h>

namespace tritonrl::parquet {

namespace {
// Parquet's structs nest a handful of levels; a deeper value is hostile.
constexpr int kMaxDepth = 32;
}  // namespace

const char* WireTypeName(WireType t) {
  switch (t) {
    case WireType::kStop:
      return "stop";
    case WireType::kTrue:
      return "bool(true)";
    case WireType::kFalse:
      return "bool(false)";
    case WireType::kByte:
      return "byte";
    case WireType::kI16:
      return "i16";
    case WireType::kI32:
      return "i32";
    case WireType::kI64:
      return "i64";
    case WireType::kDouble:
      return "double";
    case WireType::kBinary:
      return "binary";
    case WireType::kList:
      return "list";
    case WireType::kSet:
      return "set";
    case WireType::kMap:
      return "map";
    case WireType::kStruct:
      return "struct";
  }
  return "unknown";
}

void CompactReader::Fail(std::string why) {
  if (error_.empty()) error_ = fmt::format("{} (at byte {} of {})", why, pos_, bytes_.size());
}

uint8_t CompactReader::ReadByte() {
  if (!ok()) return 0;
  if (pos_ >= bytes_.size()) {
    Fail("truncated");
    return 0;
  }
  return static_cast<uint8_t>(bytes_[pos_++]);
}

uint64_t CompactReader::ReadVarint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    const uint8_t b = ReadByte();
    if (!ok()) return 0;
    // The tenth byte may carry only the top bit of a 64-bit value.
    if (shift == 63 && (b & 0x7e)) break;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  Fail("varint longer than 64 bits");
  return 0;
}

int64_t CompactReader::ReadI64() {
  const uint64_t z = ReadVarint();
  return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
}

int32_t CompactReader::ReadI32() {
  const int64_t v = ReadI64();
  if (v < INT32_MIN || v > INT32_MAX) {
    Fail(fmt::format("i32 out of range: {}", v));
    return 0;
  }
  return static_cast<int32_t>(v);
}

int32_t CompactReader::ReadInt(WireType type) {
  switch (type) {
    case WireType::kByte:
      return static_cast<int8_t>(ReadByte());
    case WireType::kI16:
    case WireType::kI32:
      return ReadI32();
    default:
      Fail(fmt::format("expected an integer, found {}", WireTypeName(type)));
      return 0;
  }
}

std::string CompactReader::ReadBinary() {
  const uint64_t n = ReadVarint();
  if (!ok()) return {};
  if (n > bytes_.size() - pos_) {
    Fail(fmt::format("binary of {} bytes with {} bytes left", n, bytes_.size() - pos_));
    return {};
  }
  std::string s(bytes_.substr(pos_, n));
  pos_ += n;
  return s;
}

bool CompactReader::NextField(int16_t* last_id, int16_t* id, WireType* type) {
  const uint8_t b = ReadByte();
  if (!ok()) return false;
  const uint8_t t = b & 0x0f;
  if (t == 0) return false;  // STOP
  if (t > static_cast<uint8_t>(WireType::kStruct)) {
    Fail(fmt::format("unknown wire type {}", t));
    return false;
  }
  const int delta = b >> 4;
  if (delta) {
    *id = static_cast<int16_t>(*last_id + delta);
  } else {
    const int64_t full = ReadI64();
    if (full < INT16_MIN || full > INT16_MAX) Fail(fmt::format("field id out of range: {}", full));
    *id = static_cast<int16_t>(full);
  }
  if (!ok()) return false;
  *last_id = *id;
  *type = static_cast<WireType>(t);
  return true;
}

bool CompactReader::BoolField(WireType type) {
  if (type == WireType::kTrue) return true;
  if (type == WireType::kFalse) return false;
  Fail(fmt::format("expected a bool, found {}", WireTypeName(type)));
  return false;
}

bool CompactReader::ReadListHeader(WireType* element, uint32_t* size) {
  const uint8_t b = ReadByte();
  if (!ok()) return false;
  uint64_t n = b >> 4;
  if (n == 15) n = ReadVarint();
  const uint8_t t = b & 0x0f;
  if (!ok()) return false;
  if (t == 0 || t > static_cast<uint8_t>(WireType::kStruct)) {
    Fail(fmt::format("list of unknown element type {}", t));
    return false;
  }
  if (n > bytes_.size() - pos_) {
    Fail(fmt::format("list of {} elements with {} bytes left", n, bytes_.size() - pos_));
    return false;
  }
  *element = static_cast<WireType>(t);
  *size = static_cast<uint32_t>(n);
  return true;
}

void CompactReader::Skip(WireType type) {
  SkipDepth(type, 0);
}

void CompactReader::SkipElement(WireType type, int depth) {
  // Inside a container a bool is a whole byte, not a type nibble.
  if (type == WireType::kTrue || type == WireType::kFalse) {
    ReadByte();
  } else {
    SkipDepth(type, depth);
  }
}

void CompactReader::SkipDepth(WireType type, int depth) {
  if (!ok()) return;
  if (depth > kMaxDepth) {
    Fail("values nested too deeply");
    return;
  }
  switch (type) {
    case WireType::kStop:
      Fail("unexpected stop");
      return;
    case WireType::kTrue:
    case WireType::kFalse:
      return;  // the value is the type
    case WireType::kByte:
      ReadByte();
      return;
    case WireType::kI16:
    case WireType::kI32:
    case WireType::kI64:
      ReadVarint();
      return;
    case WireType::kDouble:
      if (bytes_.size() - pos_ < 8) {
        Fail("truncated double");
        return;
      }
      pos_ += 8;
      return;
    case WireType::kBinary: {
      const uint64_t n = ReadVarint();
      if (ok() && n > bytes_.size() - pos_) Fail("truncated binary");
      if (ok()) pos_ += n;
      return;
    }
    case WireType::kList:
    case WireType::kSet: {
      WireType e;
      uint32_t n = 0;
      if (!ReadListHeader(&e, &n)) return;
      for (uint32_t i = 0; i < n && ok(); ++i) SkipElement(e, depth + 1);
      return;
    }
    case WireType::kMap: {
      const uint64_t n = ReadVarint();
      if (!ok() || n == 0) return;
      if (n > bytes_.size() - pos_) {
        Fail("map larger than the bytes left");
        return;
      }
      const uint8_t kv = ReadByte();
      const auto k = static_cast<WireType>(kv >> 4), v = static_cast<WireType>(kv & 0x0f);
      for (uint64_t i = 0; i < n && ok(); ++i) {
        SkipElement(k, depth + 1);
        SkipElement(v, depth + 1);
      }
      return;
    }
    case WireType::kStruct: {
      int16_t last = 0, id = 0;
      WireType t;
      while (NextField(&last, &id, &t)) SkipDepth(t, depth + 1);
      return;
    }
  }
  Fail("unknown wire type");
}

}  // namespace tritonrl::parquet
