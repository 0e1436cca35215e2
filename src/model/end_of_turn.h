// The token that ends a model's turn: what SFT appends after each completion, where GRPO's and
// generate's sampling stops, and the eos that the tokenizer_config.json and
// generation_config.json tritonrl generates for a checkpoint name. One decision, made from the
// model's own files, so that a model whose chat template ends an assistant turn with <|eot_id|>
// (Llama 3), <end_of_turn> (Gemma), </s> (Mistral) or <|end|> (Phi-3) is taught to end its turn,
// and stopped, at that token rather than at Qwen's <|im_end|>.
//
// The rule: the first of these that names a token of the model's tokenizer.
//  1. The chat template (LoadChatTemplate: the model's own, else the built-in Qwen3 format)
//     rendering one user turn and one assistant turn whose content is a marker: the first special
//     token in the text after the marker. This is the template the prompts are rendered in, so
//     the turn SFT teaches ends as every assistant turn of the model's chat data ended, and as
//     transformers' apply_chat_template renders it. It comes before any eos because a model's
//     configs often name the document end instead (Llama 3.1's config.json: <|end_of_text|>
//     first; a base model's <|endoftext|>), which a chat turn never emits.
//  2. tokenizer_config.json's eos_token (else special_tokens_map.json's): templates that end a
//     turn with {{ eos_token }} render nothing when it is unset, and templates that raise on
//     the marker conversation (rare) get here too.
//  3. generation_config.json's eos_token_id (the first of a list): where transformers stops.
//  4. config.json's eos_token_id (the first of a list; the caller's parsed config).
//  5. <|im_end|>, then <|endoftext|>, when the tokenizer has them.
// The built-in models' templates and byte-fallback or BPE tokenizers give <|im_end|> by rule 1,
// as before this rule existed. No token at all fails with InvalidArgument naming the model.
//
// Usage:
//   auto eot = FindEndOfTurn(model_dir, tokenizer, config.eos_token_id);
//   completion_ids.push_back(eot->id);                      // SFT
//   so.stop_token_ids = StopTokenIds(tokenizer, eot->id, config.eos_token_id);  // generation
//
// No libtorch. Pure functions of the files and their inputs; callable from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/tokenizer.h"

namespace tritonrl::model {

struct EndOfTurn {
  int32_t id = -1;
  std::string token;   // its text: an added token's content, else its vocabulary entry
  std::string source;  // the rule that chose it, e.g. "the chat template (DIR/chat_template.jinja)"
};

// `model`: builtin:* or a Hugging Face directory (a LoRA adapter's too); `tok`: its tokenizer;
// `config_eos_token_id`: its config.json's eos_token_id (-1: none). Errors name the model, or
// the file that cannot be read or parsed.
Result<EndOfTurn> FindEndOfTurn(const std::string& model, const Tokenizer& tok,
                                int64_t config_eos_token_id = -1);

// The ids sampling stops at: the end of turn first (transformers takes a list's first id as
// the eos), then <|endoftext|> and the config's eos, a document end that a model may still
// emit; each once, none of them negative.
std::vector<int32_t> StopTokenIds(const Tokenizer& tok, int32_t end_of_turn_id,
                                  int64_t config_eos_token_id);

}  // namespace tritonrl::model
