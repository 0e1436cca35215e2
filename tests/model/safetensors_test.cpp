#include "model/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "model/qwen3_config.h"

namespace tritonrl::model {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class SafetensorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tritonrl_st_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // A file with the given header JSON and data bytes, laid out by hand.
  std::string Raw(const std::string& name, const std::string& header, const std::string& data) {
    std::string out;
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
    out += header + data;
    EXPECT_TRUE(WriteFileAtomic(Path(name), out).ok());
    return Path(name);
  }

  fs::path dir_;
};

TEST_F(SafetensorsTest, RoundTripsDtypesShapesAndMetadata) {
  std::vector<float> f32 = {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.0f};
  std::vector<uint16_t> bf16 = {0x3F80, 0xC000, 0x7F80, 0x0001};  // 1, -2, inf, tiny
  std::vector<uint16_t> f16 = {0x3C00, 0xBC00};                   // 1, -1
  ASSERT_TRUE(WriteSafetensors(Path("a.safetensors"),
                               {{"w", DType::kF32, {2, 3}, f32.data()},
                                {"b", DType::kBF16, {4}, bf16.data()},
                                {"h", DType::kF16, {1, 2}, f16.data()},
                                {"empty", DType::kF32, {0, 5}, nullptr}},
                               {{"format", "pt"}})
                  .ok());
  auto f = OpenSafetensors(Path("a.safetensors"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->tensors.size(), 4u);
  EXPECT_EQ(f->metadata.at("format"), "pt");
  const TensorInfo& w = f->tensors.at("w");
  EXPECT_EQ(w.dtype, DType::kF32);
  EXPECT_EQ(w.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::memcmp(f->TensorData(w), f32.data(), 24), 0);
  const TensorInfo& b = f->tensors.at("b");
  EXPECT_EQ(b.dtype, DType::kBF16);
  EXPECT_EQ(std::memcmp(f->TensorData(b), bf16.data(), 8), 0);
  const TensorInfo& h = f->tensors.at("h");
  EXPECT_EQ(h.dtype, DType::kF16);
  EXPECT_EQ(std::memcmp(f->TensorData(h), f16.data(), 4), 0);
  EXPECT_EQ(f->tensors.at("empty").numel(), 0);
}

TEST_F(SafetensorsTest, ByteLayoutFollowsTheSpec) {
  std::vector<float> x = {1.0f, 2.0f};
  std::vector<uint16_t> y = {0x3F80};
  ASSERT_TRUE(
      WriteSafetensors(Path("l.safetensors"),
                       {{"y", DType::kBF16, {1}, y.data()}, {"x", DType::kF32, {2}, x.data()}},
                       {{"k", "v"}})
          .ok());
  auto raw = ReadFile(Path("l.safetensors"));
  ASSERT_TRUE(raw.ok());
  const std::string& s = *raw;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(s[i]);  // little-endian
  ASSERT_LE(8 + n, s.size());
  EXPECT_EQ((8 + n) % 8, 0u);  // data section aligned
  json header = json::parse(s.substr(8, n));
  EXPECT_EQ(header["__metadata__"], (json{{"k", "v"}}));
  EXPECT_EQ(header["x"]["dtype"], "F32");
  EXPECT_EQ(header["x"]["shape"], (json{2}));
  EXPECT_EQ(header["y"]["dtype"], "BF16");
  // Every byte of the data section belongs to exactly one tensor.
  uint64_t xb = header["x"]["data_offsets"][0], xe = header["x"]["data_offsets"][1];
  uint64_t yb = header["y"]["data_offsets"][0], ye = header["y"]["data_offsets"][1];
  EXPECT_EQ(xe - xb, 8u);
  EXPECT_EQ(ye - yb, 2u);
  EXPECT_EQ(s.size() - 8 - n, 10u);
  float back[2];
  std::memcpy(back, s.data() + 8 + n + xb, 8);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], 2.0f);
}

