#include "model/tokenizer.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "model/chat_template.h"
#include "model/end_of_turn.h"
#include "model/hf_files.h"

namespace tritonrl::model {
namespace {

using json = nlohmann::json;

// The byte-level alphabet written out independently of the code under test:
// printable Latin-1 bytes are themselves, the rest take U+0100.. in byte order.
std::string ByteChar(int b) {
  static std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    int next = 256;
    for (int i = 0; i < 256; ++i) {
      bool printable = (i >= 33 && i <= 126) || (i >= 161 && i <= 172) || i >= 174;
      int cp = printable ? i : next++;
      std::string s;
      if (cp < 0x80) {
        s.push_back(static_cast<char>(cp));
      } else {
        s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
      t[i] = s;
    }
    return t;
  }();
  return table[b];
}

// Ids 0..255 are the bytes; merges he, Ġt, Ġthe, de, ĠĠ; "cat" is in the
// vocabulary without merges leading to it; four added tokens.
json TinyTokenizerJson(bool array_merges = false, bool ignore_merges = false) {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[ByteChar(b)] = b;
  const std::string G = ByteChar(' ');
  vocab["he"] = 256;
  vocab[G + "t"] = 257;
  vocab[G + "the"] = 258;
  vocab["de"] = 259;
  vocab[G + G] = 260;
  vocab["cat"] = 261;
  std::vector<std::pair<std::string, std::string>> merges = {
      {"h", "e"}, {G, "t"}, {G + "t", "he"}, {"d", "e"}, {G, G}};
  json m = json::array();
  for (const auto& [a, b] : merges) {
    if (array_merges) {
      m.push_back({a, b});
    } else {
      m.push_back(a + " " + b);
    }
  }
  json added = json::array();
  added.push_back({{"id", 262}, {"content", "<|endoftext|>"}, {"special", true}});
  added.push_back({{"id", 263}, {"content", "<|im_start|>"}, {"special", true}});
  added.push_back({{"id", 264}, {"content", "<|im_end|>"}, {"special", true}});
  added.push_back({{"id", 265}, {"content", "<think>"}, {"special", false}});
  json split = {{"type", "Split"},
                {"pattern", {{"Regex", std::string(kQwen2SplitPattern)}}},
                {"behavior", "Isolated"},
                {"invert", false}};
  json byte_level = {{"type", "ByteLevel"},
                     {"add_prefix_space", false},
                     {"trim_offsets", false},
                     {"use_regex", false}};
  json pre = {{"type", "Sequence"}, {"pretokenizers", json::array({split, byte_level})}};
  return {{"version", "1.0"},
          {"added_tokens", added},
          {"normalizer", nullptr},
          {"pre_tokenizer", pre},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model",
           {{"type", "BPE"}, {"ignore_merges", ignore_merges}, {"vocab", vocab}, {"merges", m}}}};
}

Tokenizer Tiny(bool array_merges = false, bool ignore_merges = false) {
  auto tok = ParseTokenizerJson(TinyTokenizerJson(array_merges, ignore_merges).dump());
  EXPECT_TRUE(tok.ok()) << tok.status().ToString();
  return std::move(tok.value());
}

std::vector<int32_t> Ids(const Tokenizer& tok, std::string_view text, bool special = true) {
  auto e = Encode(tok, text, special);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? e->ids : std::vector<int32_t>{};
}

using V = std::vector<int32_t>;

TEST(ByteMap, MatchesTheGpt2Alphabet) {
  EXPECT_EQ(ByteToCodePoint(' '), U'\u0120');   // Ġ
  EXPECT_EQ(ByteToCodePoint('\n'), U'\u010A');  // Ċ
  EXPECT_EQ(ByteToCodePoint('a'), U'a');
  EXPECT_EQ(ByteToCodePoint(0xAD), U'\u0143');  // soft hyphen -> Ń
  EXPECT_EQ(ByteToCodePoint(0xFF), U'\u00FF');
  for (int b = 0; b < 256; ++b) EXPECT_EQ(ByteFromCodePoint(ByteToCodePoint(b)), b);
  EXPECT_EQ(ByteFromCodePoint(U'\u4E00'), -1);
}

TEST(Tokenizer, MergesByRank) {
  Tokenizer tok = Tiny();
  // "the" -> t + he (no merge makes "the"); " the" -> Ġthe via he, Ġt, Ġt+he.
  EXPECT_EQ(Ids(tok, "the the"), (V{'t', 256, 258}));
  EXPECT_EQ(Ids(tok, "de"), (V{259}));
  EXPECT_EQ(Ids(tok, "cat"), (V{'c', 'a', 't'}));  // in the vocabulary, but no merges lead there
}

TEST(Tokenizer, ArrayMergesParseTheSame) {
  Tokenizer a = Tiny(false), b = Tiny(true);
  EXPECT_EQ(Ids(a, "the the de"), Ids(b, "the the de"));
}

TEST(Tokenizer, IgnoreMergesTakesWholeVocabularyPieces) {
  Tokenizer tok = Tiny(false, /*ignore_merges=*/true);
  EXPECT_EQ(Ids(tok, "cat"), (V{261}));
}

TEST(Tokenizer, Qwen2PreTokenizerSplits) {
  Tokenizer tok = Tiny();
  // "  de": whitespace not followed by non-space (" "), then " de" -> Ġ, de.
  EXPECT_EQ(Ids(tok, "  de"), (V{' ', ' ', 259}));
  // Digits are split one by one; contractions are their own piece.
  EXPECT_EQ(Ids(tok, "123"), (V{'1', '2', '3'}));
  EXPECT_EQ(Ids(tok, "don't"), (V{'d', 'o', 'n', '\'', 't'}));
  // Trailing spaces at the end form one piece: "ĠĠ" merges.
  EXPECT_EQ(Ids(tok, "a  "), (V{'a', 260}));
}

TEST(Tokenizer, AddedTokensAreMatchedFirst) {
  Tokenizer tok = Tiny();
  EXPECT_EQ(Ids(tok, "<|im_start|>user\nhi<|im_end|>"),
            (V{263, 'u', 's', 'e', 'r', '\n', 'h', 'i', 264}));
  EXPECT_EQ(Ids(tok, "<think>x"), (V{265, 'x'}));
  // Without special-token parsing the same text is ordinary bytes.
  V plain = Ids(tok, "<|im_end|>", /*special=*/false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 264), 0);
  EXPECT_EQ(Decode(tok, plain), "<|im_end|>");
}

