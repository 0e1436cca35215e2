// A small, strict Parquet reader for flat tables of string and integer columns (what datasets
// written by pyarrow / Hugging Face `datasets` hold): open a file, list its columns, read rows of
// selected columns as strings, row group by row group. Reads BYTE_ARRAY (strings), INT32 and INT64
// columns, required or optional, with the codecs UNCOMPRESSED, SNAPPY, GZIP and ZSTD, the
// encodings PLAIN and PLAIN_DICTIONARY / RLE_DICTIONARY, data pages v1 and v2. Refuses, with an
// error naming the file and what is wrong, anything else: nested or repeated columns, other types,
// codecs and encodings, encrypted footers, column data in other files.
//
// The file is hostile input: every offset, length and count is checked against the file before
// use, and memory stays bounded by the file size (one column chunk of each selected column at a
// time, one decompressed page of at most `max_page_bytes`). Errors name the file, then for data
// `row group R, column C: why`.
//
// Threads: a Reader is immutable after Open and may be shared; each RowReader belongs to one
// thread. Nothing is written, so nothing needs to survive a crash.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace tritonrl::parquet {

struct ReaderOptions {
  uint64_t max_page_bytes = 256ull << 20;   // a decompressed page above this is refused
  uint64_t max_footer_bytes = 16ull << 20;  // real footers are kilobytes
};

struct ColumnInfo {
  std::string name;           // the dotted path in the schema
  int32_t physical_type = 0;  // PhysicalType
  bool nullable = false;
  bool is_string = false;   // annotated UTF8 / STRING (then values are checked to be UTF-8)
  std::string unsupported;  // why the column cannot be read; empty when it can
};

struct FileState;
class RowReader;

class Reader {
 public:
  static Result<Reader> Open(const std::string& path, const ReaderOptions& options = {});

  const std::string& path() const;
  const std::vector<ColumnInfo>& columns() const;  // leaf columns in schema order
  int64_t num_rows() const;
  size_t num_row_groups() const;

  // Rows of the named columns, in the order given. A name that is not a column, or a column
  // this reader cannot read, is an error naming the file and the columns it has.
  Result<RowReader> ReadColumns(const std::vector<std::string>& names) const;

 private:
  explicit Reader(std::shared_ptr<const FileState> file) : file_(std::move(file)) {}
  std::shared_ptr<const FileState> file_;
};

class RowReader {
 public:
  RowReader(RowReader&&) noexcept;
  RowReader& operator=(RowReader&&) noexcept;
  ~RowReader();

  // The next row into `*row` (one entry per selected column; nullopt is a null; integers in
  // decimal). false after the last row. After an error the reader stays failed.
  Result<bool> Next(std::vector<std::optional<std::string>>* row);
  // Where the last row read came from (0-based).
  size_t row_group() const;
  int64_t row_in_group() const;

 private:
  friend class Reader;
  struct State;
  explicit RowReader(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace tritonrl::parquet
