#include "task/task.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <system_error>
#include <tuple>

#include "base/file.h"
#include "base/sha256.h"
#include "pyast/parse.h"

namespace tritonrl::task {
namespace {

namespace fs = std::filesystem;
using pyast::As;

struct Binding {
  int line = 0;
  bool is_class = false;
  bool is_function = false;
};

// The metadata names whose value must be a literal of a given shape.
bool IsMetadataName(const std::string& name) {
  return name == "DTYPE" || name == "ATOL" || name == "RTOL" || name == "VARIANTS" ||
         name == "LEVEL";
}

std::optional<std::string> CanonicalDtype(std::string_view d) {
  if (d == "float32" || d == "fp32") return "float32";
  if (d == "float16" || d == "fp16" || d == "half") return "float16";
  if (d == "bfloat16" || d == "bf16") return "bfloat16";
  return std::nullopt;
}

// Leading decimal number of a file stem ("19_ReLU" -> 19), for natural ordering.
long LeadingNumber(const std::string& stem) {
  size_t i = 0;
  while (i < stem.size() && i < 9 && stem[i] >= '0' && stem[i] <= '9') ++i;
  return i == 0 ? -1 : std::stol(stem.substr(0, i));
}

std::optional<int> LevelOfFolder(const std::string& name) {
  if (name.size() <= 5 || name.compare(0, 5, "level") != 0 || name.size() > 14) return std::nullopt;
  for (size_t i = 5; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
  }
  return std::stoi(name.substr(5));
}

}  // namespace

std::string SourceError::ToString() const {
  return line > 0 ? file + ":" + std::to_string(line) + ": " + message : file + ": " + message;
}

std::optional<double> DefaultTolerance(std::string_view dtype) {
  auto d = CanonicalDtype(dtype);
  if (!d) return std::nullopt;
  return *d == "float32" ? 1e-4 : 1e-2;
}

namespace {

// Where a task file's problems go: FILE:LINE messages.
struct ErrorSink {
  const std::string& path;
  std::vector<SourceError>* errors;
  void Add(int line, std::string message) { errors->push_back({path, line, std::move(message)}); }
};

// The top level of a task file: how each name was bound last, and the metadata assignments.
struct TopLevel {
  std::map<std::string, Binding> bound;             // top-level names: where and how bound last
  std::map<std::string, int> metadata_line;         // metadata name -> line of its assignment
  std::map<std::string, std::string> metadata_why;  // why a metadata value is not a literal
};

// Walks the module's statements in order: classes, functions and assignments (literal values
// into info.constants, as a later binding replaces an earlier one).
TopLevel BindTopLevel(const pyast::Module& module, TaskInfo& info) {
  TopLevel t;
  auto bind_value = [&](const pyast::ExprNode* target, const pyast::ExprNode* value, int line) {
    const auto* name = As<pyast::Name>(target);
    if (name == nullptr) return;
    std::string key(name->id);
    t.bound[key] = {line, false, false};
    std::string why;
    auto v = EvalLiteral(value, info.constants, &why);
    if (v) {
      info.constants[key] = std::move(*v);
    } else {
      info.constants.erase(key);
    }
    if (IsMetadataName(key)) {
      t.metadata_line[key] = line;
      if (!v) {
        t.metadata_why[key] = why;
      } else {
        t.metadata_why.erase(key);
      }
    }
  };
  for (const pyast::StmtNode* stmt : module.body) {
    int line = stmt->pos.lineno;
    if (const auto* c = As<pyast::ClassDef>(stmt)) {
      t.bound[std::string(c->name)] = {line, true, false};
      info.constants.erase(std::string(c->name));
    } else if (const auto* f = As<pyast::FunctionDef>(stmt)) {
      t.bound[std::string(f->name)] = {line, false, true};
      info.constants.erase(std::string(f->name));
    } else if (const auto* af = As<pyast::AsyncFunctionDef>(stmt)) {
      t.bound[std::string(af->name)] = {line, false, false};
      info.constants.erase(std::string(af->name));
    } else if (const auto* a = As<pyast::Assign>(stmt)) {
      for (const pyast::ExprNode* target : a->targets) bind_value(target, a->value, line);
    } else if (const auto* an = As<pyast::AnnAssign>(stmt)) {
      if (an->value != nullptr) bind_value(an->target, an->value, line);
    }
  }
  return t;
}

// The required definitions: class Model, def get_inputs(), def get_init_inputs().
void CheckRequired(const TopLevel& t, TaskInfo& info, ErrorSink& sink) {
  auto require = [&](const std::string& name, bool want_class, int* line_out) {
    auto it = t.bound.find(name);
    std::string what = want_class ? "class " + name : "def " + name + "()";
    if (it == t.bound.end()) {
      std::string hint;
      if (name == "Model" && t.bound.count("ModelNew")) {
        hint = " (the file defines ModelNew: is it a solution rather than a task?)";
      }
      sink.Add(1, "missing top-level `" + what + "`" + hint);
      return;
    }
    if (want_class ? !it->second.is_class : !it->second.is_function) {
      sink.Add(it->second.line,
               "`" + name + "` must be a top-level " + (want_class ? "class" : "function"));
      return;
    }
    *line_out = it->second.line;
  };
  require("Model", true, &info.model_line);
  require("get_inputs", false, &info.get_inputs_line);
  require("get_init_inputs", false, &info.get_init_inputs_line);
}

// DTYPE, ATOL, RTOL and LEVEL: literals of the right kind, the tolerances defaulting by dtype.
void ReadScalarMetadata(TopLevel& t, std::optional<int> folder_level, TaskInfo& info,
                        ErrorSink& sink) {
  for (const auto& [name, why] : t.metadata_why) {
    sink.Add(t.metadata_line[name], name + " must be a literal: " + why);
  }
  const Json& c = info.constants;
  if (c.contains("DTYPE")) {
    auto d = c["DTYPE"].is_string() ? CanonicalDtype(c["DTYPE"].get<std::string>()) : std::nullopt;
    if (!d) {
      sink.Add(t.metadata_line["DTYPE"],
               "DTYPE must be \"float32\", \"float16\" or \"bfloat16\", not " + c["DTYPE"].dump());
    } else {
      info.dtype = *d;
    }
  }
  double default_tol = *DefaultTolerance(info.dtype);
  info.atol = info.rtol = default_tol;
  for (const char* name : {"ATOL", "RTOL"}) {
    if (!c.contains(name)) continue;
    const Json& v = c[name];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
      sink.Add(t.metadata_line[name],
               std::string(name) + " must be a finite number >= 0, not " + v.dump());
      continue;
    }
    (std::string_view(name) == "ATOL" ? info.atol : info.rtol) = v.get<double>();
    (std::string_view(name) == "ATOL" ? info.explicit_atol : info.explicit_rtol) = true;
  }
  info.level = folder_level;
  if (c.contains("LEVEL")) {
    const Json& v = c["LEVEL"];
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 1000) {
      sink.Add(t.metadata_line["LEVEL"], "LEVEL must be a positive integer, not " + v.dump());
    } else if (folder_level && *folder_level != v.get<int64_t>()) {
      sink.Add(t.metadata_line["LEVEL"], "LEVEL = " + v.dump() + " but the file is in level" +
                                             std::to_string(*folder_level) + "/");
    } else {
      info.level = static_cast<int>(v.get<int64_t>());
    }
  }
}

