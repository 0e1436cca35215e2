#include "data/sft.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "base/file.h"
#include "task/task.h"
#include "verify/verify.h"

namespace tritonrl::data {
namespace fs = std::filesystem;
using nlohmann::json;

json SftRecord::ToJson() const {
  return {{"prompt", prompt}, {"completion", completion}, {"task", task}};
}

std::string PromptFor(std::string_view reference) {
  std::string ref(reference);
  if (!ref.empty() && ref.back() != '\n') ref += '\n';
  return fmt::format(
      "You write GPU kernels in Triton. Below is a PyTorch program: a module `Model` with its "
      "`forward`, and the functions `get_inputs()` and `get_init_inputs()` that make its "
      "inputs and constructor arguments.\n\n"
      "```python\n{}```\n\n"
      "Write a module `ModelNew` with the same constructor arguments and the same outputs "
      "(within the task's tolerance) whose computation is done by your own `@triton.jit` "
      "kernels: `forward` may only allocate outputs, reshape and launch kernels, never compute "
      "with torch operators. First reason about the plan (what to fuse, tiling, block sizes, "
      "masking, numerics) inside <think></think>, then give the complete Python file in a "
      "single ```python code block.\n",
      ref);
}

std::string CompletionFor(std::string_view plan, std::string_view code) {
  std::string body(code);
  if (!body.empty() && body.back() != '\n') body += '\n';
  return fmt::format("<think>\n{}\n</think>\n\n```python\n{}```\n", plan, body);
}

namespace {

// The first line of a module docstring, without a "Triton solution: " prefix.
std::string DocstringLine(const std::string& source) {
  static const std::regex re(R"re(^\s*(?:"""|''')([^\n]*?)(?:"""|'''|\n))re");
  std::smatch m;
  if (!std::regex_search(source, m, re)) return "";
  std::string line = m[1].str();
  const std::string prefix = "Triton solution: ";
  if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
  return line;
}

std::string GeneratedPlan(const std::string& task_doc, const std::string& solution_doc,
                          const std::string& dtype) {
  std::string plan = task_doc.empty() ? "" : "The task: " + task_doc + " ";
  plan += solution_doc.empty() ? "Write Triton kernels that do the whole computation."
                               : "Approach: " + solution_doc;
  if (!plan.empty() && plan.back() != '.') plan += '.';
  plan += fmt::format(
      " Masks guard every access because sizes need not be multiples of the block; "
      "accumulate in fp32 and cast to {} once at the store.",
      dtype);
  return plan;
}

Result<std::vector<SftRecord>> FromManifest(const std::string& dir, int* skipped) {
  const std::string manifest = (fs::path(dir) / "manifest.jsonl").string();
  std::ifstream in(manifest);
  if (!in) return Status::IoError("cannot read " + manifest);
  std::vector<SftRecord> out;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("task") || !j.contains("plan") || !j["task"].is_string() ||
        !j["plan"].is_string()) {
      return Status::ParseError(
          fmt::format("{}:{}: not a manifest record with task and plan", manifest, no));
    }
    const std::string id = j["task"];
    auto ref = ReadFile((fs::path(dir) / "tasks" / (id + ".py")).string());
    auto sol = ReadFile((fs::path(dir) / "solutions" / (id + ".py")).string());
    if (!ref.ok() || !sol.ok()) {
      ++*skipped;
      continue;
    }
    out.push_back({PromptFor(*ref), CompletionFor(j["plan"].get<std::string>(), *sol), id});
  }
  return out;
}

}  // namespace

Result<std::vector<SftRecord>> RecordsFromFolder(const std::string& dir, int* skipped) {
  *skipped = 0;
  if (fs::exists(fs::path(dir) / "manifest.jsonl")) return FromManifest(dir, skipped);
  auto suite = task::LoadSuite(dir);
  if (!suite.ok()) return suite.status();
  if (!suite->errors.empty()) return Status::ParseError(suite->errors.front().ToString());
  std::vector<SftRecord> out;
  for (const auto& t : suite->tasks) {
    auto sol = ReadFile((fs::path(dir) / "solutions" / (t.id + ".py")).string());
    if (!sol.ok()) {
      ++*skipped;
      continue;
    }
    auto ref = ReadFile(t.path);
    if (!ref.ok()) return ref.status();
    out.push_back(
        {PromptFor(*ref),
         CompletionFor(GeneratedPlan(DocstringLine(*ref), DocstringLine(*sol), t.dtype), *sol),
         t.id});
  }
  return out;
}

