// Byte-level BPE tokenizer read from a Hugging Face tokenizer.json (the kind
// Qwen2/Qwen3 ship), plus a byte-level fallback for the built-in tiny model.
// No libtorch: the verifier and the RL span conversion use it too.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace tritonrl::model {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false;
};

struct SplitRegex;  // compiled PCRE2 pre-tokenizer pattern (tokenizer.cpp)

struct Tokenizer {
  std::vector<std::string> id_to_token;  // byte-level unicode form; added tokens verbatim
  std::unordered_map<std::string, int32_t> token_to_id;
  // (left id << 32 | right id) -> (merge rank, merged id)
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges;
  std::vector<AddedToken> added_tokens;     // matched in the raw text before pre-tokenizing
  std::shared_ptr<const SplitRegex> split;  // null: the whole text is one piece
  bool ignore_merges = false;               // a piece that is itself in the vocabulary is one token
  std::vector<bool> is_special;             // by id
  // Derived by FinalizeTokenizer: raw bytes per id, and the id of each single byte (-1: none).
  std::vector<std::string> token_bytes;
  std::array<int32_t, 256> byte_ids{};

  int32_t vocab_size() const { return static_cast<int32_t>(id_to_token.size()); }
};

// The pre-tokenizer pattern of Qwen2/Qwen3 (also used by the fallback).
extern const char kQwen2SplitPattern[];

struct Encoding {
  std::vector<int32_t> ids;
  // Per token, [begin, end) into the input text: in bytes, and in code points
  // (a token that covers part of a multi-byte character covers that character).
  std::vector<std::pair<int64_t, int64_t>> byte_offsets;
  std::vector<std::pair<int64_t, int64_t>> char_offsets;
};

Result<Tokenizer> ParseTokenizerJson(std::string_view json_text);
Result<Tokenizer> LoadTokenizerFile(const std::string& path);
// Fills the derived fields after the vocabulary and added tokens are set.
void FinalizeTokenizer(Tokenizer& tok);
// 256 byte tokens (ids 0..255) then the Qwen chat special tokens.
Tokenizer ByteFallbackTokenizer();

// Fails only on text that is not valid UTF-8.
Result<Encoding> Encode(const Tokenizer& tok, std::string_view text, bool parse_special = true);
// Raw bytes of the tokens, concatenated: may end inside a UTF-8 character.
std::string DecodeBytes(const Tokenizer& tok, std::span<const int32_t> ids,
                        bool skip_special = false);
// Valid UTF-8: bytes that do not form a character become U+FFFD.
std::string Decode(const Tokenizer& tok, std::span<const int32_t> ids, bool skip_special = false);
// Replaces invalid UTF-8 sequences by U+FFFD.
std::string ToValidUtf8(std::string_view bytes);
// Length of the longest prefix of `bytes` that is complete UTF-8 characters
// (an incomplete trailing character is held back when streaming).
size_t CompleteUtf8Prefix(std::string_view bytes);

// Pre-tokenizer pieces of `text` (added tokens are not matched): what BPE merges within.
Result<std::vector<std::string>> PreTokenize(const Tokenizer& tok, std::string_view text);
// Compiles and installs a Split pre-tokenizer pattern (PCRE2, UTF + UCP).
Status SetSplitPattern(Tokenizer& tok, const std::string& pattern);
// A Hugging Face tokenizer.json (BPE, byte-level, Split + ByteLevel
// pre-tokenizer) that ParseTokenizerJson reads back to the same encoding.
std::string TokenizerToJson(const Tokenizer& tok);

// Id of a token given by its text (added tokens included), or -1.
int32_t TokenId(const Tokenizer& tok, std::string_view token);

// GPT-2's reversible byte <-> printable code point mapping used by byte-level BPE.
char32_t ByteToCodePoint(uint8_t byte);
int ByteFromCodePoint(char32_t cp);  // -1 if not in the mapping

}  // namespace tritonrl::model