TEST(Tokenizer, OffsetsInBytesAndCharacters) {
  Tokenizer tok = Tiny();
  auto e = Encode(tok, "h\xC3\xA9 the");  // "hé the"
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ids, (V{'h', 0xC3, 0xA9, 258}));
  using P = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(e->byte_offsets, (P{{0, 1}, {1, 2}, {2, 3}, {3, 7}}));
  // Both halves of é cover character 1.
  EXPECT_EQ(e->char_offsets, (P{{0, 1}, {1, 2}, {1, 2}, {2, 6}}));
}

TEST(Tokenizer, RoundTripsCodeAndUnicode) {
  Tokenizer tok = Tiny();
  const std::string texts[] = {
      "def f(x):\n    return x ** 2  # square\n\n\tpass\r\n",
      "@triton.jit\ndef k(X, Y, N: tl.constexpr):\n    pid = tl.program_id(0)\n",
      "ünïçødé 日本語 🎉 привет",
      "   leading and trailing   ",
      "<|im_start|>system\nx<|im_end|>\n<think>\n\n</think>",
      ""};
  for (const std::string& t : texts) {
    auto e = Encode(tok, t);
    ASSERT_TRUE(e.ok()) << t;
    EXPECT_EQ(Decode(tok, e->ids), t);
    // Offsets tile the text.
    int64_t pos = 0;
    for (const auto& [b, end] : e->byte_offsets) {
      EXPECT_EQ(b, pos);
      pos = end;
    }
    EXPECT_EQ(pos, static_cast<int64_t>(t.size()));
  }
}

TEST(Tokenizer, DecodeHandlesSplitCharacters) {
  Tokenizer tok = Tiny();
  V e_acute = {0xC3, 0xA9};
  EXPECT_EQ(DecodeBytes(tok, std::span<const int32_t>(e_acute.data(), 1)), "\xC3");
  EXPECT_EQ(Decode(tok, std::span<const int32_t>(e_acute.data(), 1)), "\xEF\xBF\xBD");
  EXPECT_EQ(Decode(tok, e_acute), "\xC3\xA9");
  EXPECT_EQ(CompleteUtf8Prefix("a\xC3"), 1u);
  EXPECT_EQ(CompleteUtf8Prefix("a\xC3\xA9"), 3u);
  EXPECT_EQ(CompleteUtf8Prefix("\xF0\x9F\x8E"), 0u);
  EXPECT_EQ(ToValidUtf8("a\xFF"
                        "b"),
            "a\xEF\xBF\xBD"
            "b");
}

TEST(Tokenizer, SkipsSpecialTokensOnRequest) {
  Tokenizer tok = Tiny();
  V ids = Ids(tok, "<|im_start|>hi<think><|im_end|>");
  EXPECT_EQ(Decode(tok, ids, /*skip_special=*/true), "hi<think>");
}

TEST(Tokenizer, RejectsInvalidUtf8) {
  Tokenizer tok = Tiny();
  auto e = Encode(tok, "ok\xC3(");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("byte 2"), std::string::npos);
}

