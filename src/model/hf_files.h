// The Hugging Face files beside the weights that make a checkpoint a complete
// model for transformers and the engines built on it (TRL, vLLM):
// tokenizer_config.json (eos, pad, chat template), generation_config.json
// (stop ids, sampling defaults) and special_tokens_map.json, generated from the
// checkpoint's own tokenizer; and the other files of an input model directory,
// which a checkpoint carries unchanged. No libtorch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "model/end_of_turn.h"
#include "model/tokenizer.h"

namespace tritonrl::model {

// ApplyQwen3ChatTemplate as a Jinja chat template: transformers'
// apply_chat_template renders the same text for the same messages, with
// add_generation_prompt and with enable_thinking=false (the empty think block).
extern const char kQwen3ChatTemplateJinja[];

// File name (no directory) -> contents.
using ModelFiles = std::map<std::string, std::string>;

struct HfSideFileOptions {
  int64_t model_max_length = 0;  // the model's max_position_embeddings; 0: not written
  int64_t eos_token_id = -1;     // config.json's eos_token_id (a stop id too); -1: none
  int64_t bos_token_id = -1;     // config.json's bos_token_id; -1: none
  EndOfTurn end_of_turn;         // the model's (FindEndOfTurn); id -1: none
};

// tokenizer_config.json, generation_config.json and special_tokens_map.json for `tok`:
// eos_token the end of turn (none: null), pad_token <|endoftext|> (else the eos), no bos
// token; the stop ids of StopTokenIds (the end of turn first); sampling defaults those of
// tritonrl generate (SamplingOptions).
ModelFiles MakeHfSideFiles(const Tokenizer& tok, const HfSideFileOptions& o);

// Files a checkpoint never carries from its input model: those tritonrl writes itself
// (config.json, the weights, optimizer.safetensors, trainer_state.json, a LoRA adapter's
// adapter_config.json) and weights in any
// other format or their indexes (*.safetensors, *.bin, *.pt, *.pth, *.ckpt, *.h5, *.msgpack,
// *.gguf, *.onnx, *.index.json), which would contradict the trained weights.
bool IsRewrittenModelFile(std::string_view name);

// The files of a model directory that a checkpoint carries unchanged: every top-level regular
// file (symbolic links followed, as in a Hugging Face cache snapshot) but those
// IsRewrittenModelFile names. Subdirectories are not carried.
Result<ModelFiles> ReadCarriedModelFiles(const std::string& dir);

// Writes the generated side files into `dir`, then `carried` over them: a model's own
// tokenizer_config.json, generation_config.json or tokenizer.json wins over tritonrl's. Where
// the model has its own tokenizer_config.json, no special_tokens_map.json is generated (it
// would override that config's special tokens in transformers); the model's own map is carried.
Status WriteHfModelFiles(const std::string& dir, const Tokenizer& tok, const HfSideFileOptions& o,
                         const ModelFiles& carried);

}  // namespace tritonrl::model