// VARIANTS: {name: {CONSTANT: value}} over the file's own module-level constants; none gives
// one "default" variant.
void ReadVariants(TopLevel& t, TaskInfo& info, ErrorSink& sink) {
  const Json& c = info.constants;
  if (c.contains("VARIANTS") && !(c["VARIANTS"].is_object() && c["VARIANTS"].empty())) {
    const Json& v = c["VARIANTS"];
    int line = t.metadata_line["VARIANTS"];
    if (!v.is_object()) {
      sink.Add(line, "VARIANTS must be a dict {name: {CONSTANT: value}}, not " + v.dump());
    } else {
      for (const auto& [vname, overrides] : v.items()) {
        if (!overrides.is_object()) {
          sink.Add(line, "VARIANTS[\"" + vname + "\"] must be a dict of constant overrides");
          continue;
        }
        for (const auto& [key, value] : overrides.items()) {
          if (!c.contains(key) || IsMetadataName(key)) {
            sink.Add(line, "VARIANTS[\"" + vname + "\"] sets `" + key +
                               "`, which is not a module-level constant of the file");
          }
        }
        info.variants.push_back({vname, overrides});
      }
    }
  }
  if (info.variants.empty()) info.variants.push_back({"default", Json::object()});
}

}  // namespace

Result<TaskInfo> AnalyzeTaskSource(std::string_view source, const std::string& path,
                                   const std::string& id, std::optional<int> folder_level,
                                   std::vector<SourceError>* errors) {
  const size_t errors_before = errors->size();
  ErrorSink sink{path, errors};
  pyast::SyntaxError syntax;
  auto parsed = pyast::ParseModule(source, path, &syntax);
  if (!parsed.ok()) {
    sink.Add(syntax.line, "SyntaxError: " + syntax.message);
    return Status::ParseError(errors->back().ToString());
  }
  TaskInfo info;
  info.id = id;
  info.path = path;
  info.sha256 = Sha256Hex(source);
  TopLevel top = BindTopLevel(*parsed->module, info);
  CheckRequired(top, info, sink);
  ReadScalarMetadata(top, folder_level, info, sink);
  ReadVariants(top, info, sink);
  if (errors->size() > errors_before) {
    return Status::InvalidArgument((*errors)[errors_before].ToString());
  }
  return info;
}

