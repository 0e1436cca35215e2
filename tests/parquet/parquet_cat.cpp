// Test tool: prints each Parquet file given as one JSON line, {"file", "columns", "rows"} with
// every readable column (values as the reader gives them: strings, integers in decimal, null),
// or {"file", "error"}. The tests compare it with pyarrow's reading of the same file and feed it
// corrupted copies; many files go through one process so that a fuzz run stays cheap, and a
// crash on any of them fails the test.
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parquet/reader.h"

namespace {

nlohmann::json Cat(const std::string& path) {
  using nlohmann::json;
  auto reader = tritonrl::parquet::Reader::Open(path);
  if (!reader.ok()) return {{"file", path}, {"error", reader.status().message()}};
  std::vector<std::string> names;
  json unsupported = json::object();
  for (const auto& c : reader->columns()) {
    if (c.unsupported.empty()) {
      names.push_back(c.name);
    } else {
      unsupported[c.name] = c.unsupported;
    }
  }
  auto rows = reader->ReadColumns(names);
  if (!rows.ok()) return {{"file", path}, {"error", rows.status().message()}};
  json out_rows = json::array();
  std::vector<std::optional<std::string>> row;
  for (;;) {
    auto more = rows->Next(&row);
    if (!more.ok()) return {{"file", path}, {"error", more.status().message()}};
    if (!*more) break;
    json r = json::array();
    for (const auto& v : row) r.push_back(v ? json(*v) : json(nullptr));
    out_rows.push_back(std::move(r));
  }
  return {{"file", path},
          {"columns", names},
          {"unsupported", unsupported},
          {"num_rows", reader->num_rows()},
          {"rows", out_rows}};
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    // Binary (non-UTF8) columns may hold any bytes: replace them for printing only.
    const std::string line =
        Cat(argv[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
  }
  return 0;
}
