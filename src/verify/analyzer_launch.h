// Kernel values and launches. A kernel value is a kernel, a container of kernels or a launcher
// `k[grid]`, under any name the file gives it; a function's launch facts say whether its body
// launches one directly, launches a parameter, or hands a kernel to a call. Reachability gathers
// the facts of every function forward reaches, and syntax.kernel_not_launched is decided on them.
// Read-only on the bindings; the Lookups caches fill as a side effect. Internal to analyzer_*.cpp.
#pragma once

#include "pyast/ast.h"
#include "verify/analyzer_binding.h"
#include "verify/analyzer_lookup.h"

namespace tritonrl::verify::analyzer {

// What a walk over reachable code found about launches.
struct LaunchFacts {
  bool direct = false;         // k[grid](...), a bound launcher, k.run(..., grid=...)
  bool through_param = false;  // p[grid](...) with p a parameter of the function
  bool kernel_passed = false;  // a kernel value handed to a call as an argument
};

// A value that is a kernel, a container of kernels, or a launcher `k[grid]`: a kernel name or
// alias, triton.jit(fn), self.k / Cls.k (a class-body kernel or an attribute holding one), a
// module or local variable holding one (`locals`: names already known to hold one), a subscript of
// any of these, a conditional between them, or the result of a kernel factory.
bool IsKernelValue(Lookups& look, const pyast::Node* v, pyast::ClassDef* owner,
                   const NameSetView* locals, int depth = 0);

// Adds the launch facts of one function body to `facts` (kernel values are tracked through local
// assignments and loops).
void FindLaunches(Lookups& look, pyast::Node* fn, pyast::ClassDef* owner, LaunchFacts* facts);

}  // namespace tritonrl::verify::analyzer
