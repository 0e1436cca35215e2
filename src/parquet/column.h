// One column chunk of one row group, read value by value (internal to the parquet module): the
// chunk's bytes are read once, pages are parsed and decompressed one at a time, definition
// levels and dictionary indices are streamed. Errors carry no file context; the row reader adds
// `FILE: row group R, column C:`. One thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "parquet/rle.h"

namespace tritonrl::parquet {

// The parts of an open file the column reader needs.
struct FileState {
  std::string path;
  int fd = -1;
  uint64_t size = 0;
  uint64_t data_end = 0;  // where the footer starts
  ReaderOptions options;
  FileMetaData meta;
  std::vector<ColumnInfo> columns;
  ~FileState();
};

// Reads `n` bytes at `offset` (within the file's size) into `*out`.
Status ReadAt(const FileState& f, uint64_t offset, uint64_t n, std::string* out);

class ColumnCursor {
 public:
  ColumnCursor(const FileState* file, size_t leaf) : file_(file), leaf_(leaf) {}
  // Reads the column chunk of row group `rg` and resets the page state.
  Status Load(size_t rg);
  // The next value of the chunk (nullopt for a null).
  Status Next(std::optional<std::string>* value);
  // The chunk must hold no values past the row group's rows.
  Status Finish() const;

 private:
  Status NextPage();
  Status StartValues(int32_t encoding, std::string_view values);
  Status DecodeDictionary(std::string_view bytes, int32_t num_values);
  Status PlainValue(std::string_view* bytes, std::string_view* value) const;

  const FileState* file_;
  size_t leaf_;
  const ColumnMetaData* meta_ = nullptr;
  std::string chunk_;
  size_t pos_ = 0;
  bool seen_data_page_ = false;
  bool has_dict_ = false;
  std::string dict_buffer_;
  std::vector<std::string_view> dict_;
  std::string page_buffer_;
  int64_t page_left_ = 0;
  RleBitPackedDecoder levels_;
  bool dict_encoded_ = false;
  RleBitPackedDecoder indices_;
  std::string_view plain_;
};

}  // namespace tritonrl::parquet