TEST_F(SafetensorsTest, RejectsCorruptFiles) {
  auto expect_corrupt = [&](const std::string& path, const std::string& words) {
    auto f = OpenSafetensors(path);
    ASSERT_FALSE(f.ok()) << path;
    EXPECT_EQ(f.status().code(), StatusCode::kCorruption) << f.status().ToString();
    EXPECT_NE(f.status().message().find(words), std::string::npos) << f.status().ToString();
  };
  const std::string four(4, '\0');
  expect_corrupt(Raw("short", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", four),
                 "outside the data section");
  expect_corrupt(Raw("shape", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four),
                 "dtype x shape");
  expect_corrupt(Raw("dtype", R"({"a":{"dtype":"Q8","shape":[1],"data_offsets":[0,4]}})", four),
                 "unknown safetensors dtype");
  expect_corrupt(Raw("overlap",
                     R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                     R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                     four),
                 "overlap");
  expect_corrupt(Raw("hole", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                     std::string(8, '\0')),
                 "hole");
  expect_corrupt(Raw("json", "{nope", four), "not JSON");
  expect_corrupt(Raw("fields", R"({"a":{"dtype":"F32"}})", ""), "data_offsets");
  // Header length larger than the file.
  std::string big(8, '\0');
  big[0] = static_cast<char>(0xFF);
  big[1] = static_cast<char>(0xFF);
  ASSERT_TRUE(WriteFileAtomic(Path("len"), big + "{}").ok());
  expect_corrupt(Path("len"), "does not fit");
  ASSERT_TRUE(WriteFileAtomic(Path("tiny"), "abc").ok());
  expect_corrupt(Path("tiny"), "too short");
  EXPECT_EQ(OpenSafetensors(Path("absent")).status().code(), StatusCode::kNotFound);
}

TEST_F(SafetensorsTest, ShardedCheckpointThroughIndex) {
  std::vector<float> a = {1, 2}, b = {3, 4, 5};
  ASSERT_TRUE(WriteSafetensors(Path("model-00001-of-00002.safetensors"),
                               {{"a", DType::kF32, {2}, a.data()}})
                  .ok());
  ASSERT_TRUE(WriteSafetensors(Path("model-00002-of-00002.safetensors"),
                               {{"b", DType::kF32, {3}, b.data()}})
                  .ok());
  json index = {
      {"metadata", {{"total_size", 20}}},
      {"weight_map",
       {{"a", "model-00001-of-00002.safetensors"}, {"b", "model-00002-of-00002.safetensors"}}}};
  ASSERT_TRUE(WriteFileAtomic(Path("model.safetensors.index.json"), index.dump()).ok());
  auto ck = OpenCheckpoint(dir_.string());
  ASSERT_TRUE(ck.ok()) << ck.status().ToString();
  EXPECT_EQ(ck->files.size(), 2u);
  float got[3];
  std::memcpy(got, ck->TensorData("b"), 12);
  EXPECT_EQ(got[2], 5.0f);
  EXPECT_EQ(ck->TensorData("zzz"), nullptr);

  // The index names a tensor that its shard does not hold.
  index["weight_map"]["c"] = "model-00002-of-00002.safetensors";
  ASSERT_TRUE(WriteFileAtomic(Path("model.safetensors.index.json"), index.dump()).ok());
  auto bad = OpenCheckpoint(dir_.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'c'"), std::string::npos);
}

TEST_F(SafetensorsTest, MissingCheckpointIsNotFound) {
  auto ck = OpenCheckpoint(dir_.string());
  EXPECT_EQ(ck.status().code(), StatusCode::kNotFound);
}

TEST(Qwen3ConfigTest, ParsesHuggingFaceConfig) {
  const char* text = R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
    "vocab_size": 151936, "hidden_size": 1024, "intermediate_size": 3072,
    "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8,
    "head_dim": 128, "max_position_embeddings": 40960, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000, "tie_word_embeddings": true, "eos_token_id": 151645,
    "torch_dtype": "bfloat16", "attention_bias": false, "rope_scaling": null})";
  auto c = ParseQwen3Config(text);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->hidden_size, 1024);
  EXPECT_EQ(c->num_hidden_layers, 28);
  EXPECT_EQ(c->num_key_value_heads, 8);
  EXPECT_EQ(c->head_dim, 128);
  EXPECT_DOUBLE_EQ(c->rope_theta, 1e6);
  EXPECT_TRUE(c->tie_word_embeddings);
  EXPECT_EQ(c->eos_token_id, 151645);
  // And back: our own JSON parses to the same values.
  auto again = ParseQwen3Config(Qwen3ConfigToJson(*c));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->intermediate_size, 3072);
  EXPECT_TRUE(again->tie_word_embeddings);
}

TEST(Qwen3ConfigTest, RejectsWhatTheDecoderCannotRun) {
  EXPECT_FALSE(ParseQwen3Config(R"({"model_type":"llama"})").ok());
  auto c = ParseQwen3Config(
      R"({"vocab_size":10,"hidden_size":8,"intermediate_size":8,"num_hidden_layers":1,)"
      R"("num_attention_heads":3,"num_key_value_heads":2,"head_dim":4})");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("multiple"), std::string::npos);
  EXPECT_FALSE(ParseQwen3Config(R"({"vocab_size":10})").ok());
}

}  // namespace
}  // namespace tritonrl::model
