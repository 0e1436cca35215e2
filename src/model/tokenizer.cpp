#include "model/tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/file.h"

namespace tritonrl::model {

// Contractions, letters with an optional leading non-letter, single digits,
// punctuation runs with trailing newlines, newline runs, and whitespace that is
// not followed by a non-space (so a space stays attached to the next word).
const char kQwen2SplitPattern[] =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

namespace {

// GPT-2 style byte-level pre-tokenizer (ByteLevel with use_regex=true).
const char kGpt2SplitPattern[] =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

}  // namespace

struct SplitRegex {
  pcre2_code* code = nullptr;
  std::string pattern;  // as written in tokenizer.json (written back by TokenizerToJson)
  ~SplitRegex() { pcre2_code_free(code); }
};

namespace {

using json = nlohmann::json;

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Length of the valid UTF-8 character starting at s[i], or 0 if invalid or
// truncated. Rejects overlongs, surrogates and code points above U+10FFFF.
size_t Utf8CharLength(std::string_view s, size_t i, char32_t* cp_out = nullptr) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t c = b(i);
  size_t n;
  char32_t cp;
  if (c < 0x80) {
    if (cp_out) *cp_out = c;
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
    return 0;
  }
  if (cp_out) *cp_out = cp;
  return n;
}

// Code points of a valid UTF-8 string (token strings come from our own JSON parser).
std::vector<char32_t> CodePoints(std::string_view s) {
  std::vector<char32_t> out;
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0xFFFD;
    size_t n = Utf8CharLength(s, i, &cp);
    out.push_back(n ? cp : 0xFFFD);
    i += n ? n : 1;
  }
  return out;
}

struct ByteMap {
  std::array<char32_t, 256> to_cp{};
  std::unordered_map<char32_t, uint8_t> from_cp;
  ByteMap() {
    // Printable Latin-1 bytes map to themselves; the other 68 bytes (controls,
    // space, DEL, NBSP, soft hyphen) map in order to U+0100 onwards.
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      to_cp[b] = printable ? static_cast<char32_t>(b) : next++;
      from_cp[to_cp[b]] = static_cast<uint8_t>(b);
    }
  }
};

const ByteMap& Bytes() {
  static const ByteMap kMap;
  return kMap;
}

Result<std::shared_ptr<const SplitRegex>> CompileSplit(const std::string& pattern) {
  int err = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   PCRE2_UTF | PCRE2_UCP, &err, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    return Status::InvalidArgument("tokenizer pre-tokenizer regex does not compile at offset " +
                                   std::to_string(offset) + ": " +
                                   reinterpret_cast<const char*>(msg));
  }
  pcre2_jit_compile(code,
                    PCRE2_JIT_COMPLETE);  // optional speed-up; the interpreter is the fallback
  auto re = std::make_shared<SplitRegex>();
  re->code = code;
  re->pattern = pattern;
  return std::shared_ptr<const SplitRegex>(std::move(re));
}

struct PreTokenizerSpec {
  std::string split_pattern;  // empty: no split
};

Status ReadPreTokenizer(const json& pt, PreTokenizerSpec& spec, bool& byte_level) {
  if (pt.is_null()) return Status::Ok();
  std::string type = pt.value("type", "");
  if (type == "Sequence") {
    for (const auto& p : pt.at("pretokenizers")) {
      TRITONRL_RETURN_IF_ERROR(ReadPreTokenizer(p, spec, byte_level));
    }
    return Status::Ok();
  }
  if (type == "Split") {
    const json& pat = pt.at("pattern");
    if (pat.contains("Regex")) {
      spec.split_pattern = pat["Regex"].get<std::string>();
    } else {
      return Status::InvalidArgument(
          "tokenizer.json: only Split with a Regex pattern is supported");
    }
    std::string behavior = pt.value("behavior", "Isolated");
    if (behavior != "Isolated" || pt.value("invert", false)) {
      return Status::InvalidArgument("tokenizer.json: Split behavior '" + behavior +
                                     "' is not supported (only Isolated, not inverted)");
    }
    return Status::Ok();
  }
  if (type == "ByteLevel") {
    byte_level = true;
    if (pt.value("add_prefix_space", false)) {
      return Status::InvalidArgument("tokenizer.json: ByteLevel add_prefix_space is not supported");
    }
    if (pt.value("use_regex", true)) {
      if (!spec.split_pattern.empty()) {
        return Status::InvalidArgument("tokenizer.json: ByteLevel use_regex after a Split");
      }
      spec.split_pattern = kGpt2SplitPattern;
    }
    return Status::Ok();
  }
  return Status::InvalidArgument("tokenizer.json: pre-tokenizer '" + type + "' is not supported");
}

