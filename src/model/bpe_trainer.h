// A byte-level BPE trainer (own code): learns merges from a corpus and builds
// a Tokenizer of the Qwen2 kind (Qwen2 pre-tokenizer, GPT-2 byte mapping,
// chat special tokens), saved with TokenizerToJson. Used for builtin:small's
// tokenizer. No libtorch; deterministic; callable from any thread.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/tokenizer.h"

namespace tritonrl::model {

struct BpeTrainOptions {
  int32_t vocab_size = 4096;  // bytes + merges + special tokens, at most
  int64_t min_frequency = 2;  // a pair seen fewer times is never merged
};

// Ids 0-255 are the bytes, then the merges in the order learned, then
// <|endoftext|>, <|im_start|>, <|im_end|> (special), <think>, </think>.
// Pieces come from the Qwen2 pre-tokenizer; the most frequent adjacent pair
// is merged first (ties: the smaller pair of ids).
Result<Tokenizer> TrainByteLevelBpe(const std::vector<std::string>& texts,
                                    const BpeTrainOptions& options);

}  // namespace tritonrl::model
