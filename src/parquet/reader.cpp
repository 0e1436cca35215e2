#include "parquet/reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "parquet/column.h"

namespace tritonrl::parquet {

namespace {

constexpr int kMaxSchemaDepth = 64;

// Walks the depth-first schema list from `*i` and appends its leaves. Only direct, non-repeated
// children of the root are flat columns we read; deeper leaves are listed as unsupported so
// that the chunk index of every column stays right.
Status WalkSchema(const std::vector<SchemaElement>& schema, size_t* i, int depth,
                  const std::string& prefix, bool nested, std::vector<ColumnInfo>* out) {
  if (depth > kMaxSchemaDepth) return Status::Corruption("schema nested too deeply");
  if (*i >= schema.size()) return Status::Corruption("schema lists fewer elements than it claims");
  const SchemaElement& e = schema[(*i)++];
  const std::string name = prefix.empty() ? e.name : prefix + "." + e.name;
  const bool repeated =
      e.repetition && *e.repetition == static_cast<int32_t>(Repetition::kRepeated);
  if (e.num_children < 0) return Status::Corruption("schema element with negative children");
  if (e.num_children > 0) {
    if (static_cast<size_t>(e.num_children) > schema.size() - *i)
      return Status::Corruption(
          fmt::format("schema group '{}' claims {} children", name, e.num_children));
    for (int32_t k = 0; k < e.num_children; ++k)
      TRITONRL_RETURN_IF_ERROR(WalkSchema(schema, i, depth + 1, name, true, out));
    return Status::Ok();
  }
  if (!e.type) return Status::Corruption(fmt::format("schema leaf '{}' has no type", name));
  ColumnInfo c;
  c.name = name;
  c.physical_type = *e.type;
  c.nullable = e.repetition && *e.repetition == static_cast<int32_t>(Repetition::kOptional);
  c.is_string = *e.type == static_cast<int32_t>(PhysicalType::kByteArray) &&
                (e.logical_string || (e.converted_type && *e.converted_type == kConvertedUtf8));
  const auto t = static_cast<PhysicalType>(*e.type);
  if (nested || repeated) {
    c.unsupported = "a nested or repeated column (this reader reads flat columns only)";
  } else if (t != PhysicalType::kByteArray && t != PhysicalType::kInt32 &&
             t != PhysicalType::kInt64) {
    c.unsupported =
        "type " + PhysicalTypeName(*e.type) + " (this reader reads BYTE_ARRAY, INT32 and INT64)";
  }
  out->push_back(std::move(c));
  return Status::Ok();
}

Status CheckMetaData(const FileMetaData& m, size_t leaves) {
  int64_t rows = 0;
  for (size_t g = 0; g < m.row_groups.size(); ++g) {
    const RowGroup& rg = m.row_groups[g];
    if (rg.columns.size() != leaves)
      return Status::Corruption(fmt::format("row group {} has {} column chunks for {} columns", g,
                                            rg.columns.size(), leaves));
    if (rg.num_rows < 0 || rg.num_rows > INT64_MAX - rows)
      return Status::Corruption(fmt::format("row group {} claims {} rows", g, rg.num_rows));
    rows += rg.num_rows;
  }
  if (rows != m.num_rows)
    return Status::Corruption(
        fmt::format("the footer claims {} rows, its row groups hold {}", m.num_rows, rows));
  return Status::Ok();
}

}  // namespace

Result<Reader> Reader::Open(const std::string& path, const ReaderOptions& options) {
  auto f = std::make_shared<FileState>();
  f->path = path;
  f->options = options;
  f->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f->fd < 0)
    return Status::IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Status::IoError(path + ": not a regular file");
  f->size = static_cast<uint64_t>(st.st_size);
  auto fail = [&](const Status& s) {
    return Status::Corruption(fmt::format("{}: {}", path, s.message()));
  };
  // "PAR1", the data, the footer, its 4-byte length, "PAR1".
  if (f->size < 12)
    return Status::Corruption(
        fmt::format("{}: {} bytes is too short for a Parquet file", path, f->size));
  std::string head, tail;
  if (auto s = ReadAt(*f, 0, 4, &head); !s.ok()) return fail(s);
  if (auto s = ReadAt(*f, f->size - 8, 8, &tail); !s.ok()) return fail(s);
  if (head != "PAR1") return Status::Corruption(path + ": bad magic at the start (not Parquet)");
  if (tail.substr(4) == "PARE")
    return Status::Unavailable(path + ": encrypted footer (not supported)");
  if (tail.substr(4) != "PAR1")
    return Status::Corruption(path + ": bad magic at the end (truncated or not Parquet)");
  uint64_t footer_len = 0;
  for (int i = 0; i < 4; ++i)
    footer_len |= static_cast<uint64_t>(static_cast<uint8_t>(tail[i])) << (8 * i);
  if (footer_len > f->size - 12)
    return Status::Corruption(
        fmt::format("{}: footer length {} with a file of {} bytes", path, footer_len, f->size));
  if (footer_len > options.max_footer_bytes)
    return Status::Corruption(fmt::format("{}: footer of {} bytes, above the limit of {}", path,
                                          footer_len, options.max_footer_bytes));
  f->data_end = f->size - 8 - footer_len;
  std::string footer;
  if (auto s = ReadAt(*f, f->data_end, footer_len, &footer); !s.ok()) return fail(s);
  auto meta = ParseFileMetaData(footer);
  if (!meta.ok()) return fail(meta.status());
  f->meta = std::move(*meta);
  if (f->meta.schema.empty()) return Status::Corruption(path + ": footer: empty schema");
  size_t i = 0;
  std::vector<ColumnInfo> columns;
  const SchemaElement& root = f->meta.schema[0];
  if (root.num_children < 0 || static_cast<size_t>(root.num_children) > f->meta.schema.size() - 1)
    return Status::Corruption(path + ": footer: schema root claims too many children");
  ++i;
  for (int32_t k = 0; k < root.num_children; ++k) {
    if (auto s = WalkSchema(f->meta.schema, &i, 1, "", false, &columns); !s.ok()) return fail(s);
  }
  if (i != f->meta.schema.size())
    return Status::Corruption(path + ": footer: schema elements outside the root's children");
  if (auto s = CheckMetaData(f->meta, columns.size()); !s.ok()) return fail(s);
  f->columns = std::move(columns);
  return Reader(std::move(f));
}

