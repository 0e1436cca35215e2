#include "eval/protocol.h"

#include <cstring>

#include <fmt/format.h>

namespace tritonrl::eval {
namespace {

constexpr char kMagic[4] = {'T', 'R', 'L', '1'};

void PutLE(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t GetLE(const std::string& in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

}  // namespace

std::string EncodeFrame(const nlohmann::json& header, std::string_view payload) {
  const std::string head = header.dump();
  std::string out(kMagic, 4);
  PutLE(out, head.size(), 4);
  PutLE(out, payload.size(), 8);
  out += head;
  out.append(payload);
  return out;
}

Result<std::optional<Frame>> TakeFrame(std::string& buffer, const FrameLimits& limits) {
  if (buffer.size() >= 4 && std::memcmp(buffer.data(), kMagic, 4) != 0) {
    return Status::ParseError("frame: bad magic");
  }
  if (buffer.size() < kFramePrefixSize) return std::optional<Frame>();
  const std::uint64_t hlen = GetLE(buffer, 4, 4);
  const std::uint64_t plen = GetLE(buffer, 8, 8);
  if (hlen == 0 || hlen > limits.max_header) {
    return Status::ParseError(fmt::format("frame: header length {} out of range", hlen));
  }
  if (plen > limits.max_payload) {
    return Status::ParseError(fmt::format("frame: payload length {} over the limit", plen));
  }
  if (buffer.size() < kFramePrefixSize + hlen + plen) return std::optional<Frame>();
  Frame frame;
  frame.header =
      nlohmann::json::parse(buffer.begin() + kFramePrefixSize,
                            buffer.begin() + static_cast<std::ptrdiff_t>(kFramePrefixSize + hlen),
                            nullptr, /*allow_exceptions=*/false);
  if (frame.header.is_discarded() || !frame.header.is_object()) {
    return Status::ParseError("frame: header is not a JSON object");
  }
  frame.payload = buffer.substr(kFramePrefixSize + hlen, plen);
  buffer.erase(0, kFramePrefixSize + hlen + plen);
  return std::optional<Frame>(std::move(frame));
}

}  // namespace tritonrl::eval
