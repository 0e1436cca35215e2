// Frames between the engine and a runner worker (python/tritonrl_runner/protocol.py):
//   "TRL1" | u32 LE header length | u64 LE payload length | JSON header | payload
// Everything a candidate's process sends is untrusted: the decoder bounds every
// length and rejects anything that is not exactly this layout with a JSON object
// header; the engine turns any such error into a failed sample.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace tritonrl::eval {

struct Frame {
  nlohmann::json header;
  std::string payload;
};

struct FrameLimits {
  std::uint32_t max_header = 1u << 20;
  // Output bytes travel in slices (4 MiB from the runner, src/eval/trial_check.h), so no frame
  // needs more; the limit bounds what the engine buffers per worker, whatever a worker sends.
  std::uint64_t max_payload = 16ull << 20;
};

inline constexpr std::size_t kFramePrefixSize = 16;

std::string EncodeFrame(const nlohmann::json& header, std::string_view payload = {});

// Takes one complete frame off the front of `buffer`. Returns nullopt when the
// buffer holds only part of a frame, a ParseError Status when it is malformed.
Result<std::optional<Frame>> TakeFrame(std::string& buffer, const FrameLimits& limits = {});

}  // namespace tritonrl::eval