// Start of the next added token at or after `pos` (leftmost, then longest), or npos.
size_t FindAddedToken(const Tokenizer& tok, std::string_view text, size_t pos, size_t* which) {
  size_t best = std::string_view::npos;
  for (size_t k = 0; k < tok.added_tokens.size(); ++k) {
    const std::string& c = tok.added_tokens[k].content;
    if (c.empty()) continue;
    size_t at = text.find(c, pos);
    if (at == std::string_view::npos) continue;
    if (at < best || (at == best && c.size() > tok.added_tokens[*which].content.size())) {
      best = at;
      *which = k;
    }
  }
  return best;
}

// BPE over one pre-tokenized piece; appends ids and byte spans (absolute).
void EncodePiece(const Tokenizer& tok, std::string_view text, size_t begin, size_t end,
                 Encoding& out) {
  if (begin >= end) return;
  std::string_view piece = text.substr(begin, end - begin);
  if (tok.ignore_merges) {
    std::string mapped;
    for (unsigned char c : piece) AppendUtf8(mapped, ByteToCodePoint(c));
    auto it = tok.token_to_id.find(mapped);
    if (it != tok.token_to_id.end()) {
      out.ids.push_back(it->second);
      out.byte_offsets.emplace_back(begin, end);
      return;
    }
  }
  struct Sym {
    int32_t id;
    int64_t b, e;
  };
  std::vector<Sym> syms;
  syms.reserve(piece.size());
  for (size_t i = 0; i < piece.size(); ++i) {
    int32_t id = tok.byte_ids[static_cast<uint8_t>(piece[i])];
    // A byte missing from the vocabulary (no unk token) is dropped, as tokenizers does.
    if (id >= 0) {
      syms.push_back({id, static_cast<int64_t>(begin + i), static_cast<int64_t>(begin + i + 1)});
    }
  }
  // Repeatedly merge the adjacent pair with the lowest rank (leftmost on ties).
  while (syms.size() > 1) {
    int32_t best_rank = std::numeric_limits<int32_t>::max();
    size_t best_i = 0;
    int32_t best_id = -1;
    for (size_t i = 0; i + 1 < syms.size(); ++i) {
      uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(syms[i].id)) << 32) |
                     static_cast<uint32_t>(syms[i + 1].id);
      auto it = tok.merges.find(key);
      if (it != tok.merges.end() && it->second.first < best_rank) {
        best_rank = it->second.first;
        best_i = i;
        best_id = it->second.second;
      }
    }
    if (best_id < 0) break;
    syms[best_i].id = best_id;
    syms[best_i].e = syms[best_i + 1].e;
    syms.erase(syms.begin() + static_cast<std::ptrdiff_t>(best_i) + 1);
  }
  for (const Sym& s : syms) {
    out.ids.push_back(s.id);
    out.byte_offsets.emplace_back(s.b, s.e);
  }
}

