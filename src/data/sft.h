// SFT records: the one KernelBench-style instruction template (reference code in,
// `ModelNew` in Triton out) and TritonRL's completion format (`<think>plan</think>`
// then one fenced python block), built from a synthetic task folder (manifest.jsonl,
// tasks/, solutions/) or a built-in suite (levelN/ with solutions/levelN/), and the
// KernelBook import. The chat template of the target model is applied at training
// time, not here. Pure functions plus file reads; callable from any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tritonrl::data {

struct SftRecord {
  std::string prompt;
  std::string completion;
  std::string task;
  nlohmann::json ToJson() const;  // {"prompt", "completion", "task"}
};

// The instruction prompt for a reference program (docs/data.md shows it in full).
std::string PromptFor(std::string_view reference);
// "<think>\nPLAN\n</think>\n\n```python\nCODE```\n" (CODE ends with a newline).
std::string CompletionFor(std::string_view plan, std::string_view code);

// Records of a task folder: a `data synth` output (manifest.jsonl: plans from the manifest) or a
// suite with solutions/ beside its levelN/ folders (plans from each solution's docstring). Tasks
// without a solution are skipped and counted in `skipped`.
Result<std::vector<SftRecord>> RecordsFromFolder(const std::string& dir, int* skipped);

// One KernelBook row (GPUMODE/KernelBook): the PyTorch module source, the Triton (Inductor)
// source whose `<entry_point>New` module calls the kernels, and provenance.
struct KernelBookRow {
  std::string python_code;
  std::string triton_code;
  std::string entry_point;
  std::string repo_name;
  std::string uuid;
};

// Parses one JSONL line; errors name `file:line` and the missing or mistyped field.
Result<KernelBookRow> ParseKernelBookLine(std::string_view line, const std::string& file,
                                          int line_no);

// The checks every row passes whatever file it came from; `where` starts the error message.
Status CheckKernelBookRow(const KernelBookRow& row, const std::string& where);

struct ImportStats {
  int rows = 0;
  int kept = 0;
  std::map<std::string, int> rejected;  // reason (a static rule id, or a format problem) -> rows
};

// Converts a row to an SFT record: the classes are renamed to Model and ModelNew (our task and
// candidate layout); the static verifier (standard policy) must accept the code, else the first
// violation's rule id (or a format.* reason) is returned in `reject`.
Result<SftRecord> KernelBookRecord(const KernelBookRow& row, std::string* reject);

// Reads every row of `file` (JSONL, or Parquet when the name ends in `.parquet`) and converts
// the rows, appending the kept records to `*records` in file order. A malformed row stops the
// import with an error naming `FILE:LINE` (JSONL) or `FILE: row group R, ...` (Parquet); a file
// that cannot be read at all is kIoError. Both formats give the same records for the same rows.
Result<ImportStats> ImportKernelBook(const std::string& file, std::vector<SftRecord>* records);

}  // namespace tritonrl::data