TEST(Tokenizer, RejectsUnsupportedOrBrokenFiles) {
  json j = TinyTokenizerJson();
  j["model"]["type"] = "WordPiece";
  EXPECT_FALSE(ParseTokenizerJson(j.dump()).ok());
  j = TinyTokenizerJson();
  j["model"]["merges"].push_back("q zz");
  auto bad = ParseTokenizerJson(j.dump());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("q zz"), std::string::npos);
  EXPECT_FALSE(ParseTokenizerJson("{not json").ok());
  j = TinyTokenizerJson();
  j["pre_tokenizer"] = nullptr;
  EXPECT_FALSE(ParseTokenizerJson(j.dump()).ok());  // not byte-level
}

TEST(Tokenizer, TokenIdLooksUpAddedTokens) {
  Tokenizer tok = Tiny();
  EXPECT_EQ(TokenId(tok, "<|im_end|>"), 264);
  EXPECT_EQ(TokenId(tok, "he"), 256);
  EXPECT_EQ(TokenId(tok, "nope"), -1);
}

TEST(ByteFallback, EncodesBytesAndSpecialTokens) {
  Tokenizer tok = ByteFallbackTokenizer();
  EXPECT_EQ(tok.vocab_size(), 261);
  EXPECT_EQ(Ids(tok, "a\xC3\xA9<|im_end|>"), (V{'a', 0xC3, 0xA9, 258}));
  EXPECT_EQ(TokenId(tok, "<|im_start|>"), 257);
  EXPECT_EQ(TokenId(tok, "</think>"), 260);
  const std::string t = "x = [i ** 2 for i in range(10)]  # \xE6\x97\xA5\xE6\x9C\xAC";
  EXPECT_EQ(Decode(tok, Ids(tok, t)), t);
}