// Calls piece(begin, end) for each pre-tokenizer piece of text[begin, end).
template <typename Piece>
Status ForEachPiece(const Tokenizer& tok, std::string_view text, size_t begin, size_t end,
                    pcre2_match_data* md, Piece piece) {
  if (!tok.split) {
    piece(begin, end);
    return Status::Ok();
  }
  auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = begin;
  while (pos < end) {
    // The subject is cut at `end` so that no match crosses an added token.
    int rc = pcre2_match(tok.split->code, subject, end, pos, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(rc, msg, sizeof msg);
      return Status::Internal(std::string("tokenizer regex match failed: ") +
                              reinterpret_cast<const char*>(msg));
    }
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    size_t ms = ov[0], me = ov[1];
    piece(pos, ms);  // unmatched gap (Isolated keeps it)
    if (me == ms) {  // empty match: step one character
      size_t n = Utf8CharLength(text, ms);
      piece(ms, ms + (n ? n : 1));
      pos = ms + (n ? n : 1);
      continue;
    }
    piece(ms, me);
    pos = me;
  }
  piece(pos, end);
  return Status::Ok();
}

Status EncodeOrdinary(const Tokenizer& tok, std::string_view text, size_t begin, size_t end,
                      pcre2_match_data* md, Encoding& out) {
  return ForEachPiece(tok, text, begin, end, md,
                      [&](size_t b, size_t e) { EncodePiece(tok, text, b, e, out); });
}

}  // namespace

char32_t ByteToCodePoint(uint8_t byte) {
  return Bytes().to_cp[byte];
}

int ByteFromCodePoint(char32_t cp) {
  auto it = Bytes().from_cp.find(cp);
  return it == Bytes().from_cp.end() ? -1 : it->second;
}

