// Synthetic training tasks: composes operators (pointwise chains with broadcasting,
// row/column reductions, softmax-like rows, layer/RMS norms, matmul with fused
// epilogues, row gathers) into task files in KernelBench layout with our metadata,
// each with a Triton solution drawn from several template styles and a short plan.
// Generation is pure and deterministic for a seed (no I/O); verification of the
// solutions (data/verified.h) and the null-model audit are done by the caller
// (src/cli/cmd_data.cpp, the demo).
// Callable from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tritonrl::data {

struct SynthTask {
  std::string id;           // file stem, "s0007_row_reduce_sum_tanh"
  std::string family;       // pointwise, row_reduce, col_reduce, softmax, norm, matmul, gather
  std::string pattern;      // the composition, e.g. "row_reduce/sum(tanh)"; the held-out unit
  std::string shape_class;  // "pow2" or "odd" (medium columns not a multiple of 128)
  std::string dtype;        // float32, float16, bfloat16
  std::string style;        // the solution template's style, e.g. "loop/BLOCK=512"
  std::string split;        // train, heldout_pattern, heldout_shape
  std::string plan;         // plain-words plan of the solution
  std::string reference;    // task file text (Model, get_inputs, get_init_inputs, metadata)
  std::string solution;     // ModelNew in Triton
};

// The task's line of a `data synth` folder's manifest.jsonl (docs/data.md): task, family,
// pattern, dtype, style, shape_class, split, plan and whether its solution was verified.
nlohmann::json ManifestRecord(const SynthTask& t, bool verified);

// The task ids of a `data synth` folder's manifest.jsonl, in file order, of one split (train,
// heldout_pattern, heldout_shape; empty: every split). A line that is not a record with a task
// fails naming FILE:LINE. The one reader of the manifest's ids (GRPO's pool, calibration).
Result<std::vector<std::string>> ManifestTaskIds(const std::string& dir, const std::string& split);

// A task folder as training and calibration read it: a `data synth` output (its suite is
// DIR/tasks, its tasks the manifest's `split`) or a suite folder (no id list: every task).
struct TaskFolder {
  std::string suite_dir;
  std::optional<std::vector<std::string>> ids;
};
Result<TaskFolder> OpenTaskFolder(const std::string& dir, const std::string& split);

// The split of a pattern and shape class. Held-out patterns are a fixed ~1/5 of the
// compositions chosen by a hash of the pattern text, independent of the seed, so a
// pattern is never in training for one seed and held out for another.
std::string SplitFor(const std::string& pattern, const std::string& shape_class);

// N tasks from `seed`; the same (n, seed) always gives the same tasks, byte for byte.
// Families are drawn in turn, so any n >= 7 covers every family.
std::vector<SynthTask> GenerateTasks(int n, std::uint64_t seed);

// Every family name, in the order GenerateTasks cycles through them.
const std::vector<std::string>& Families();

}  // namespace tritonrl::data
