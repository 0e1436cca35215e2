// The RLE / bit-packed hybrid encoding of Parquet (definition levels and dictionary indices;
// parquet-format Encodings.md, "Run Length Encoding / Bit-Packing Hybrid"): runs of a repeated
// value and runs of bit-packed groups of 8 values, least significant bit first. Streams values
// one at a time, so a run header claiming billions of values costs nothing until they are read,
// and never reads outside its byte range. One decoder per thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tritonrl::parquet {

class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  // `bit_width` is 0..32; `data` starts at the first run header (no length prefix).
  RleBitPackedDecoder(std::string_view data, int bit_width);

  // The next value; false at the end of the data or on an error (then `error()` is set).
  bool Next(uint32_t* value);
  const std::string& error() const { return error_; }

 private:
  bool StartRun();

  std::string_view data_;
  size_t pos_ = 0;
  int bit_width_ = 0;
  uint64_t left_in_run_ = 0;
  bool rle_ = false;
  uint32_t rle_value_ = 0;
  size_t packed_start_ = 0;  // byte offset of the current bit-packed run
  uint64_t packed_index_ = 0;
  std::string error_;
};

}  // namespace tritonrl::parquet