void FinalizeTokenizer(Tokenizer& tok) {
  int32_t n = tok.vocab_size();
  tok.is_special.assign(n, false);
  tok.token_bytes.assign(n, "");
  for (int32_t id = 0; id < n; ++id) {
    std::string& bytes = tok.token_bytes[id];
    for (char32_t cp : CodePoints(tok.id_to_token[id])) {
      int b = ByteFromCodePoint(cp);
      if (b >= 0) {
        bytes.push_back(static_cast<char>(b));
      } else {
        AppendUtf8(bytes, cp);  // not byte-level text: keep it as written
      }
    }
  }
  for (const AddedToken& a : tok.added_tokens) {
    if (a.id >= 0 && a.id < n) {
      tok.token_bytes[a.id] = a.content;
      tok.is_special[a.id] = a.special;
    }
  }
  // Longest first, so FindAddedToken's tie-break sees the longest candidate.
  std::stable_sort(
      tok.added_tokens.begin(), tok.added_tokens.end(),
      [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
  for (int b = 0; b < 256; ++b) {
    std::string s;
    AppendUtf8(s, ByteToCodePoint(static_cast<uint8_t>(b)));
    auto it = tok.token_to_id.find(s);
    tok.byte_ids[b] = it == tok.token_to_id.end() ? -1 : it->second;
  }
}

Result<Tokenizer> ParseTokenizerJson(std::string_view json_text) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    return Status::ParseError(std::string("tokenizer.json is not valid JSON: ") + e.what());
  }
  try {
    Tokenizer tok;
    const json& model = j.at("model");
    std::string type = model.value("type", "BPE");
    if (type != "BPE") {
      return Status::InvalidArgument("tokenizer.json: model type '" + type +
                                     "' is not supported (only BPE)");
    }
    if (model.contains("continuing_subword_prefix") &&
        !model["continuing_subword_prefix"].is_null() &&
        !model["continuing_subword_prefix"].get<std::string>().empty()) {
      return Status::InvalidArgument("tokenizer.json: continuing_subword_prefix is not supported");
    }
    if (model.contains("end_of_word_suffix") && !model["end_of_word_suffix"].is_null() &&
        !model["end_of_word_suffix"].get<std::string>().empty()) {
      return Status::InvalidArgument("tokenizer.json: end_of_word_suffix is not supported");
    }
    tok.ignore_merges = model.value("ignore_merges", false);
    int32_t max_id = -1;
    for (const auto& [text, id] : model.at("vocab").items()) {
      int32_t i = id.get<int32_t>();
      if (i < 0) return Status::InvalidArgument("tokenizer.json: negative id for '" + text + "'");
      tok.token_to_id[text] = i;
      max_id = std::max(max_id, i);
    }
    std::vector<AddedToken> added;
    if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
      for (const auto& a : j["added_tokens"]) {
        AddedToken t{a.at("content").get<std::string>(), a.at("id").get<int32_t>(),
                     a.value("special", false)};
        max_id = std::max(max_id, t.id);
        added.push_back(std::move(t));
      }
    }
    tok.id_to_token.assign(max_id + 1, "");
    for (const auto& [text, id] : tok.token_to_id) tok.id_to_token[id] = text;
    for (const AddedToken& a : added) {
      tok.id_to_token[a.id] = a.content;
      tok.token_to_id[a.content] = a.id;
    }
    tok.added_tokens = std::move(added);

    int32_t rank = 0;
    for (const auto& m : model.at("merges")) {
      std::string left, right;
      if (m.is_array() && m.size() == 2) {
        left = m[0].get<std::string>();
        right = m[1].get<std::string>();
      } else if (m.is_string()) {
        std::string s = m.get<std::string>();
        size_t sp = s.find(' ');
        if (sp == std::string::npos || sp == 0 || sp + 1 >= s.size()) {
          return Status::InvalidArgument("tokenizer.json: malformed merge '" + s + "'");
        }
        left = s.substr(0, sp);
        right = s.substr(sp + 1);
      } else {
        return Status::InvalidArgument("tokenizer.json: malformed merge " + m.dump());
      }
      auto l = tok.token_to_id.find(left), r = tok.token_to_id.find(right),
           merged = tok.token_to_id.find(left + right);
      if (l == tok.token_to_id.end() || r == tok.token_to_id.end() ||
          merged == tok.token_to_id.end()) {
        return Status::InvalidArgument("tokenizer.json: merge '" + left + " " + right +
                                       "' uses a token missing from the vocabulary");
      }
      uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(l->second)) << 32) |
                     static_cast<uint32_t>(r->second);
      tok.merges.emplace(key, std::make_pair(rank++, merged->second));
    }

    if (j.contains("normalizer") && !j["normalizer"].is_null()) {
      std::string nt = j["normalizer"].value("type", "");
      // NFC is accepted as the identity: exact for text already in NFC (what
      // code, prompts and model output almost always are); see docs/model.md.
      if (nt != "NFC") {
        return Status::InvalidArgument("tokenizer.json: normalizer '" + nt +
                                       "' is not supported (only none or NFC)");
      }
    }
    PreTokenizerSpec spec;
    bool byte_level = false;
    if (j.contains("pre_tokenizer")) {
      TRITONRL_RETURN_IF_ERROR(ReadPreTokenizer(j["pre_tokenizer"], spec, byte_level));
    }
    if (!byte_level) {
      return Status::InvalidArgument(
          "tokenizer.json: only byte-level BPE is supported (no ByteLevel pre-tokenizer)");
    }
    if (!spec.split_pattern.empty()) {
      auto re = CompileSplit(spec.split_pattern);
      if (!re.ok()) return re.status();
      tok.split = std::move(re.value());
    }
    FinalizeTokenizer(tok);
    return tok;
  } catch (const json::exception& e) {
    return Status::ParseError(std::string("tokenizer.json: unexpected structure: ") + e.what());
  }
}

Result<Tokenizer> LoadTokenizerFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto tok = ParseTokenizerJson(*text);
  if (!tok.ok())
    return Status(tok.status().code() == StatusCode::kParseError
                      ? Status::ParseError(path + ": " + tok.status().message())
                      : Status::InvalidArgument(path + ": " + tok.status().message()));
  return tok;
}

