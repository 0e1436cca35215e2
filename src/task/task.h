// Task files in KernelBench layout and the suites that hold them.
//
// A task file defines `class Model`, `def get_inputs` and `def get_init_inputs`
// at module level. Optional literal metadata: DTYPE ("float32", "float16",
// "bfloat16"), ATOL, RTOL, VARIANTS ({name: {CONSTANT: value}}) and LEVEL.
// A suite is a folder: either with levelN/ subfolders (KernelBench layout, task
// id "levelN/<file stem>") or flat (task id "<file stem>"); both may mix. The
// file is parsed by pyast, never executed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "task/literal.h"

namespace tritonrl::task {

// A problem in a task file, located like a compiler diagnostic.
struct SourceError {
  std::string file;
  int line = 0;  // 1-based; 0 when the problem is the file as a whole
  std::string message;

  std::string ToString() const;  // "FILE:LINE: MESSAGE"
};

struct Variant {
  std::string name;
  Json overrides = Json::object();  // constant name -> value
};

struct TaskInfo {
  std::string id;    // "level1/19_ReLU", or "relu" in a flat folder
  std::string path;  // the file
  std::optional<int> level;
  std::string dtype = "float32";
  double atol = 1e-4;  // resolved: ATOL, else the dtype's default
  double rtol = 1e-4;
  bool explicit_atol = false;
  bool explicit_rtol = false;
  std::vector<Variant> variants;    // VARIANTS in file order, or one named "default"
  Json constants = Json::object();  // every module-level name bound to a literal
  std::string sha256;               // of the file's bytes
  int model_line = 0;
  int get_inputs_line = 0;
  int get_init_inputs_line = 0;
};

// Default tolerance of a DTYPE (fp32 1e-4, fp16/bf16 1e-2); nullopt for an unknown dtype.
std::optional<double> DefaultTolerance(std::string_view dtype);

// Checks and describes one task file's source. `errors` receives every problem
// found (syntax error, missing definition, malformed metadata); the result is
// an error iff at least one was found. `folder_level` is N for a levelN/ folder.
Result<TaskInfo> AnalyzeTaskSource(std::string_view source, const std::string& path,
                                   const std::string& id, std::optional<int> folder_level,
                                   std::vector<SourceError>* errors);

Result<TaskInfo> LoadTaskFile(const std::string& path, const std::string& id,
                              std::optional<int> folder_level, std::vector<SourceError>* errors);

struct Suite {
  std::string root;
  std::vector<TaskInfo> tasks;      // good files, ordered by level then task number then name
  std::vector<SourceError> errors;  // every problem in the files that are not in `tasks`
  int bad_files = 0;
};

// Loads every task file of a suite folder. Files whose name starts with "_" and
// subfolders other than levelN/ are ignored. Fails only if the folder cannot be
// read; bad files are reported in Suite::errors.
Result<Suite> LoadSuite(const std::string& dir);

const TaskInfo* FindTask(const Suite& suite, std::string_view id);

}  // namespace tritonrl::task
