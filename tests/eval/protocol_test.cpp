#include "eval/protocol.h"

#include <gtest/gtest.h>

#include <string>

namespace tritonrl::eval {
namespace {

std::string Prefix(const std::string& magic, std::uint32_t hlen, std::uint64_t plen) {
  std::string s = magic;
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((hlen >> (8 * i)) & 0xff));
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((plen >> (8 * i)) & 0xff));
  return s;
}

TEST(ProtocolTest, RoundTripWithPayload) {
  std::string buf = EncodeFrame({{"type", "trial"}, {"index", 3}}, std::string("\0\1\2", 3));
  EXPECT_EQ(buf.size(), kFramePrefixSize + std::string(R"({"index":3,"type":"trial"})").size() + 3);
  auto f = TakeFrame(buf);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->has_value());
  EXPECT_EQ((*f)->header["type"], "trial");
  EXPECT_EQ((*f)->payload, std::string("\0\1\2", 3));
  EXPECT_TRUE(buf.empty());
}

TEST(ProtocolTest, PartialFramesWaitForMoreBytes) {
  const std::string whole = EncodeFrame({{"type", "hello"}}, "abcd");
  for (std::size_t cut = 0; cut < whole.size(); ++cut) {
    std::string buf = whole.substr(0, cut);
    auto f = TakeFrame(buf);
    ASSERT_TRUE(f.ok()) << cut;
    EXPECT_FALSE(f->has_value()) << cut;
    EXPECT_EQ(buf.size(), cut);  // nothing consumed
  }
}

TEST(ProtocolTest, TwoFramesInOneBuffer) {
  std::string buf = EncodeFrame({{"n", 1}}) + EncodeFrame({{"n", 2}}, "xy");
  auto a = TakeFrame(buf);
  auto b = TakeFrame(buf);
  ASSERT_TRUE(a.ok() && a->has_value() && b.ok() && b->has_value());
  EXPECT_EQ((*a)->header["n"], 1);
  EXPECT_EQ((*b)->header["n"], 2);
  EXPECT_EQ((*b)->payload, "xy");
}

TEST(ProtocolTest, BadMagicIsRejectedEarly) {
  std::string buf = "PASS";
  EXPECT_FALSE(TakeFrame(buf).ok());
  buf = "{\"outcome\": \"correct\"}\n";
  EXPECT_FALSE(TakeFrame(buf).ok());
}

TEST(ProtocolTest, HeaderLengthsOutOfRange) {
  std::string zero = Prefix("TRL1", 0, 0);
  EXPECT_FALSE(TakeFrame(zero).ok());
  std::string huge = Prefix("TRL1", (1u << 20) + 1, 0);
  EXPECT_FALSE(TakeFrame(huge).ok());
  std::string big_payload = Prefix("TRL1", 2, 1ull << 40) + "{}";
  FrameLimits limits;
  limits.max_payload = 1 << 20;
  EXPECT_FALSE(TakeFrame(big_payload, limits).ok());
}

TEST(ProtocolTest, HeaderMustBeAJsonObject) {
  std::string arr = Prefix("TRL1", 3, 0) + "[1]";
  EXPECT_FALSE(TakeFrame(arr).ok());
  std::string junk = Prefix("TRL1", 5, 0) + "{bad}";
  EXPECT_FALSE(TakeFrame(junk).ok());
  std::string truncated_json = Prefix("TRL1", 9, 0) + "{\"a\": 1 ";
  truncated_json.resize(kFramePrefixSize + 9, ' ');
  EXPECT_FALSE(TakeFrame(truncated_json).ok());
}

}  // namespace
}  // namespace tritonrl::eval