Tokenizer ByteFallbackTokenizer() {
  Tokenizer tok;
  for (int b = 0; b < 256; ++b) {
    std::string s;
    AppendUtf8(s, ByteToCodePoint(static_cast<uint8_t>(b)));
    tok.token_to_id[s] = b;
    tok.id_to_token.push_back(s);
  }
  const std::pair<const char*, bool> kAdded[] = {{"<|endoftext|>", true},
                                                 {"<|im_start|>", true},
                                                 {"<|im_end|>", true},
                                                 {"<think>", false},
                                                 {"</think>", false}};
  for (const auto& [content, special] : kAdded) {
    int32_t id = tok.vocab_size();
    tok.added_tokens.push_back({content, id, special});
    tok.id_to_token.push_back(content);
    tok.token_to_id[content] = id;
  }
  FinalizeTokenizer(tok);
  return tok;
}

Result<Encoding> Encode(const Tokenizer& tok, std::string_view text, bool parse_special) {
  // Validate once; PCRE2 then skips its own check. Also map bytes to code point indices.
  std::vector<int64_t> char_index(text.size() + 1, 0);
  int64_t nchars = 0;
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8CharLength(text, i);
    if (n == 0) {
      return Status::InvalidArgument("text is not valid UTF-8 at byte " + std::to_string(i));
    }
    for (size_t k = 0; k < n; ++k) char_index[i + k] = nchars;
    ++nchars;
    i += n;
  }
  char_index[text.size()] = nchars;

  Encoding out;
  pcre2_match_data* md =
      tok.split ? pcre2_match_data_create_from_pattern(tok.split->code, nullptr) : nullptr;
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md_owner(md,
                                                                          pcre2_match_data_free);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t which = 0;
    size_t at = parse_special ? FindAddedToken(tok, text, pos, &which) : std::string_view::npos;
    size_t stop = at == std::string_view::npos ? text.size() : at;
    TRITONRL_RETURN_IF_ERROR(EncodeOrdinary(tok, text, pos, stop, md, out));
    if (at == std::string_view::npos) break;
    const AddedToken& a = tok.added_tokens[which];
    out.ids.push_back(a.id);
    out.byte_offsets.emplace_back(at, at + a.content.size());
    pos = at + a.content.size();
  }
  out.char_offsets.reserve(out.byte_offsets.size());
  for (const auto& [b, e] : out.byte_offsets) {
    out.char_offsets.emplace_back(char_index[b], e > b ? char_index[e - 1] + 1 : char_index[b]);
  }
  return out;
}

std::string DecodeBytes(const Tokenizer& tok, std::span<const int32_t> ids, bool skip_special) {
  std::string out;
  for (int32_t id : ids) {
    if (id < 0 || id >= tok.vocab_size()) continue;  // ids past the vocabulary decode to nothing
    if (skip_special && tok.is_special[id]) continue;
    out += tok.token_bytes[id];
  }
  return out;
}

std::string ToValidUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    size_t n = Utf8CharLength(bytes, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(bytes.substr(i, n));
      i += n;
    }
  }
  return out;
}

