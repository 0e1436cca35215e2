#include "eval/worker_spawn.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

namespace tritonrl::eval {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> WorkerEnv(const EngineConfig& cfg, const std::string& dir) {
  std::vector<std::string> env = {
      "HOME=" + dir + "/home",
      "TMPDIR=" + dir + "/tmp",
      "TRITON_CACHE_DIR=" + dir + "/triton-cache",
      "LANG=C.UTF-8",
      "PYTHONNOUSERSITE=1",
  };
  const char* path = std::getenv("PATH");
  env.push_back(std::string("PATH=") + (path ? path : "/usr/bin:/bin"));
  if (cfg.device == "cpu") {
    env.push_back("TRITON_INTERPRET=1");
    env.push_back("CUDA_VISIBLE_DEVICES=");
    env.push_back("OMP_NUM_THREADS=1");
  } else {
    for (const char* pass :
         {"CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CUDA_HOME", "TRITON_PTXAS_PATH"}) {
      if (const char* v = std::getenv(pass)) env.push_back(std::string(pass) + "=" + v);
    }
  }
  for (const auto& e : cfg.extra_env) env.push_back(e);
  return env;
}

}  // namespace

Result<std::string> MakeWorkDir(const std::string& parent) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  std::string tmpl = (fs::path(parent) / "w-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr)
    return Status::IoError(fmt::format("{}: cannot create a work folder", parent));
  for (const char* sub : {"tmp", "home", "triton-cache"})
    fs::create_directory(fs::path(tmpl) / sub, ec);
  return tmpl;
}

SpawnSpec WorkerSpawnSpec(const EngineConfig& cfg, const std::string& dir,
                          const std::string& script, const std::vector<std::string>& args,
                          const std::string& log_name) {
  SpawnSpec spec;
  spec.argv = {cfg.python, "-I", "-B",
               (fs::path(cfg.runner_dir) / "tritonrl_runner" / script).string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = WorkerEnv(cfg, dir);
  spec.cwd = dir + "/tmp";
  spec.log_path = dir + "/" + log_name;
  spec.writable_dirs = {dir + "/tmp", dir + "/home", dir + "/triton-cache"};
  spec.sandbox = cfg.sandbox;
  spec.seccomp_program = cfg.seccomp_program.empty() ? nullptr : &cfg.seccomp_program;
  return spec;
}

}  // namespace tritonrl::eval