const std::string& Reader::path() const {
  return file_->path;
}
const std::vector<ColumnInfo>& Reader::columns() const {
  return file_->columns;
}
int64_t Reader::num_rows() const {
  return file_->meta.num_rows;
}
size_t Reader::num_row_groups() const {
  return file_->meta.row_groups.size();
}

struct RowReader::State {
  std::shared_ptr<const FileState> file;
  std::vector<size_t> leaves;
  std::vector<ColumnCursor> cursors;
  size_t group = 0;
  int64_t row = -1;  // index in the group of the last row read
  bool loaded = false;
  Status failed;

  // Adds `FILE: row group R, column C:`; an unsupported feature stays kUnavailable.
  Status Where(size_t column, const Status& s) const {
    const std::string msg = fmt::format("{}: row group {}, column {}: {}", file->path, group,
                                        file->columns[leaves[column]].name, s.message());
    return s.code() == StatusCode::kUnavailable ? Status::Unavailable(msg)
                                                : Status::Corruption(msg);
  }
};

RowReader::RowReader(std::unique_ptr<State> s) : s_(std::move(s)) {}
RowReader::RowReader(RowReader&&) noexcept = default;
RowReader& RowReader::operator=(RowReader&&) noexcept = default;
RowReader::~RowReader() = default;

size_t RowReader::row_group() const {
  return s_->group;
}
int64_t RowReader::row_in_group() const {
  return s_->row;
}

Result<RowReader> Reader::ReadColumns(const std::vector<std::string>& names) const {
  auto s = std::make_unique<RowReader::State>();
  s->file = file_;
  for (const std::string& name : names) {
    size_t found = file_->columns.size();
    for (size_t c = 0; c < file_->columns.size(); ++c) {
      if (file_->columns[c].name == name) found = c;
    }
    if (found == file_->columns.size()) {
      std::string have;
      for (const auto& c : file_->columns) have += (have.empty() ? "" : ", ") + c.name;
      return Status::NotFound(
          fmt::format("{}: no column '{}' (columns: {})", file_->path, name, have));
    }
    if (!file_->columns[found].unsupported.empty())
      return Status::Unavailable(
          fmt::format("{}: column {}: {}", file_->path, name, file_->columns[found].unsupported));
    s->leaves.push_back(found);
    s->cursors.emplace_back(file_.get(), found);
  }
  return RowReader(std::move(s));
}

Result<bool> RowReader::Next(std::vector<std::optional<std::string>>* row) {
  State& s = *s_;
  if (!s.failed.ok()) return s.failed;
  const auto& groups = s.file->meta.row_groups;
  for (;;) {
    if (s.group >= groups.size()) return false;
    if (!s.loaded) {
      for (size_t c = 0; c < s.cursors.size(); ++c) {
        if (auto st = s.cursors[c].Load(s.group); !st.ok()) return s.failed = s.Where(c, st);
      }
      s.loaded = true;
      s.row = -1;
    }
    if (s.row + 1 < groups[s.group].num_rows) break;
    for (size_t c = 0; c < s.cursors.size(); ++c) {
      if (auto st = s.cursors[c].Finish(); !st.ok()) return s.failed = s.Where(c, st);
    }
    ++s.group;
    s.loaded = false;
  }
  ++s.row;
  row->resize(s.cursors.size());
  for (size_t c = 0; c < s.cursors.size(); ++c) {
    if (auto st = s.cursors[c].Next(&(*row)[c]); !st.ok()) return s.failed = s.Where(c, st);
  }
  return true;
}

}  // namespace tritonrl::parquet
