#include "base/runner_locate.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

namespace tritonrl {
namespace fs = std::filesystem;

namespace {

bool HasScript(const fs::path& dir, const std::string& script) {
  std::error_code ec;
  return fs::is_regular_file(dir / "tritonrl_runner" / script, ec);
}

bool Executable(const fs::path& p) {
  return access(p.c_str(), X_OK) == 0 && !fs::is_directory(p);
}

}  // namespace

Result<std::string> LocateRunner(const std::string& hint, const std::string& script) {
  std::vector<fs::path> tries;
  if (!hint.empty()) {
    if (!HasScript(hint, script))
      return Status::NotFound(hint + ": no tritonrl_runner/" + script + " there");
    return fs::absolute(hint).string();
  }
  if (const char* env = std::getenv("TRITONRL_RUNNER_DIR"); env != nullptr && *env != '\0')
    tries.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    tries.push_back(exe.parent_path() / "python");
    tries.push_back(exe.parent_path().parent_path() / "python");
  }
  tries.push_back(fs::path(TRITONRL_SOURCE_DIR) / "python");
  for (const auto& p : tries) {
    if (HasScript(p, script)) return fs::absolute(p).string();
  }
  return Status::NotFound("cannot find the runner (tritonrl_runner/" + script +
                          "); pass --runner DIR or set TRITONRL_RUNNER_DIR");
}

Result<std::string> LocateInterpreter(const std::string& hint, const std::string& runner_dir) {
  std::string name = hint;
  if (name.empty()) {
    if (const char* env = std::getenv("TRITONRL_PYTHON"); env != nullptr && *env != '\0')
      name = env;
  }
  if (name.empty()) {
    for (const fs::path& venv : {fs::path(runner_dir).parent_path() / ".venv" / "bin" / "python",
                                 fs::path(TRITONRL_SOURCE_DIR) / ".venv" / "bin" / "python"}) {
      if (Executable(venv)) return venv.string();
    }
    name = "python3";
  }
  if (name.find('/') != std::string::npos) {
    if (!Executable(name)) return Status::NotFound(name + ": not an executable interpreter");
    return fs::absolute(name).string();
  }
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (Executable(p)) return fs::absolute(p).string();
  }
  return Status::NotFound(name + ": not found on PATH");
}

}  // namespace tritonrl
