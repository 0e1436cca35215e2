// Models whose turn ends with another token than Qwen's <|im_end|> (issue 36, "bring your own
// model"), through the trainer's own set-up on real model folders (config.json and weights of a
// tiny Qwen3, a tokenizer.json and the chat template of Llama 3 or Gemma 2 as their repositories
// ship them): the start model's end of turn (GRPO's stop id) is <|eot_id|> or <end_of_turn>, SFT
// closes each completion with it, generate stops at it first, a checkpoint names it as eos where
// the input has no file of its own and a resume finds it again. A folder with no end token at
// all is refused by the trainer and by generate, naming it.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "base/file.h"
#include "model/chat_template.h"
#include "model/policy.h"
#include "model/qwen3.h"
#include "model/tokenizer.h"
#include "train/run_util.h"
#include "train/sft_data.h"
#include "train/trainer.h"

namespace tritonrl::train {
namespace {

namespace fs = std::filesystem;
namespace m = tritonrl::model;
using json = nlohmann::json;

struct ChatFamily {
  const char* name;
  std::vector<std::string> added;  // special tokens from id 256 on
  std::string bos, eos;            // tokenizer_config.json's
  std::string template_file;       // where the template lives
  std::string chat_template;
  std::string end_of_turn;  // id 260 in both
  std::string prompt;       // the user turn "Hi" and the open assistant turn, rendered
};

// The chat templates of meta-llama/Meta-Llama-3-8B-Instruct and google/gemma-2-2b-it, verbatim
// (tests/model/chat_templates, shared with the model and Python tests).
std::string ShippedTemplate(const std::string& name) {
  std::ifstream in(std::string(TRITONRL_SOURCE_DIR) + "/tests/model/chat_templates/" + name);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Both name id 257 (<|end_of_text|>, <eos>), the document end, as tokenizer_config.json's eos
// and config.json's eos_token_id: the template's turn end wins over it.
std::vector<ChatFamily> Families() {
  return {
      {"llama3",
       {"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
        "<|eot_id|>"},
       "<|begin_of_text|>",
       "<|end_of_text|>",
       "tokenizer_config.json",
       ShippedTemplate("llama3_8b_instruct.jinja"),
       "<|eot_id|>",
       "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
       "<|start_header_id|>assistant<|end_header_id|>\n\n"},
      {"gemma2",
       {"<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>"},
       "<bos>",
       "<eos>",
       "chat_template.jinja",
       ShippedTemplate("gemma2_2b_it.jinja"),
       "<end_of_turn>",
       "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"},
  };
}

class ChatModelFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tritonrl_train_eot_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A tiny Qwen3 (config.json eos_token_id `config_eos`) and a tokenizer of the byte tokens and
  // `added`; `config` and `template_file` (when set) hold the rest.
  std::string WriteModel(const std::string& name, const std::vector<std::string>& added,
                         int64_t config_eos, const json& config,
                         const std::string& template_file = "",
                         const std::string& chat_template = "") {
    const fs::path dir = dir_ / name;
    m::Qwen3Config c = m::TinyQwen3Config();
    c.eos_token_id = config_eos;
    c.max_position_embeddings = 256;
    EXPECT_TRUE(m::SaveQwen3(m::RandomQwen3(c, 3, {}), dir.string()).ok());
    json tj = json::parse(m::TokenizerToJson(m::ByteFallbackTokenizer()));
    tj["added_tokens"] = json::array();
    for (size_t i = 0; i < added.size(); ++i) {
      tj["added_tokens"].push_back({{"id", 256 + static_cast<int>(i)},
                                    {"content", added[i]},
                                    {"single_word", false},
                                    {"lstrip", false},
                                    {"rstrip", false},
                                    {"normalized", false},
                                    {"special", true}});
    }
    json tc = config;
    tc["tokenizer_class"] = "PreTrainedTokenizerFast";
    if (template_file == "tokenizer_config.json") tc["chat_template"] = chat_template;
    std::ofstream(dir / "tokenizer.json") << tj.dump();
    std::ofstream(dir / "tokenizer_config.json") << tc.dump();
    if (template_file == "chat_template.jinja") {
      std::ofstream(dir / "chat_template.jinja") << chat_template;
    }
    return dir.string();
  }

  fs::path dir_;
};

TEST_F(ChatModelFolder, TurnEndsWithTheTemplatesTokenInSftGrpoGenerateAndCheckpoints) {
  for (const ChatFamily& f : Families()) {
    SCOPED_TRACE(f.name);
    const std::string model =
        WriteModel(f.name, f.added, 257, {{"bos_token", f.bos}, {"eos_token", f.eos}},
                   f.template_file, f.chat_template);
    auto start = LoadStartModel(model, 1, 0, {}, at::kCPU, at::kFloat);
    ASSERT_TRUE(start.ok()) << start.status().message();
    const m::Tokenizer& tok = start->tokenizer;
    EXPECT_EQ(m::TokenId(tok, "<|im_end|>"), -1);
    // GRPO's rollouts stop here (Runner::Generate's only stop id).
    EXPECT_EQ(start->end_of_turn.id, 260);
    EXPECT_EQ(start->end_of_turn.token, f.end_of_turn);

    // SFT: the prompt in the model's template, the completion closed by its end of turn.
    auto chat = m::LoadChatTemplate(model);
    ASSERT_TRUE(chat.ok()) << chat.status().message();
    auto ex =
        TokenizeSft(tok, *chat, start->end_of_turn.id, {{"Hi", "import triton", 1}}, 200, nullptr);
    ASSERT_TRUE(ex.ok()) << ex.status().message();
    const SftExample& e = (*ex)[0];
    const std::span<const int32_t> ids(e.ids);
    EXPECT_EQ(m::DecodeBytes(tok, ids.subspan(0, e.prompt_tokens)), f.prompt);
    EXPECT_EQ(m::DecodeBytes(tok, ids.subspan(e.prompt_tokens)), "import triton" + f.end_of_turn);
    EXPECT_EQ(e.ids.back(), 260);

    // generate: the end of turn first, then the document end (config.json's eos).
    auto policy = m::LoadPolicy({.model = model, .device = "cpu"});
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    EXPECT_EQ(m::DefaultStopTokens(**policy), (std::vector<int32_t>{260, 257}));

    // A checkpoint: the input has no generation_config.json, so the generated one stops at the
    // end of turn first; its own tokenizer_config.json is carried, and no special_tokens_map.json
    // is generated beside it (transformers would take that map's eos over the model's).
    const std::string ckpt = (dir_ / (std::string(f.name) + "_ckpt")).string();
    ASSERT_TRUE(SaveTrainCheckpoint(ckpt, start->trainable, InitAdamW(start->trainable), tok,
                                    start->end_of_turn, "{}", start->carried_files)
                    .ok());
    const json gen = json::parse(*ReadFile(ckpt + "/generation_config.json"));
    EXPECT_EQ(gen["eos_token_id"], json::array({260, 257}));
    EXPECT_FALSE(fs::exists(ckpt + "/special_tokens_map.json"));
    EXPECT_EQ(*ReadFile(ckpt + "/tokenizer_config.json"),
              *ReadFile(model + "/tokenizer_config.json"));
    // A resumed run (SFT or GRPO) takes the end of turn from the checkpoint's own files.
    auto back = LoadTrainCheckpoint(ckpt, at::kCPU, at::kFloat);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->end_of_turn.id, 260);
  }
}

// builtin:tiny, as before: <|im_end|> (258) closes each completion and stops generation, with
// <|endoftext|> (256) as the second stop.
TEST(BuiltinEndOfTurn, TinyIsUnchanged) {
  auto start = LoadStartModel("builtin:tiny", 1, 0, {}, at::kCPU, at::kFloat);
  ASSERT_TRUE(start.ok()) << start.status().message();
  EXPECT_EQ(start->end_of_turn.id, 258);
  EXPECT_EQ(start->end_of_turn.token, "<|im_end|>");
  auto policy = m::LoadPolicy({.model = "builtin:tiny", .device = "cpu"});
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_EQ(m::DefaultStopTokens(**policy), (std::vector<int32_t>{258, 256}));
}

TEST_F(ChatModelFolder, NoEndTokenIsRefusedNamingTheFolder) {
  // A template that ends the turn with plain text, no eos anywhere, no <|im_end|>.
  const std::string model =
      WriteModel("plain", {"<s>", "<unk>"}, -1, {{"bos_token", "<s>"}}, "tokenizer_config.json",
                 "{% for m in messages %}{{ m['content'] }}\n{% endfor %}");
  const std::string want = model + ": no end-of-turn token";
  auto start = LoadStartModel(model, 1, 0, {}, at::kCPU, at::kFloat);
  ASSERT_FALSE(start.ok());
  EXPECT_EQ(start.status().message().rfind(want, 0), 0u) << start.status().message();
  auto policy = m::LoadPolicy({.model = model, .device = "cpu"});
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().message().rfind(want, 0), 0u) << policy.status().message();
}

}  // namespace
}  // namespace tritonrl::train