TEST(ChatTemplate, FormatsQwen3Turns) {
  std::vector<ChatMessage> msgs = {{"system", "Be brief."}, {"user", "Hi"}};
  EXPECT_EQ(ApplyQwen3ChatTemplate(msgs),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
            "<|im_start|>assistant\n");
  ChatTemplateOptions no_think;
  no_think.enable_thinking = false;
  EXPECT_EQ(ApplyQwen3ChatTemplate({{"user", "Hi"}}, no_think),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
}

TEST(ChatTemplate, DropsReasoningOfEarlierAssistantTurns) {
  std::vector<ChatMessage> msgs = {
      {"user", "a"}, {"assistant", "<think>\nplan\n</think>\n\nanswer"}, {"user", "b"}};
  EXPECT_EQ(ApplyQwen3ChatTemplate(msgs, {.add_generation_prompt = false}),
            "<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\nanswer<|im_end|>\n"
            "<|im_start|>user\nb<|im_end|>\n");
  // The assistant turn after the last user turn keeps its reasoning.
  msgs.pop_back();
  EXPECT_EQ(ApplyQwen3ChatTemplate(msgs, {.add_generation_prompt = false}),
            "<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\n<think>\nplan\n</think>\n\n"
            "answer<|im_end|>\n");
}

// The side files take every id from the tokenizer they describe: the byte fallback's and a BPE
// with other ids give different numbers; nothing is Qwen's.
TEST(HfFiles, SideFilesTakeTheirIdsFromTheTokenizer) {
  HfSideFileOptions o;
  o.model_max_length = 4096;
  o.eos_token_id = 258;
  o.end_of_turn = *FindEndOfTurn("builtin:tiny", ByteFallbackTokenizer());
  ModelFiles f = MakeHfSideFiles(ByteFallbackTokenizer(), o);
  ASSERT_EQ(f.size(), 3u);
  json tc = json::parse(f.at("tokenizer_config.json"));
  EXPECT_EQ(tc["tokenizer_class"], "PreTrainedTokenizerFast");
  EXPECT_EQ(tc["eos_token"], "<|im_end|>");
  EXPECT_EQ(tc["pad_token"], "<|endoftext|>");
  EXPECT_TRUE(tc["bos_token"].is_null());
  EXPECT_EQ(tc["model_max_length"], 4096);
  EXPECT_EQ(tc["clean_up_tokenization_spaces"], false);
  EXPECT_EQ(tc["chat_template"], std::string(kQwen3ChatTemplateJinja));
  json gc = json::parse(f.at("generation_config.json"));
  EXPECT_EQ(gc["eos_token_id"], json::array({258, 256}));
  EXPECT_EQ(gc["pad_token_id"], 256);
  EXPECT_FALSE(gc.contains("bos_token_id"));
  EXPECT_EQ(gc["temperature"], 1.0);
  EXPECT_EQ(gc["top_p"], 1.0);
  EXPECT_EQ(gc["top_k"], 0);
  json stm = json::parse(f.at("special_tokens_map.json"));
  EXPECT_EQ(stm["eos_token"]["content"], "<|im_end|>");
  EXPECT_EQ(stm["pad_token"]["content"], "<|endoftext|>");
  EXPECT_EQ(stm["additional_special_tokens"], json::array({"<|im_start|>"}));

  // Tiny(): <|endoftext|> 262, <|im_end|> 264; a config eos of its own is a stop id too.
  o.eos_token_id = 7;
  o.bos_token_id = 263;
  o.end_of_turn = *FindEndOfTurn("builtin:tiny", Tiny());
  gc = json::parse(MakeHfSideFiles(Tiny(), o).at("generation_config.json"));
  EXPECT_EQ(gc["eos_token_id"], json::array({264, 262, 7}));
  EXPECT_EQ(gc["pad_token_id"], 262);
  EXPECT_EQ(gc["bos_token_id"], 263);
  tc = json::parse(MakeHfSideFiles(Tiny(), o).at("tokenizer_config.json"));
  EXPECT_EQ(tc["bos_token"], "<|im_start|>");

  // No <|endoftext|>: the eos pads.
  json j = TinyTokenizerJson();
  j["added_tokens"].erase(0);
  auto no_eot = ParseTokenizerJson(j.dump());
  ASSERT_TRUE(no_eot.ok()) << no_eot.status().ToString();
  const HfSideFileOptions no_eot_o = {.end_of_turn = *FindEndOfTurn("builtin:tiny", *no_eot)};
  gc = json::parse(MakeHfSideFiles(*no_eot, no_eot_o).at("generation_config.json"));
  EXPECT_EQ(gc["eos_token_id"], json::array({264}));
  EXPECT_EQ(gc["pad_token_id"], 264);
}

TEST(HfFiles, InputModelFilesAreCarriedAndWinButWeightsAreNot) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / ("tritonrl_hf_files_" + std::to_string(getpid()));
  fs::remove_all(root);
  const fs::path in = root / "in", out = root / "out";
  fs::create_directories(in / "original");
  fs::create_directories(out);
  const std::vector<std::pair<std::string, std::string>> files = {
      {"README.md", "# my model\n"},
      {"tokenizer_config.json", "{\"chat_template\": \"mine\"}"},
      {"merges.txt", "#version: 0.2\n"},
      {"config.json", "{}"},
      {"trainer_state.json", "{}"},
      {"model.safetensors", "w"},
      {"model-00001-of-00002.safetensors", "w"},
      {"model.safetensors.index.json", "{}"},
      {"pytorch_model.bin", "w"},
      {"original/consolidated.pth", "w"}};
  for (const auto& [name, text] : files) std::ofstream(in / name, std::ios::binary) << text;
  fs::create_symlink(in / "README.md", in / "LICENSE");  // a cache snapshot's links are followed

  auto carried = ReadCarriedModelFiles(in.string());
  ASSERT_TRUE(carried.ok()) << carried.status().ToString();
  std::vector<std::string> names;
  for (const auto& [name, text] : *carried) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"LICENSE", "README.md", "merges.txt",
                                             "tokenizer_config.json"}));
  EXPECT_EQ(carried->at("LICENSE"), "# my model\n");

  const HfSideFileOptions o = {.end_of_turn =
                                   *FindEndOfTurn("builtin:tiny", ByteFallbackTokenizer())};
  ASSERT_TRUE(WriteHfModelFiles(out.string(), ByteFallbackTokenizer(), o, *carried).ok());
  EXPECT_EQ(*ReadFile((out / "tokenizer_config.json").string()), "{\"chat_template\": \"mine\"}");
  EXPECT_EQ(*ReadFile((out / "README.md").string()), "# my model\n");
  EXPECT_TRUE(fs::is_regular_file(out / "LICENSE") && !fs::is_symlink(out / "LICENSE"));
  auto gen = ReadFile((out / "generation_config.json").string());  // not in the input: generated
  ASSERT_TRUE(gen.ok());
  EXPECT_EQ(json::parse(*gen)["eos_token_id"], json::array({258, 256}));
  // Beside the model's own tokenizer config no map is generated (it would override that
  // config's special tokens in transformers).
  EXPECT_FALSE(fs::exists(out / "special_tokens_map.json"));
  EXPECT_FALSE(fs::exists(out / "config.json") || fs::exists(out / "model.safetensors") ||
               fs::exists(out / "pytorch_model.bin") || fs::exists(out / "original"));
  EXPECT_FALSE(ReadCarriedModelFiles((root / "missing").string()).ok());
  fs::remove_all(root);
}

}  // namespace
}  // namespace tritonrl::model