Result<KernelBookRow> ParseKernelBookLine(std::string_view line, const std::string& file,
                                          int line_no) {
  const std::string where = fmt::format("{}:{}", file, line_no);
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded()) return Status::ParseError(where + ": not valid JSON");
  if (!j.is_object()) return Status::ParseError(where + ": a row must be a JSON object");
  KernelBookRow row;
  for (auto [name, field] :
       {std::pair{"python_code", &row.python_code}, std::pair{"triton_code", &row.triton_code},
        std::pair{"entry_point", &row.entry_point}}) {
    if (!j.contains(name))
      return Status::ParseError(fmt::format("{}: missing field '{}'", where, name));
    if (!j[name].is_string())
      return Status::ParseError(fmt::format("{}: field '{}' must be a string", where, name));
    *field = j[name].get<std::string>();
  }
  if (j.contains("repo_name") && j["repo_name"].is_string()) row.repo_name = j["repo_name"];
  if (j.contains("uuid")) {
    row.uuid = j["uuid"].is_string() ? j["uuid"].get<std::string>() : j["uuid"].dump();
  }
  TRITONRL_RETURN_IF_ERROR(CheckKernelBookRow(row, where));
  return row;
}

Status CheckKernelBookRow(const KernelBookRow& row, const std::string& where) {
  // The entry point becomes part of regular expressions and class names.
  static const std::regex ident(R"([A-Za-z_][A-Za-z0-9_]*)");
  if (!std::regex_match(row.entry_point, ident))
    return Status::ParseError(where + ": entry_point is not a Python identifier");
  return Status::Ok();
}

Result<SftRecord> KernelBookRecord(const KernelBookRow& row, std::string* reject) {
  reject->clear();
  const std::regex model_class("(^|\\n)class\\s+" + row.entry_point + "\\b");
  const std::regex new_class("(^|\\n)class\\s+" + row.entry_point + "New\\b");
  if (!std::regex_search(row.python_code, model_class)) {
    *reject = "format.no_entry_point_class";
    return Status::InvalidArgument("python_code has no class " + row.entry_point);
  }
  if (!std::regex_search(row.triton_code, new_class)) {
    *reject = "format.no_new_class";
    return Status::InvalidArgument("triton_code has no class " + row.entry_point + "New");
  }
  // Our layout names the classes Model and ModelNew; the verifier looks for a class ModelNew, so
  // the classes are renamed (every whole-word use, e.g. super(X, self)), not aliased.
  std::string reference =
      std::regex_replace(row.python_code, std::regex("\\b" + row.entry_point + "\\b"), "Model");
  std::string code = std::regex_replace(row.triton_code,
                                        std::regex("\\b" + row.entry_point + "New\\b"), "ModelNew");
  const verify::Verdict v = verify::VerifyCode(code, {});
  if (!v.valid) {
    *reject = v.violations.empty() ? v.outcome : v.violations.front().rule;
    return Status::InvalidArgument("the static verifier rejects the code: " + *reject);
  }
  static const std::regex kernel_def(R"(@triton\.jit\s*\ndef\s+([A-Za-z_][A-Za-z0-9_]*))");
  std::vector<std::string> kernels;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kernel_def);
       it != std::sregex_iterator(); ++it) {
    kernels.push_back((*it)[1].str());
  }
  std::string plan = fmt::format("Port {} to Triton", row.entry_point);
  if (!kernels.empty()) {
    plan += fmt::format(" with {} kernel{} ({})", kernels.size(), kernels.size() == 1 ? "" : "s",
                        fmt::join(kernels, ", "));
  }
  plan +=
      ": each kernel fuses a run of the module's elementwise and reduction steps, works on "
      "flat blocks of the output with a mask on the tail, and `forward` only allocates "
      "buffers and launches.";
  const std::string id = "kernelbook/" + (row.uuid.empty() ? row.entry_point : row.uuid);
  return SftRecord{PromptFor(reference), CompletionFor(plan, code), id};
}

}  // namespace tritonrl::data
