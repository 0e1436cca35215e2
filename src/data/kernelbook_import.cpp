// `data import kernelbook`: KernelBook rows from JSONL or Parquet, one conversion for both.
#include <fmt/format.h>

#include <fstream>
#include <optional>

#include "data/sft.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"

namespace tritonrl::data {

namespace {

void Convert(const KernelBookRow& row, ImportStats* stats, std::vector<SftRecord>* records) {
  ++stats->rows;
  std::string reject;
  auto rec = KernelBookRecord(row, &reject);
  if (!rec.ok()) {
    ++stats->rejected[reject];
    return;
  }
  ++stats->kept;
  records->push_back(std::move(*rec));
}

Result<ImportStats> ImportJsonl(const std::string& file, std::vector<SftRecord>* records) {
  std::ifstream in(file);
  if (!in) return Status::IoError("cannot read " + file);
  ImportStats stats;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto row = ParseKernelBookLine(line, file, no);
    if (!row.ok()) return row.status();
    Convert(*row, &stats, records);
  }
  return stats;
}

// The Parquet columns mirror the JSONL fields: python_code, triton_code and entry_point must be
// non-null string columns; repo_name is kept when it is a string; uuid is kept as text (an
// integer in decimal, a null as "null"), as the JSONL path keeps a non-string uuid as its JSON.
Result<ImportStats> ImportParquet(const std::string& file, std::vector<SftRecord>* records) {
  auto reader = parquet::Reader::Open(file);
  if (!reader.ok()) return reader.status();
  const auto& columns = reader->columns();
  auto find = [&](const std::string& name) -> const parquet::ColumnInfo* {
    for (const auto& c : columns) {
      if (c.name == name) return &c;
    }
    return nullptr;
  };
  std::vector<std::string> names = {"python_code", "triton_code", "entry_point"};
  for (const auto& name : names) {
    const auto* c = find(name);
    if (c && c->physical_type != static_cast<int32_t>(parquet::PhysicalType::kByteArray))
      return Status::ParseError(fmt::format("{}: column '{}' must hold strings, it holds {}", file,
                                            name, parquet::PhysicalTypeName(c->physical_type)));
  }
  const auto* repo = find("repo_name");
  const bool has_repo =
      repo && repo->physical_type == static_cast<int32_t>(parquet::PhysicalType::kByteArray);
  if (has_repo) names.push_back("repo_name");
  const bool has_uuid = find("uuid") != nullptr;
  if (has_uuid) names.push_back("uuid");
  auto rows = reader->ReadColumns(names);
  if (!rows.ok()) return rows.status();
  ImportStats stats;
  std::vector<std::optional<std::string>> v;
  for (;;) {
    auto more = rows->Next(&v);
    if (!more.ok()) return more.status();
    if (!*more) break;
    const std::string where =
        fmt::format("{}: row group {}, row {}", file, rows->row_group(), rows->row_in_group());
    for (size_t i = 0; i < 3; ++i) {
      if (!v[i]) return Status::ParseError(fmt::format("{}: field '{}' is null", where, names[i]));
    }
    KernelBookRow row{*v[0], *v[1], *v[2], "", ""};
    if (has_repo && v[3]) row.repo_name = *v[3];
    if (has_uuid) row.uuid = v.back() ? *v.back() : "null";
    TRITONRL_RETURN_IF_ERROR(CheckKernelBookRow(row, where));
    Convert(row, &stats, records);
  }
  return stats;
}

}  // namespace

Result<ImportStats> ImportKernelBook(const std::string& file, std::vector<SftRecord>* records) {
  const std::string_view ext = ".parquet";
  if (file.size() >= ext.size() && file.compare(file.size() - ext.size(), ext.size(), ext) == 0)
    return ImportParquet(file, records);
  return ImportJsonl(file, records);
}

}  // namespace tritonrl::data
