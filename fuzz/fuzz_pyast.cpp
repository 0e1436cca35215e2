// libFuzzer target: any bytes must parse or fail with a SyntaxError, never
// crash, hang or leak; a parsed module must dump and walk.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pyast/dump.h"
#include "pyast/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  tritonrl::pyast::SyntaxError err;
  auto parsed = tritonrl::pyast::ParseModule(src, "<fuzz>", &err);
  if (parsed.ok()) {
    std::string dump = tritonrl::pyast::Dump(parsed->module);
    size_t nodes = 0;
    tritonrl::pyast::Walk(parsed->module, [&](tritonrl::pyast::Node*) {
      ++nodes;
      return true;
    });
    if (dump.empty() || nodes == 0) __builtin_trap();
  } else if (err.line < 0 || err.message.empty()) {
    __builtin_trap();
  }
  return 0;
}
