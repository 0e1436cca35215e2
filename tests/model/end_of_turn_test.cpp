// FindEndOfTurn on real model folders (tokenizer.json, tokenizer_config.json, chat_template.jinja,
// generation_config.json written here, read back by the loaders): the chat templates of Llama 3
// and Gemma 2 as their model repositories ship them end a turn with <|eot_id|> and
// <end_of_turn>, over an eos that names the document end; Qwen's and the built-in models'
// turns end with <|im_end|>, as before; each fallback rule in its order; and a model with no
// end token at all is refused, naming its folder.
#include "model/end_of_turn.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/bpe_trainer.h"
#include "model/hf_files.h"
#include "model/tokenizer.h"

namespace tritonrl::model {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The chat templates of meta-llama/Meta-Llama-3-8B-Instruct (its tokenizer_config.json's) and
// google/gemma-2-2b-it, verbatim, in tests/model/chat_templates (shared with the train and Python
// tests).
std::string ShippedTemplate(const std::string& name) {
  std::ifstream in(std::string(TRITONRL_SOURCE_DIR) + "/tests/model/chat_templates/" + name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A Mistral-style template: the turn ends with whatever eos_token is.
const char kEosTemplate[] =
    "{{ bos_token }}{% for m in messages %}{% if m['role'] == 'user' %}[INST] {{ m['content'] }} "
    "[/INST]{% else %}{{ m['content'] }}{{ eos_token }}{% endif %}{% endfor %}";

struct Added {
  std::string content;
  bool special = true;
};

class ModelFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tritonrl_eot_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Dir() const { return dir_.string(); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  // tokenizer.json: the 256 byte tokens, then `added` from id 256 on; read back as the trainer
  // and generate read it.
  Tokenizer WriteTokenizer(const std::vector<Added>& added) {
    json j = json::parse(TokenizerToJson(ByteFallbackTokenizer()));
    j["added_tokens"] = json::array();
    for (size_t i = 0; i < added.size(); ++i) {
      j["added_tokens"].push_back({{"id", 256 + static_cast<int>(i)},
                                   {"content", added[i].content},
                                   {"single_word", false},
                                   {"lstrip", false},
                                   {"rstrip", false},
                                   {"normalized", false},
                                   {"special", added[i].special}});
    }
    Write("tokenizer.json", j.dump());
    auto tok = LoadTokenizerFile((dir_ / "tokenizer.json").string());
    EXPECT_TRUE(tok.ok()) << tok.status().message();
    return tok.ok() ? *tok : Tokenizer();
  }

  fs::path dir_;
};

TEST(EndOfTurn, BuiltinModelsEndWithImEnd) {
  const Tokenizer bytes = ByteFallbackTokenizer();
  auto eot = FindEndOfTurn("builtin:tiny", bytes, 258);
  ASSERT_TRUE(eot.ok()) << eot.status().message();
  EXPECT_EQ(eot->id, 258);  // TinyQwen3Config's eos_token_id
  EXPECT_EQ(eot->token, "<|im_end|>");
  EXPECT_EQ(eot->source, "the chat template (built-in Qwen3 format)");
  // builtin:mini and builtin:small learn a BPE whose <|im_end|> has its own id.
  BpeTrainOptions o;
  o.vocab_size = 300;
  auto bpe = TrainByteLevelBpe({"def kernel(x_ptr):\n    tl.load(x_ptr)\n"}, o);
  ASSERT_TRUE(bpe.ok()) << bpe.status().message();
  eot = FindEndOfTurn("builtin:mini", *bpe);
  ASSERT_TRUE(eot.ok()) << eot.status().message();
  EXPECT_EQ(eot->id, TokenId(*bpe, "<|im_end|>"));
  EXPECT_EQ(eot->token, "<|im_end|>");
}

// A checkpoint of a built-in model carries tritonrl's Qwen3 template in tokenizer_config.json:
// its turn ends as the built-in format's does.
TEST_F(ModelFolder, TritonrlCheckpointEndsWithImEnd) {
  const Tokenizer tok = ByteFallbackTokenizer();
  Write("tokenizer.json", TokenizerToJson(tok));
  HfSideFileOptions o;
  o.end_of_turn = *FindEndOfTurn("builtin:tiny", tok);
  for (const auto& [name, text] : MakeHfSideFiles(tok, o)) Write(name, text);
  auto eot = FindEndOfTurn(Dir(), tok, 258);
  ASSERT_TRUE(eot.ok()) << eot.status().message();
  EXPECT_EQ(eot->id, 258);
  EXPECT_EQ(eot->source, "the chat template (" + Dir() + "/tokenizer_config.json)");
}

// Llama 3: the template ends the turn with <|eot_id|>; tokenizer_config.json's eos and
// config.json's eos_token_id name <|end_of_text|>, the document end, which loses.
TEST_F(ModelFolder, Llama3TurnEndsWithEotId) {
  const Tokenizer tok = WriteTokenizer({{"<|begin_of_text|>"},
                                        {"<|end_of_text|>"},
                                        {"<|start_header_id|>"},
                                        {"<|end_header_id|>"},
                                        {"<|eot_id|>"}});
  Write("tokenizer_config.json",
        json({{"bos_token", "<|begin_of_text|>"},
              {"eos_token", "<|end_of_text|>"},
              {"chat_template", ShippedTemplate("llama3_8b_instruct.jinja")}})
            .dump());
  Write("generation_config.json", json({{"eos_token_id", json::array({257, 260})}}).dump());
  auto eot = FindEndOfTurn(Dir(), tok, 257);
  ASSERT_TRUE(eot.ok()) << eot.status().message();
  EXPECT_EQ(eot->id, 260);
  EXPECT_EQ(eot->token, "<|eot_id|>");
  EXPECT_EQ(eot->source, "the chat template (" + Dir() + "/tokenizer_config.json)");
  EXPECT_EQ(TokenId(tok, "<|im_end|>"), -1);
  // Generation stops at the turn's end first, then at the document end.
  EXPECT_EQ(StopTokenIds(tok, eot->id, 257), (std::vector<int32_t>{260, 257}));
}

// Gemma 2: chat_template.jinja (which transformers prefers) ends the turn with <end_of_turn>;
// the template raises on a system turn, which the probe has none of.
TEST_F(ModelFolder, GemmaTurnEndsWithEndOfTurn) {
  const Tokenizer tok =
      WriteTokenizer({{"<pad>"}, {"<eos>"}, {"<bos>"}, {"<start_of_turn>"}, {"<end_of_turn>"}});
  Write("tokenizer_config.json", json({{"bos_token", "<bos>"}, {"eos_token", "<eos>"}}).dump());
  Write("chat_template.jinja", ShippedTemplate("gemma2_2b_it.jinja"));
  auto eot = FindEndOfTurn(Dir(), tok, 257);
  ASSERT_TRUE(eot.ok()) << eot.status().message();
  EXPECT_EQ(eot->id, 260);
  EXPECT_EQ(eot->token, "<end_of_turn>");
  EXPECT_EQ(eot->source, "the chat template (" + Dir() + "/chat_template.jinja)");
}

// A template that ends the turn with {{ eos_token }} gives the eos itself (Mistral's </s>);
// unset, it renders nothing there and the rules go on.
TEST_F(ModelFolder, EosTemplateAndTheFallbacksInOrder) {
  const Tokenizer tok = WriteTokenizer({{"<s>"}, {"</s>"}, {"<|endoftext|>"}, {"<stop>"}});
  Write(
      "tokenizer_config.json",
      json({{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"chat_template", kEosTemplate}}).dump());
  EXPECT_EQ(FindEndOfTurn(Dir(), tok)->token, "</s>");
  EXPECT_EQ(FindEndOfTurn(Dir(), tok)->source,
            "the chat template (" + Dir() + "/tokenizer_config.json)");

  // Rule 2: a template that ends the turn with plain text; the eos named in
  // special_tokens_map.json when tokenizer_config.json has none.
  Write("tokenizer_config.json",
        json({{"chat_template", "{{ messages[-1]['content'] }}\n"}}).dump());
  Write("special_tokens_map.json", json({{"eos_token", {{"content", "<stop>"}}}}).dump());
  auto eot = FindEndOfTurn(Dir(), tok, 257);
  EXPECT_EQ(eot->token, "<stop>");
  EXPECT_EQ(eot->source, "tokenizer_config.json's eos_token");

  // Rule 3: generation_config.json's first eos_token_id (an eos not in the vocabulary is
  // skipped).
  Write("special_tokens_map.json", json({{"eos_token", "<missing>"}}).dump());
  Write("generation_config.json", json({{"eos_token_id", json::array({259, 257})}}).dump());
  eot = FindEndOfTurn(Dir(), tok, 257);
  EXPECT_EQ(eot->token, "<stop>");
  EXPECT_EQ(eot->source, "generation_config.json's eos_token_id");

  // Rule 4: config.json's eos_token_id.
  Write("generation_config.json", json({{"do_sample", true}}).dump());
  eot = FindEndOfTurn(Dir(), tok, 257);
  EXPECT_EQ(eot->token, "</s>");
  EXPECT_EQ(eot->source, "config.json's eos_token_id");

  // Rule 5: the tokenizer's <|endoftext|> (it has no <|im_end|>).
  eot = FindEndOfTurn(Dir(), tok, -1);
  EXPECT_EQ(eot->token, "<|endoftext|>");
  EXPECT_EQ(eot->source, "the tokenizer's <|endoftext|>");

  // A generation_config.json that does not parse is named, once the rules reach it.
  Write("generation_config.json", "{oops");
  auto bad = FindEndOfTurn(Dir(), tok, -1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(Dir() + "/generation_config.json"), std::string::npos)
      << bad.status().message();
}

// No template token, no eos anywhere, no <|im_end|> or <|endoftext|>: refused, naming the folder.
TEST_F(ModelFolder, NoEndTokenIsAClearError) {
  const Tokenizer tok = WriteTokenizer({{"<s>"}, {"<unk>"}});
  Write("tokenizer_config.json", json({{"bos_token", "<s>"}}).dump());
  auto eot = FindEndOfTurn(Dir(), tok, -1);
  ASSERT_FALSE(eot.ok());
  EXPECT_EQ(eot.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(eot.status().message().rfind(Dir() + ": no end-of-turn token", 0), 0u)
      << eot.status().message();
  // The built-in format renders <|im_end|> as text this tokenizer has no token for.
  EXPECT_NE(eot.status().message().find("built-in Qwen3 format"), std::string::npos);
}

TEST(EndOfTurn, StopTokenIdsPutTheTurnEndFirstOnce) {
  const Tokenizer tok = ByteFallbackTokenizer();  // <|endoftext|> 256, <|im_end|> 258
  EXPECT_EQ(StopTokenIds(tok, 258, 258), (std::vector<int32_t>{258, 256}));
  EXPECT_EQ(StopTokenIds(tok, 258, 7), (std::vector<int32_t>{258, 256, 7}));
  EXPECT_EQ(StopTokenIds(tok, 258, -1), (std::vector<int32_t>{258, 256}));
  EXPECT_EQ(StopTokenIds(tok, -1, -1), (std::vector<int32_t>{256}));
}

}  // namespace
}  // namespace tritonrl::model