size_t CompleteUtf8Prefix(std::string_view bytes) {
  // Look back at most 3 bytes for the start of a character that is cut off.
  size_t n = bytes.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    uint8_t c = static_cast<uint8_t>(bytes[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte: keep looking
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

std::string Decode(const Tokenizer& tok, std::span<const int32_t> ids, bool skip_special) {
  return ToValidUtf8(DecodeBytes(tok, ids, skip_special));
}

int32_t TokenId(const Tokenizer& tok, std::string_view token) {
  auto it = tok.token_to_id.find(std::string(token));
  return it == tok.token_to_id.end() ? -1 : it->second;
}

}  // namespace tritonrl::model

namespace tritonrl::model {

Status SetSplitPattern(Tokenizer& tok, const std::string& pattern) {
  auto re = CompileSplit(pattern);
  if (!re.ok()) return re.status();
  tok.split = std::move(re.value());
  return Status::Ok();
}

Result<std::vector<std::string>> PreTokenize(const Tokenizer& tok, std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8CharLength(text, i);
    if (n == 0)
      return Status::InvalidArgument("text is not valid UTF-8 at byte " + std::to_string(i));
    i += n;
  }
  std::vector<std::string> pieces;
  pcre2_match_data* md =
      tok.split ? pcre2_match_data_create_from_pattern(tok.split->code, nullptr) : nullptr;
  Status st = ForEachPiece(tok, text, 0, text.size(), md, [&](size_t b, size_t e) {
    if (e > b) pieces.emplace_back(text.substr(b, e - b));
  });
  if (md) pcre2_match_data_free(md);
  if (!st.ok()) return st;
  return pieces;
}

std::string TokenizerToJson(const Tokenizer& tok) {
  json vocab = json::object();
  std::vector<bool> added(tok.id_to_token.size(), false);
  for (const AddedToken& a : tok.added_tokens) {
    if (a.id >= 0 && a.id < tok.vocab_size()) added[a.id] = true;
  }
  for (int32_t id = 0; id < tok.vocab_size(); ++id) {
    if (!added[id] && !tok.id_to_token[id].empty()) vocab[tok.id_to_token[id]] = id;
  }
  std::vector<std::pair<int32_t, uint64_t>> by_rank;
  for (const auto& [key, rank_id] : tok.merges) by_rank.emplace_back(rank_id.first, key);
  std::sort(by_rank.begin(), by_rank.end());
  json merges = json::array();
  for (const auto& [rank, key] : by_rank) {
    merges.push_back({tok.id_to_token[key >> 32], tok.id_to_token[key & 0xffffffffu]});
  }
  std::vector<AddedToken> sorted = tok.added_tokens;
  std::sort(sorted.begin(), sorted.end(),
            [](const AddedToken& a, const AddedToken& b) { return a.id < b.id; });
  json added_tokens = json::array();
  for (const AddedToken& a : sorted) {
    added_tokens.push_back({{"id", a.id},
                            {"content", a.content},
                            {"single_word", false},
                            {"lstrip", false},
                            {"rstrip", false},
                            {"normalized", false},
                            {"special", a.special}});
  }
  json byte_level = {{"type", "ByteLevel"},
                     {"add_prefix_space", false},
                     {"trim_offsets", false},
                     {"use_regex", false}};
  // Without a split (the byte fallback) there are no merges, so splitting by
  // the Qwen2 pattern changes nothing: written as Qwen2's pre-tokenizer.
  const std::string pattern = tok.split ? tok.split->pattern : std::string(kQwen2SplitPattern);
  json pre = {{"type", "Sequence"},
              {"pretokenizers",
               {{{"type", "Split"},
                 {"pattern", {{"Regex", pattern}}},
                 {"behavior", "Isolated"},
                 {"invert", false}},
                byte_level}}};
  json j = {{"version", "1.0"},
            {"truncation", nullptr},
            {"padding", nullptr},
            {"added_tokens", added_tokens},
            {"normalizer", nullptr},
            {"pre_tokenizer", pre},
            {"post_processor", nullptr},
            {"decoder",
             {{"type", "ByteLevel"},
              {"add_prefix_space", false},
              {"trim_offsets", false},
              {"use_regex", false}}},
            {"model",
             {{"type", "BPE"},
              {"dropout", nullptr},
              {"unk_token", nullptr},
              {"continuing_subword_prefix", ""},
              {"end_of_word_suffix", ""},
              {"fuse_unk", false},
              {"byte_fallback", false},
              {"ignore_merges", tok.ignore_merges},
              {"vocab", vocab},
              {"merges", merges}}}};
  return j.dump(1);
}

}  // namespace tritonrl::model
