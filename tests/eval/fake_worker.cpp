// A stand-in for python/tritonrl_runner/worker.py that speaks the frame
// protocol and misbehaves on demand ($FAKE_SCENARIO), so the engine's
// classification of every way a worker can end is tested without torch.
// The reference role always answers correctly: one variant "v", outputs
// float32 [2] = {seed % 7, 1.5}.
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/protocol.h"

using nlohmann::json;
using tritonrl::eval::EncodeFrame;

namespace {

void Send(const json& h, const std::string& payload = "") {
  const std::string s = EncodeFrame(h, payload);
  std::size_t at = 0;
  while (at < s.size()) {
    const ssize_t n = write(4, s.data() + at, s.size() - at);
    if (n <= 0) _exit(3);
    at += static_cast<std::size_t>(n);
  }
}

std::string Floats(float a, float b) {
  std::string s(8, '\0');
  __builtin_memcpy(s.data(), &a, 4);
  __builtin_memcpy(s.data() + 4, &b, 4);
  return s;
}

}  // namespace

// The next frame from the engine on fd 3 (the request, then a candidate's seeds).
std::optional<tritonrl::eval::Frame> NextFrame(std::string& buf) {
  char chunk[4096];
  for (;;) {
    auto f = tritonrl::eval::TakeFrame(buf);
    if (!f.ok()) return std::nullopt;
    if (f->has_value()) return std::move(**f);
    const ssize_t n = read(3, chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    buf.append(chunk, static_cast<std::size_t>(n));
  }
}

int main() {
  std::string buf;
  std::optional<tritonrl::eval::Frame> req = NextFrame(buf);
  if (!req) return 2;
  const json& r = req->header;
  const bool candidate = r["role"] == "candidate";
  const char* env = std::getenv("FAKE_SCENARIO");
  const std::string sc = candidate && env ? env : "correct";
  // A slow reference, so that other samples of its task visibly wait for it (pool test).
  if (const char* delay = std::getenv("FAKE_REFERENCE_DELAY_MS"); delay && !candidate)
    usleep(static_cast<useconds_t>(std::atoi(delay)) * 1000);
  Send({{"type", "hello"}, {"role", r["role"]}});
  Send({{"type", "variants"},
        {"variants", {"v"}},
        {"atol", 1e-4},
        {"rtol", 1e-4},
        {"dtype", "float32"}});
  // A reference that runs out of GPU memory, with torch's message (FAKE_REFERENCE_SCENARIO=oom,
  // or oom_no_sizes without the sizes).
  if (const char* ref_sc = std::getenv("FAKE_REFERENCE_SCENARIO"); ref_sc && !candidate) {
    const std::string what = ref_sc;
    Send({{"type", "error"},
          {"stage", "trial"},
          {"exc_type", "OutOfMemoryError"},
          {"message", what == "oom" ? "Traceback ...\ntorch.OutOfMemoryError: CUDA out of memory. "
                                      "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
                                      "139.80 GiB of which 1.25 GiB is free. Including non-PyTorch "
                                      "memory, this process has 1536.00 MiB memory in use."
                                    : "CUDA out of memory."}});
    return 1;
  }
  if (candidate) {
    if (sc == "error_import") {
      Send({{"type", "error"},
            {"stage", "import"},
            {"exc_type", "SyntaxError"},
            {"message", "invalid syntax"}});
      return 1;
    }
    Send({{"type", "stage"},
          {"stage", "import"},
          {"inherits_reference", json::array()},
          {"host_steps", json::array({json::array({3, 0})})}});
  }
  if (sc == "segv") {
    volatile int* p = nullptr;
    *p = 1;
  }
  if (sc == "exit0") _exit(0);
  if (sc == "garbage") {
    (void)!write(4, "PASS\n{\"outcome\": \"correct\"}\n", 28);
    return 0;
  }
  if (sc == "hang") {
    for (;;) pause();
  }
  // The constructor's host steps (guard.CallMonitor.start_build): 300 is over a launch-free
  // budget of 256.
  const json build_steps = json::array({json::array({sc == "ctor_steps" ? 300 : 4, 0})});
  if (sc == "held_table") {  // the held-tensor rule's finding (hooks.HeldWatch)
    Send({{"type", "stage"},
          {"stage", "build"},
          {"variant", "v"},
          {"held_tables", {"65536 elements held after the constructor"}},
          {"host_steps", build_steps}});
  } else {
    Send({{"type", "stage"}, {"stage", "build"}, {"variant", "v"}, {"host_steps", build_steps}});
  }
  if (sc == "skip_trials") {
    Send({{"type", "done"}});
    return 0;
  }
  int index = 0;
  for (const auto& t : r["trials"]) {
    std::int64_t seed = 0;
    if (t.contains("seed")) {
      seed = t["seed"].get<std::int64_t>();
    } else {  // a candidate: the engine sends each seed just before its trial
      auto f = NextFrame(buf);
      if (!f || f->header.value("type", "") != "seed" || f->header.value("index", -1) != index)
        return 3;
      seed = f->header["seed"].get<std::int64_t>();
    }
    // The idle deadline (EngineConfig::trial_idle_timeout): a trial that spins, one that
    // compiles for longer than the idle limit, one that claims a compile and hangs, and one that
    // reports progress forever.
    if (sc == "spin_trial") {
      for (;;) pause();
    }
    if (sc == "compile_then_trial" && index == 0) {
      Send({{"type", "progress"}, {"what", "compile_start"}});
      usleep(900 * 1000);
      Send({{"type", "progress"}, {"what", "compile_end"}});
    }
    if (sc == "launching_trial" && index == 0) {  // 900 ms of launches, reported every 100 ms
      for (int i = 1; i <= 9; ++i) {
        Send({{"type", "progress"}, {"what", "launches"}, {"launches", i * 1000}});
        usleep(100 * 1000);
      }
    }
    if (sc == "launching_flood") {  // launch reports forever: the stage limit still holds
      for (;;) {
        Send({{"type", "progress"}, {"what", "launches"}, {"launches", 1}});
        usleep(100 * 1000);
      }
    }
    if (sc == "forged_compile") {
      Send({{"type", "progress"}, {"what", "compile_start"}});
      for (;;) pause();
    }
    if (sc == "progress_flood") {
      for (;;) {
        Send({{"type", "progress"}, {"what", "compile_end"}});
        usleep(100 * 1000);
      }
    }
    if (sc == "oom_trial") {
      Send({{"type", "error"},
            {"stage", "trial"},
            {"exc_type", "OutOfMemoryError"},
            {"message", "CUDA out of memory. Tried to allocate 20.00 GiB"}});
      return 1;
    }
    if (sc == "error_trial") {
      Send(
          {{"type", "error"}, {"stage", "trial"}, {"exc_type", "ValueError"}, {"message", "boom"}});
      return 1;
    }
    if (sc == "triton_refused") {  // the JIT's dependency scan refused the kernel (worker.py)
      Send({{"type", "error"},
            {"stage", "trial"},
            {"exc_type", "RuntimeError"},
            {"message", "RuntimeError: Unsupported function referenced: <function helper>"},
            {"triton_refused", true}});
      return 1;
    }
    if (sc == "host_refused") {  // the call monitor stopped a per-element loop (guard.py)
      Send({{"type", "error"},
            {"stage", "trial"},
            {"exc_type", "HostComputeRefused"},
            {"message",
             "Traceback ...\nHostComputeRefused: refused by the evaluator: float(tensor) "
             "(per-element loop) (line 9)\n"}});
      return 1;
    }
    const std::string hash = "h" + std::to_string(seed);
    const bool wrong = sc == "wrong_values" || sc == "forbidden_op_wrong" ||
                       (sc == "wrong_at_trial_2" && index == 2);
    json h = {{"type", "trial"},
              {"variant", "v"},
              {"index", index++},
              {"seed", seed},
              {"input_sha256", hash}};
    float first = static_cast<float>(seed % 7);
    if (wrong) first += 1.0f;
    json out = {{"type_ok", sc != "subclass"},
                {"dtype", "float32"},
                {"shape", {sc == "lie_shape" ? 3 : 2}},
                {"device", "cpu"},
                {"alias", false},
                {"nbytes", 8}};
    if (sc == "subclass") out = {{"type_ok", false}, {"type", "LazyTensor"}};
    h["outputs"] = json::array({out});
    h["input_sha256_after"] = sc == "mutation" ? "changed" : hash;
    if (sc == "phases") {  // the worker's own timings: 2 good names, junk, and too many names
      json p = {{"forward", 2.5}, {"hash", 1}, {"negative", -1}, {"text", "9"}, {"nan", nullptr}};
      for (int i = 0; i < 20; ++i)
        p["zextra" + std::to_string(i)] = 1;  // after the good ones in key order
      p[std::string(40, 'x')] = 1;
      h["phase_ms"] = p;
    }
    // The reference's allocator peak grows by a MiB a trial; a candidate's would be ignored.
    h["peak_device_bytes"] = (index + (candidate ? 100 : 0)) << 20;
    if (candidate) {
      if (sc == "no_launch") {
        h["launches"] = json::array();
      } else if (sc == "counted_launches") {  // [name, own, count]; malformed counts ignored
        h["launches"] = json::array({json::array({"k", true, 655360}), json::array({"k2", true, 2}),
                                     json::array({"lib", false, 7}), json::array({"bad", true, 0}),
                                     json::array({"bad2", true, "9"})});
      } else {
        h["launches"] = json::array({json::array({"k", true})});
      }
      h["c_launches"] = 0;
      h["aten_ops"] = {"aten::empty"};
      h["forbidden_ops"] = sc == "forbidden_op" || sc == "forbidden_op_wrong"
                               ? json::array({"aten::mm"})
                               : json::array();
      h["hooks_intact"] = sc != "tamper";
      h["global_state_changed"] = false;
      h["compiled_path"] = false;
      // The run-time guards' fields (proof_of_work.h); a frame without them fails.
      h["output_writers"] = json::array({"kernel"});
      h["module_hooks"] = json::array();
      h["host_calls"] = json::array();
      h["internal_calls"] = json::array();
      h["host_steps"] = json::array({json::array({2, 1})});
      h["thread_ban"] = "on";
    }
    Send(h);
    // The output's bytes as slice frames (one per element here: slices of any multiple of 8
    // bytes are allowed, and the engine compares them against the reference's as they come).
    if (sc == "subclass") continue;
    const std::string bytes = Floats(first, 1.5f);
    if (sc == "slice_out_of_order") {
      Send({{"type", "slice"}, {"output", 0}, {"offset", 4}}, bytes.substr(4));
      continue;
    }
    if (sc == "slice_overflow") {  // more bytes than declared
      Send({{"type", "slice"}, {"output", 0}, {"offset", 0}}, bytes + bytes);
      continue;
    }
    if (sc == "slice_missing") {  // the header's promise not kept: "done" instead of the bytes
      Send({{"type", "done"}});
      return 0;
    }
    if (sc == "odd_slices") {  // a first slice that is not a multiple of 8 bytes
      Send({{"type", "slice"}, {"output", 0}, {"offset", 0}}, bytes.substr(0, 4));
      Send({{"type", "slice"}, {"output", 0}, {"offset", 4}}, bytes.substr(4));
      continue;
    }
    Send({{"type", "slice"}, {"output", 0}, {"offset", 0}}, bytes);
  }
  Send({{"type", "done"}});
  return 0;
}
