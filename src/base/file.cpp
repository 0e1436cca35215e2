#include "base/file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tritonrl {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IoError(path + ": read failed");
  return ss.str();
}

Status WriteFileAtomic(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::IoError(tmp + ": cannot create: " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) return Status::IoError(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Status::IoError(path + ": rename failed: " + std::strerror(errno));
  return Status::Ok();
}

std::string TempFolder() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

}  // namespace tritonrl
