#include "parquet/rle.h"

#include <fmt/format.h>

namespace tritonrl::parquet {

RleBitPackedDecoder::RleBitPackedDecoder(std::string_view data, int bit_width)
    : data_(data), bit_width_(bit_width) {
  if (bit_width < 0 || bit_width > 32) error_ = fmt::format("bit width {} is not 0..32", bit_width);
}

bool RleBitPackedDecoder::StartRun() {
  // The run header is a ULEB128 varint: count << 1 | is_bit_packed.
  uint64_t header = 0;
  for (int shift = 0;; shift += 7) {
    if (pos_ >= data_.size()) return false;  // the end of the data, not an error
    if (shift > 56) {
      error_ = "run header varint too long";
      return false;
    }
    const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    header |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  if (header & 1) {
    rle_ = false;
    left_in_run_ = (header >> 1) * 8;
    packed_start_ = pos_;
    packed_index_ = 0;
    // A writer may cut the last run short of a whole group; values past the data are an error
    // only when read, so the position moves to the end of the run or of the data.
    const uint64_t bytes = (header >> 1) * static_cast<uint64_t>(bit_width_);
    pos_ = bytes > data_.size() - pos_ ? data_.size() : pos_ + bytes;
    return true;
  }
  rle_ = true;
  left_in_run_ = header >> 1;
  const size_t width_bytes = (static_cast<size_t>(bit_width_) + 7) / 8;
  if (width_bytes > data_.size() - pos_) {
    error_ = "RLE run value truncated";
    return false;
  }
  uint32_t v = 0;
  for (size_t i = 0; i < width_bytes; ++i)
    v |= static_cast<uint32_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
  pos_ += width_bytes;
  if (bit_width_ < 32 && (v >> bit_width_) != 0) {
    error_ = fmt::format("RLE run value {} does not fit in {} bits", v, bit_width_);
    return false;
  }
  rle_value_ = v;
  return true;
}

bool RleBitPackedDecoder::Next(uint32_t* value) {
  if (!error_.empty()) return false;
  while (left_in_run_ == 0) {
    if (!StartRun()) return false;
  }
  --left_in_run_;
  if (rle_) {
    *value = rle_value_;
    return true;
  }
  const uint64_t bit = packed_index_++ * static_cast<uint64_t>(bit_width_);
  const size_t first = packed_start_ + bit / 8;
  const size_t last = packed_start_ + (bit + bit_width_ + 7) / 8;  // one past the last byte used
  if (bit_width_ > 0 && last > data_.size()) {
    error_ = "bit-packed run truncated";
    return false;
  }
  uint64_t window = 0;
  for (size_t i = first; i < last; ++i)
    window |= static_cast<uint64_t>(static_cast<uint8_t>(data_[i])) << (8 * (i - first));
  const uint64_t mask = bit_width_ == 32 ? 0xffffffffull : ((1ull << bit_width_) - 1);
  *value = static_cast<uint32_t>((window >> (bit % 8)) & mask);
  return true;
}

}  // namespace tritonrl::parquet
