// Chat templates: the model's own Jinja template rendered by llama.cpp's engine, and the
// built-in Qwen3 format as the fallback. kQwen3ChatTemplateJinja (what tritonrl's checkpoints
// carry) must render byte for byte what ApplyQwen3ChatTemplate renders, over conversations that
// exercise every branch of both. Agreement with transformers' apply_chat_template on real-world
// templates is tests/python/test_chat_templates.py.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "model/chat_template.h"
#include "model/end_of_turn.h"
#include "model/hf_files.h"
#include "model/jinja_template.h"
#include "model/tokenizer.h"

namespace tritonrl::model {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class ChatTemplateDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tritonrl_chat_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  std::string Dir() const { return dir_.string(); }
  fs::path dir_;
};

// Every branch of the Qwen3 format: system and tool turns, reasoning in an earlier assistant
// turn (dropped) and after the last user turn (kept, rewritten), a second </think>, a <think>
// without </think>, odd newlines, no user turn at all, and text that looks like Jinja or is not
// ASCII.
std::vector<std::vector<ChatMessage>> Conversations() {
  return {
      {{"user", "Write a Triton kernel for ReLU."}},
      {{"system", "Be brief."}, {"user", "hi"}},
      {{"user", "a"}, {"assistant", "<think>\nplan\n</think>\n\nanswer"}, {"user", "b"}},
      {{"user", "q"}, {"assistant", "\n<think>\n\nstep 1\nstep 2\n\n</think>\n\nx</think>y"}},
      {{"user", "q"}, {"assistant", "<think>unclosed reasoning"}},
      {{"user", "q"}, {"assistant", "a</think>b"}, {"user", "r"}, {"assistant", "</think>"}},
      {{"user", "q"},
       {"assistant", "no reasoning here"},
       {"tool", "{\"ok\": true}"},
       {"user", "again"}},
      {{"assistant", "<think>x</think>only an assistant turn"}},
      {{"user", "{{ messages }} {% if x %} \u00e9\u65e5\u672c\n\n  trailing  "}},
      {{"user", ""}},
      {},
  };
}

std::vector<ChatTemplateOptions> AllOptions() {
  std::vector<ChatTemplateOptions> all;
  for (bool gen : {true, false}) {
    for (std::optional<bool> think :
         {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
      all.push_back({gen, think});
    }
  }
  return all;
}

TEST(ChatTemplate, CheckpointTemplateRendersExactlyTheBuiltinFormat) {
  auto t = ChatTemplate::FromJinja(kQwen3ChatTemplateJinja, "tokenizer_config.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_FALSE(t->builtin());
  for (const auto& msgs : Conversations()) {
    for (const ChatTemplateOptions& o : AllOptions()) {
      auto got = t->Apply(msgs, o);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(*got, ApplyQwen3ChatTemplate(msgs, o))
          << "messages " << msgs.size() << ", generation prompt " << o.add_generation_prompt
          << ", thinking " << o.enable_thinking.value_or(-1);
    }
  }
}

TEST(ChatTemplate, DefaultIsTheBuiltinFormat) {
  ChatTemplate t;
  EXPECT_TRUE(t.builtin());
  EXPECT_EQ(t.origin(), "built-in Qwen3 format");
  auto got = t.Apply({{"user", "Hi"}}, {.enable_thinking = false});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
}

// A checkpoint as tritonrl writes it: its tokenizer_config.json's template goes through the
// engine and renders what the built-in renders.
TEST_F(ChatTemplateDir, TritonrlCheckpointUsesItsOwnTemplate) {
  const Tokenizer tok = ByteFallbackTokenizer();
  const HfSideFileOptions o = {.end_of_turn = *FindEndOfTurn("builtin:tiny", tok)};
  for (const auto& [name, text] : MakeHfSideFiles(tok, o)) Write(name, text);
  auto t = LoadChatTemplate(Dir());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_FALSE(t->builtin());
  EXPECT_EQ(t->origin(), (dir_ / "tokenizer_config.json").string());
  for (const auto& msgs : Conversations()) {
    EXPECT_EQ(*t->Apply(msgs, {.enable_thinking = false}),
              ApplyQwen3ChatTemplate(msgs, {.enable_thinking = false}));
  }
}

TEST_F(ChatTemplateDir, ResolvesTheTemplateAsTransformersDoes) {
  const std::string in_config = "config:{{ messages[0]['content'] }}";
  // No template anywhere, or a builtin model: the built-in format.
  EXPECT_TRUE(LoadChatTemplate("builtin:tiny")->builtin());
  EXPECT_TRUE(LoadChatTemplate(Dir())->builtin());
  Write("tokenizer_config.json", json({{"eos_token", "</s>"}, {"chat_template", nullptr}}).dump());
  EXPECT_TRUE(LoadChatTemplate(Dir())->builtin());
  // tokenizer_config.json's string.
  Write("tokenizer_config.json", json({{"chat_template", in_config}}).dump());
  EXPECT_EQ(*LoadChatTemplate(Dir())->Apply({{"user", "x"}}), "config:x");
  // Named templates: the default one.
  Write("tokenizer_config.json",
        json({{"chat_template", json::array({{{"name", "tool_use"}, {"template", "tools"}},
                                             {{"name", "default"}, {"template", "named"}}})}})
            .dump());
  EXPECT_EQ(*LoadChatTemplate(Dir())->Apply({{"user", "x"}}), "named");
  // additional_chat_templates/default.jinja, then chat_template.jinja, win over the config.
  Write("additional_chat_templates/default.jinja", "extra");
  EXPECT_EQ(*LoadChatTemplate(Dir())->Apply({{"user", "x"}}), "extra");
  Write("chat_template.jinja", "file:{{ messages | length }}");
  auto t = LoadChatTemplate(Dir());
  EXPECT_EQ(*t->Apply({{"user", "x"}, {"assistant", "y"}}), "file:2");
  EXPECT_EQ(t->origin(), (dir_ / "chat_template.jinja").string());
}

TEST_F(ChatTemplateDir, NamedTemplatesWithoutDefaultAreRefused) {
  Write("tokenizer_config.json",
        json({{"chat_template", json::array({{{"name", "tool_use"}, {"template", "t"}}})}}).dump());
  auto t = LoadChatTemplate(Dir());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("tokenizer_config.json"), std::string::npos);
  EXPECT_NE(t.status().message().find("default"), std::string::npos);
  fs::remove(dir_ / "tokenizer_config.json");
  Write("additional_chat_templates/rag.jinja", "r");
  t = LoadChatTemplate(Dir());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("additional_chat_templates"), std::string::npos);
}

