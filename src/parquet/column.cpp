#include "parquet/column.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "parquet/codec.h"

namespace tritonrl::parquet {

namespace {

uint32_t LoadLe32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

uint64_t LoadLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

// Strict UTF-8 (no overlong forms, surrogates or code points above U+10FFFF): the values become
// JSON text later, and a UTF8-annotated column promises exactly this.
bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n = 0;
    uint32_t cp = 0, min = 0;
    if ((c & 0xe0) == 0xc0) {
      n = 1, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (s.size() - i <= static_cast<size_t>(n)) return false;
    for (int k = 1; k <= n; ++k) {
      const auto d = static_cast<uint8_t>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

// The smallest PLAIN value of a type on the wire, which bounds how many values bytes can hold.
size_t MinPlainBytes(int32_t type) {
  return type == static_cast<int32_t>(PhysicalType::kInt64) ? 8 : 4;
}

}  // namespace

FileState::~FileState() {
  if (fd >= 0) ::close(fd);
}

Status ReadAt(const FileState& f, uint64_t offset, uint64_t n, std::string* out) {
  if (offset > f.size || n > f.size - offset)
    return Status::Corruption(
        fmt::format("bytes {}..{} lie outside the file ({} bytes)", offset, offset + n, f.size));
  out->resize(n);
  uint64_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(f.fd, out->data() + done, n - done, offset + done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Status::IoError(fmt::format("read failed: {}", std::strerror(errno)));
    if (got == 0) return Status::IoError("the file shrank while being read");
    done += got;
  }
  return Status::Ok();
}

Status ColumnCursor::Load(size_t rg) {
  const RowGroup& group = file_->meta.row_groups[rg];
  const ColumnChunk& cc = group.columns[leaf_];
  const ColumnInfo& info = file_->columns[leaf_];
  if (!cc.file_path.empty())
    return Status::Unavailable("the column's data is in another file (" + cc.file_path + ")");
  if (!cc.meta_data) return Status::Corruption("the column chunk has no metadata");
  meta_ = &*cc.meta_data;
  if (meta_->type != info.physical_type)
    return Status::Corruption(fmt::format("the chunk holds {}, the schema says {}",
                                          PhysicalTypeName(meta_->type),
                                          PhysicalTypeName(info.physical_type)));
  if (meta_->num_values != group.num_rows)
    return Status::Corruption(
        fmt::format("the chunk holds {} values for {} rows", meta_->num_values, group.num_rows));
  int64_t start = meta_->data_page_offset;
  // Some writers record a dictionary offset of 0 for "none"; only an earlier one is real.
  if (meta_->dictionary_page_offset && *meta_->dictionary_page_offset > 0 &&
      *meta_->dictionary_page_offset < start)
    start = *meta_->dictionary_page_offset;
  const int64_t len = meta_->total_compressed_size;
  if (start < 4 || len < 0 || static_cast<uint64_t>(start) > file_->data_end ||
      static_cast<uint64_t>(len) > file_->data_end - static_cast<uint64_t>(start))
    return Status::Corruption(
        fmt::format("the chunk's bytes {}..{} are not between the header and the footer (at {})",
                    start, start + len, file_->data_end));
  TRITONRL_RETURN_IF_ERROR(ReadAt(*file_, start, len, &chunk_));
  pos_ = 0;
  seen_data_page_ = has_dict_ = dict_encoded_ = false;
  dict_.clear();
  page_left_ = 0;
  return Status::Ok();
}

Status ColumnCursor::DecodeDictionary(std::string_view bytes, int32_t num_values) {
  const int32_t type = file_->columns[leaf_].physical_type;
  if (num_values < 0 || static_cast<uint64_t>(num_values) > bytes.size() / MinPlainBytes(type))
    return Status::Corruption(
        fmt::format("dictionary page of {} bytes claims {} values", bytes.size(), num_values));
  dict_.clear();
  dict_.reserve(num_values);
  for (int32_t i = 0; i < num_values; ++i) {
    std::string_view v;
    TRITONRL_RETURN_IF_ERROR(PlainValue(&bytes, &v));
    dict_.push_back(v);
  }
  has_dict_ = true;
  return Status::Ok();
}

Status ColumnCursor::PlainValue(std::string_view* bytes, std::string_view* value) const {
  const int32_t type = file_->columns[leaf_].physical_type;
  size_t n = MinPlainBytes(type);
  size_t skip = 0;
  if (type == static_cast<int32_t>(PhysicalType::kByteArray)) {
    if (bytes->size() < 4) return Status::Corruption("a BYTE_ARRAY length runs past the page");
    n = LoadLe32(bytes->data());
    skip = 4;
  }
  if (n > bytes->size() - skip)
    return Status::Corruption(
        fmt::format("a value of {} bytes runs past the page ({} left)", n, bytes->size() - skip));
  *value = bytes->substr(skip, n);
  bytes->remove_prefix(skip + n);
  return Status::Ok();
}

Status ColumnCursor::StartValues(int32_t encoding, std::string_view values) {
  const auto e = static_cast<Encoding>(encoding);
  if (e == Encoding::kPlain) {
    dict_encoded_ = false;
    plain_ = values;
    return Status::Ok();
  }
  if (e == Encoding::kPlainDictionary || e == Encoding::kRleDictionary) {
    if (!has_dict_)
      return Status::Corruption("a dictionary-encoded page without a dictionary page");
    dict_encoded_ = true;
    // One byte of index bit width, then the indices with no length prefix. A page of nulls
    // only may have no bytes at all; reading an index from it is then an error.
    const int width = values.empty() ? 0 : static_cast<uint8_t>(values[0]);
    if (width > 32) return Status::Corruption(fmt::format("dictionary index width {}", width));
    indices_ = RleBitPackedDecoder(values.empty() ? values : values.substr(1), width);
    return Status::Ok();
  }
  return Status::Unavailable(fmt::format(
      "unsupported encoding {} (this reader has PLAIN, PLAIN_DICTIONARY and RLE_DICTIONARY)",
      EncodingName(encoding)));
}

Status ColumnCursor::NextPage() {
  const int max_def = file_->columns[leaf_].nullable ? 1 : 0;
  for (;;) {
    if (pos_ >= chunk_.size())
      return Status::Corruption(
          fmt::format("the chunk's pages end before its {} values", meta_->num_values));
    size_t consumed = 0;
    auto h = ParsePageHeader(std::string_view(chunk_).substr(pos_), &consumed);
    if (!h.ok()) return h.status();
    pos_ += consumed;
    if (h->compressed_page_size < 0 || h->uncompressed_page_size < 0 ||
        static_cast<size_t>(h->compressed_page_size) > chunk_.size() - pos_)
      return Status::Corruption(fmt::format(
          "a page of {} compressed bytes ({} uncompressed) with {} bytes left in the chunk",
          h->compressed_page_size, h->uncompressed_page_size, chunk_.size() - pos_));
    const std::string_view body = std::string_view(chunk_).substr(pos_, h->compressed_page_size);
    pos_ += h->compressed_page_size;
    const uint64_t max = file_->options.max_page_bytes;
    switch (static_cast<PageType>(h->type)) {
      case PageType::kIndexPage:
        continue;
      case PageType::kDictionaryPage: {
        if (!h->dictionary_page_header)
          return Status::Corruption("a dictionary page without its header");
        if (has_dict_ || seen_data_page_)
          return Status::Corruption("a dictionary page that is not the chunk's first page");
        const auto& d = *h->dictionary_page_header;
        if (d.encoding != static_cast<int32_t>(Encoding::kPlain) &&
            d.encoding != static_cast<int32_t>(Encoding::kPlainDictionary))
          return Status::Unavailable("unsupported dictionary encoding " + EncodingName(d.encoding));
        auto bytes = Decompress(meta_->codec, body, h->uncompressed_page_size, max, &dict_buffer_);
        if (!bytes.ok()) return bytes.status();
        TRITONRL_RETURN_IF_ERROR(DecodeDictionary(*bytes, d.num_values));
        continue;
      }
      case PageType::kDataPage: {
        if (!h->data_page_header) return Status::Corruption("a data page without its header");
        const auto& d = *h->data_page_header;
        auto bytes = Decompress(meta_->codec, body, h->uncompressed_page_size, max, &page_buffer_);
        if (!bytes.ok()) return bytes.status();
        std::string_view rest = *bytes;
        if (max_def > 0) {
          if (d.definition_level_encoding != static_cast<int32_t>(Encoding::kRle))
            return Status::Unavailable("unsupported definition level encoding " +
                                       EncodingName(d.definition_level_encoding));
          if (rest.size() < 4) return Status::Corruption("definition levels truncated");
          const uint32_t n = LoadLe32(rest.data());
          if (n > rest.size() - 4)
            return Status::Corruption(
                fmt::format("definition levels of {} bytes in a page of {}", n, rest.size()));
          levels_ = RleBitPackedDecoder(rest.substr(4, n), 1);
          rest.remove_prefix(4 + n);
        }
        if (d.num_values < 0) return Status::Corruption("a page with a negative value count");
        TRITONRL_RETURN_IF_ERROR(StartValues(d.encoding, rest));
        page_left_ = d.num_values;
        break;
      }
      case PageType::kDataPageV2: {
        if (!h->data_page_header_v2) return Status::Corruption("a v2 data page without its header");
        const auto& d = *h->data_page_header_v2;
        if (d.repetition_levels_byte_length != 0)
          return Status::Unavailable("repetition levels in a flat column");
        const int64_t levels = d.definition_levels_byte_length;
        if (levels < 0 || static_cast<uint64_t>(levels) > body.size() ||
            levels > h->uncompressed_page_size)
          return Status::Corruption(
              fmt::format("definition levels of {} bytes in a page of {}", levels, body.size()));
        if (max_def > 0) levels_ = RleBitPackedDecoder(body.substr(0, levels), 1);
        // v2 keeps the levels outside the compressed part.
        const int32_t codec = d.is_compressed ? meta_->codec : 0;
        auto bytes = Decompress(codec, body.substr(levels), h->uncompressed_page_size - levels, max,
                                &page_buffer_);
        if (!bytes.ok()) return bytes.status();
        if (d.num_values < 0 || d.num_nulls < 0 || d.num_nulls > d.num_values)
          return Status::Corruption("a v2 page with inconsistent value and null counts");
        if (max_def == 0 && d.num_nulls > 0)
          return Status::Corruption("nulls in a required column");
        TRITONRL_RETURN_IF_ERROR(StartValues(d.encoding, *bytes));
        page_left_ = d.num_values;
        break;
      }
      default:
        return Status::Corruption(fmt::format("unknown page type {}", h->type));
    }
    seen_data_page_ = true;
    if (page_left_ > 0) return Status::Ok();
  }
}

Status ColumnCursor::Next(std::optional<std::string>* value) {
  while (page_left_ == 0) TRITONRL_RETURN_IF_ERROR(NextPage());
  --page_left_;
  const ColumnInfo& info = file_->columns[leaf_];
  if (info.nullable) {
    uint32_t level = 0;
    if (!levels_.Next(&level))
      return Status::Corruption("definition levels end early" +
                                (levels_.error().empty() ? "" : ": " + levels_.error()));
    if (level > 1) return Status::Corruption(fmt::format("definition level {} above 1", level));
    if (level == 0) {
      value->reset();
      return Status::Ok();
    }
  }
  std::string_view raw;
  if (dict_encoded_) {
    uint32_t index = 0;
    if (!indices_.Next(&index))
      return Status::Corruption("dictionary indices end early" +
                                (indices_.error().empty() ? "" : ": " + indices_.error()));
    if (index >= dict_.size())
      return Status::Corruption(
          fmt::format("dictionary index {} with {} entries", index, dict_.size()));
    raw = dict_[index];
  } else {
    TRITONRL_RETURN_IF_ERROR(PlainValue(&plain_, &raw));
  }
  switch (static_cast<PhysicalType>(info.physical_type)) {
    case PhysicalType::kInt32:
      *value = std::to_string(static_cast<int32_t>(LoadLe32(raw.data())));
      break;
    case PhysicalType::kInt64:
      *value = std::to_string(static_cast<int64_t>(LoadLe64(raw.data())));
      break;
    default:
      if (info.is_string && !ValidUtf8(raw))
        return Status::Corruption("a string value that is not valid UTF-8");
      *value = std::string(raw);
  }
  return Status::Ok();
}

Status ColumnCursor::Finish() const {
  if (page_left_ > 0 || pos_ < chunk_.size())
    return Status::Corruption(
        fmt::format("the chunk holds more values than the row group's {} rows", meta_->num_values));
  return Status::Ok();
}

}  // namespace tritonrl::parquet
