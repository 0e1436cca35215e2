// libFuzzer target for the Parquet reader: each input is a whole file (handed to the reader
// through an in-memory file), every readable column is read to the end. Any crash, sanitizer
// report, or allocation beyond libFuzzer's -rss_limit_mb is a bug; errors are expected.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "parquet/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("fuzz.parquet", 0);
  if (fd < 0) return 0;
  if (write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  auto reader = tritonrl::parquet::Reader::Open(path);
  if (reader.ok()) {
    std::vector<std::string> names;
    for (const auto& c : reader->columns()) {
      if (c.unsupported.empty()) names.push_back(c.name);
    }
    auto rows = reader->ReadColumns(names);
    if (rows.ok()) {
      std::vector<std::optional<std::string>> row;
      for (;;) {
        auto more = rows->Next(&row);
        if (!more.ok() || !*more) break;
      }
    }
  }
  close(fd);
  return 0;
}
