// AutoTriton's rule-based reward check, reproduced for the ablation's `binary` arm: the paper's
// "is_Triton" linter, of which its v1 shows one rule only, the presence of `@triton.jit`
// (shared/research/autotriton_kernelbench.md, A.4). Deliberately as weak as the paper's: a
// `@triton.jit` stub that is never launched passes it, which is the hack the paper reports and
// the point of comparing this arm against our full verifier. Pure function; any thread.
#pragma once

#include <string_view>

namespace tritonrl::verify {

// True when some line of `code`, leading whitespace aside, is a decorator `@triton.jit`
// (bare or called: `@triton.jit(...)`), outside string literals at least as far as a line
// scanner can tell (a line inside a triple-quoted string is skipped).
bool AutoTritonIsTriton(std::string_view code);

}  // namespace tritonrl::verify