Result<TaskInfo> LoadTaskFile(const std::string& path, const std::string& id,
                              std::optional<int> folder_level, std::vector<SourceError>* errors) {
  auto text = ReadFile(path);
  if (!text.ok()) {
    errors->push_back({path, 0, text.status().message()});
    return text.status();
  }
  return AnalyzeTaskSource(*text, path, id, folder_level, errors);
}

Result<Suite> LoadSuite(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::NotFound(dir + ": not a directory");
  }
  struct Candidate {
    int group;  // 0 for files at the top, N for levelN/
    long number;
    std::string stem;
    std::string path;
    std::string id;
    std::optional<int> level;
  };
  std::vector<Candidate> found;
  auto scan = [&](const fs::path& folder, std::optional<int> level) -> Status {
    std::error_code iter_ec;
    for (fs::directory_iterator it(folder, iter_ec), end; !iter_ec && it != end;
         it.increment(iter_ec)) {
      const fs::path& p = it->path();
      std::string name = p.filename().string();
      if (p.extension() != ".py" || name.empty() || name[0] == '_' || name[0] == '.') continue;
      std::error_code file_ec;
      if (!fs::is_regular_file(p, file_ec)) continue;
      std::string stem = p.stem().string();
      std::string id = level ? folder.filename().string() + "/" + stem : stem;
      found.push_back({level.value_or(0), LeadingNumber(stem), stem, p.string(), id, level});
    }
    if (iter_ec) return Status::IoError(folder.string() + ": " + iter_ec.message());
    return Status::Ok();
  };
  fs::path root(dir);
  if (Status s = scan(root, std::nullopt); !s.ok()) return s;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code dir_ec;
    if (!it->is_directory(dir_ec)) continue;
    if (auto level = LevelOfFolder(it->path().filename().string())) {
      if (Status s = scan(it->path(), level); !s.ok()) return s;
    }
  }
  if (ec) return Status::IoError(dir + ": " + ec.message());
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.group, a.number, a.stem) < std::tie(b.group, b.number, b.stem);
  });

  Suite suite;
  suite.root = dir;
  for (const Candidate& cand : found) {
    auto info = LoadTaskFile(cand.path, cand.id, cand.level, &suite.errors);
    if (info.ok()) {
      suite.tasks.push_back(std::move(*info));
    } else {
      ++suite.bad_files;
    }
  }
  return suite;
}

const TaskInfo* FindTask(const Suite& suite, std::string_view id) {
  for (const TaskInfo& t : suite.tasks) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

}  // namespace tritonrl::task
