// KernelBench's Triton-backend prompt, built at run time from the user's KernelBench checkout
// (ScalingIntelligence/KernelBench), so `tritonrl bench` figures compare with published tables
// without copying a sentence of KernelBench into this repository.
//
// KernelBench (checked at 423217d) builds its prompts in src/kernelbench/prompt_constructor_toml.py
// from the templates of src/kernelbench/prompts/prompts.toml: an option's `components` list
// (one_shot: problem_statement, examples_block, arch_block, precision_note, instruction), each a
// template under [shared] or [templates.common], the backend's display name and example file
// (`[backends.triton] one_shot_new_arch`, with `[shared] few_shot_example_arch` as the input),
// the precision's display name; then Python's str.format over the joined text. This module
// follows that construction step by step (RenderKernelBenchPrompt says where each step comes
// from), reading every template and example from the checkout. The TOML file is parsed by
// Python's own tomllib (the runner's interpreter), never by us: the one place a TOML subtlety
// could differ. The hardware blocks (which run KernelBench's gpu_specs.py) are not supported:
// a prompt that needs them is an error naming --prompt-template, which takes a finished template
// instead. Pure apart from reading the checkout and one short Python child: any thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tritonrl::data {

struct KernelBenchPrompt {
  std::string checkout;  // the KernelBench repository root
  std::string commit;    // its git HEAD (40 hex digits), "" when not a git checkout
  std::string backend = "triton";
  std::string option = "one_shot";  // zero_shot, one_shot or few_shot
  nlohmann::json toml;              // prompts.toml as tomllib read it
  nlohmann::json files;             // path relative to the checkout -> SHA-256, of each file read
  std::string examples_intro, examples_entries;  // rendered once (they depend on no task)
};

// Reads prompts.toml (through `python`'s tomllib) and the example files of `backend`/`option`.
// NotFound naming the file for a checkout without them; InvalidArgument for an unknown backend
// or option, or one that needs the hardware blocks.
Result<KernelBenchPrompt> LoadKernelBenchPrompt(const std::string& checkout,
                                                const std::string& python,
                                                const std::string& backend = "triton",
                                                const std::string& option = "one_shot");

// The prompt for one reference file. `precision` is fp32, fp16 or bf16 (KernelBench's default:
// fp32).
Result<std::string> RenderKernelBenchPrompt(const KernelBenchPrompt& prompt,
                                            const std::string& ref_arch_src,
                                            const std::string& precision = "fp32");

// Python's str.format for named fields only (`{name}`, `{{`, `}}`), as KernelBench's templates
// use it. InvalidArgument naming the field for a name not in `context`, or a positional field,
// conversion or format spec (which the templates do not use and we do not emulate).
Result<std::string> FormatNamed(const std::string& text, const nlohmann::json& context);

// A git checkout's HEAD commit, following one symbolic ref (loose or packed); "" if none.
std::string GitHead(const std::string& checkout);

}  // namespace tritonrl::data
