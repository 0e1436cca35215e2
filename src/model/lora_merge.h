// `tritonrl lora merge`'s library side, without libtorch types (the CLI may not
// include ATen; see docs/model.md): a PEFT LoRA adapter directory (model/lora.h)
// folded into its base model and written as a full Hugging Face checkpoint.
#pragma once

#include <string>

#include "base/status.h"

namespace tritonrl::model {

struct LoraMergeSummary {
  std::string base_model;  // the adapter's base_model_name_or_path
  std::string dtype;       // the merged weights' dtype: the base's own (config.json torch_dtype)
  int64_t adapters = 0;    // projections merged (layers x targets)
};

// Loads the base (fp32) and the adapter, sets W <- W + (alpha / r) B A in fp32,
// rounds once to the base's dtype and writes OUT/config.json and
// OUT/model.safetensors, with the base's other files (tokenizer, side files)
// and then the adapter directory's (its tokenizer wins) carried over.
Result<LoraMergeSummary> MergeLoraCheckpoint(const std::string& adapter_dir,
                                             const std::string& out_dir);

}  // namespace tritonrl::model