// Special tokens from tokenizer_config.json (a string or an added-token object), the missing
// ones from special_tokens_map.json; a null token is not set, so the variable is undefined.
TEST_F(ChatTemplateDir, PassesTheNamedSpecialTokens) {
  Write("chat_template.jinja",
        "{{ bos_token }}|{{ eos_token }}|{{ pad_token }}|{{ unk_token is defined }}");
  Write("tokenizer_config.json", json({{"bos_token", {{"content", "<s>"}, {"lstrip", false}}},
                                       {"eos_token", "</s>"},
                                       {"unk_token", nullptr}})
                                     .dump());
  Write("special_tokens_map.json", json({{"eos_token", "<not this>"},
                                         {"pad_token", {{"content", "<pad>"}}},
                                         {"unk_token", "<unk>"}})
                                       .dump());
  EXPECT_EQ(*LoadChatTemplate(Dir())->Apply({{"user", "x"}}), "<s>|</s>|<pad>|False");
}

TEST_F(ChatTemplateDir, EnableThinkingReachesTheTemplateOnlyWhenSet) {
  Write("chat_template.jinja",
        "{% if enable_thinking is defined %}{{ enable_thinking }}{% else %}unset{% endif %}");
  auto t = LoadChatTemplate(Dir());
  EXPECT_EQ(*t->Apply({{"user", "x"}}), "unset");
  EXPECT_EQ(*t->Apply({{"user", "x"}}, {.enable_thinking = false}), "False");
  EXPECT_EQ(*t->Apply({{"user", "x"}}, {.enable_thinking = true}), "True");
}

TEST_F(ChatTemplateDir, ErrorsNameTheFile) {
  // A template that does not parse.
  Write("chat_template.jinja", "{% for m in messages %}{{ m['content'] }}");
  auto t = LoadChatTemplate(Dir());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kParseError);
  EXPECT_EQ(t.status().message().rfind((dir_ / "chat_template.jinja").string() + ": ", 0), 0u)
      << t.status().message();
  // A template that raises on a role it does not know: the template's own message.
  Write("chat_template.jinja",
        "{% for m in messages %}{% if m['role'] != 'user' %}"
        "{{ raise_exception('Only user roles are supported!') }}{% endif %}{% endfor %}ok");
  t = LoadChatTemplate(Dir());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(*t->Apply({{"user", "x"}}), "ok");
  auto r = t->Apply({{"user", "x"}, {"assistant", "y"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find((dir_ / "chat_template.jinja").string()), std::string::npos);
  EXPECT_NE(r.status().message().find("Only user roles are supported!"), std::string::npos)
      << r.status().message();
  // A tokenizer config that is not JSON.
  fs::remove(dir_ / "chat_template.jinja");
  Write("tokenizer_config.json", "{\"chat_template\": ");
  t = LoadChatTemplate(Dir());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find((dir_ / "tokenizer_config.json").string()),
            std::string::npos);
}

// The engine's program is shared between renders: threads rendering at once get what one
// thread gets (serve renders on its HTTP threads).
TEST(ChatTemplate, RendersFromManyThreadsAtOnce) {
  auto t = ChatTemplate::FromJinja(kQwen3ChatTemplateJinja, "tokenizer_config.json");
  ASSERT_TRUE(t.ok());
  const auto conversations = Conversations();
  std::vector<std::string> want;
  for (const auto& msgs : conversations) want.push_back(ApplyQwen3ChatTemplate(msgs));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (int round = 0; round < 50; ++round) {
        for (size_t i = 0; i < conversations.size(); ++i) {
          auto got = t->Apply(conversations[i]);
          if (!got.ok() || *got != want[i]) ++mismatches[k];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(JinjaTemplate, RendersVariablesInTheirOrder) {
  auto t = JinjaTemplate::Compile(
      "{% for k, v in d | items %}{{ k }}={{ v }};{% endfor %}{{ d | tojson }}", "inline");
  ASSERT_TRUE(t.ok()) << t.status().message();
  nlohmann::ordered_json v = {{"d", {{"z", 1}, {"a", "\u00e9"}}}};
  auto got = t->Render(v);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, "z=1;a=\u00e9;{\"z\": 1, \"a\": \"\u00e9\"}");
  EXPECT_FALSE(t->Render(nlohmann::ordered_json::array()).ok());
}

}  // namespace
}  // namespace tritonrl::model
