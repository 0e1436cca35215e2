// The rule families of the analyzer, one file each, over a shared Analysis (analyzer_context.h).
// AnalyzeModule (analyzer.cpp) runs the passes in a fixed order, and the order of the findings
// follows it; each entry point appends its findings in the order it walks. docs/rules.md describes
// every rule; rules.h is the catalogue of their ids. Internal to the analyzer_*.cpp files.
#pragma once

#include "pyast/ast.h"
#include "verify/analyzer_binding.h"
#include "verify/analyzer_context.h"

namespace tritonrl::verify::analyzer {

// ModelNew and its launch (analyzer_rules_model.cpp): syntax.no_triton_kernel, syntax.no_modelnew,
// syntax.modelnew_not_module, syntax.no_forward, func.reference_model in the class, then walks
// what forward reaches (filling Analysis::reach) for syntax.kernel_not_launched, then the
// data-movement check on forward. The first pass.
void CheckModelNew(Analysis& a);

// Import-time code and everything reachable (analyzer_reach.cpp walks, the rules below check):
// module and class bodies, decorators, default arguments, kernel bodies and launch hooks, then
// every function reached from them or from forward. The second pass.
void CheckReachableCode(Analysis& a);

// Torch compute (analyzer_rules_compute.cpp): func.torch_compute, func.nn_layer_call,
// func.torch_fallback (inside a device-guarded branch of fn) and .handle in a kernel body
// (func.introspection) in the subtree `root` of `fn`. `kernel`: a Triton kernel body (tensor
// methods are Triton's there); `calls` false checks only references (a stored value: calls in it
// ran when it was built).
void CheckCompute(Analysis& a, pyast::Node* root, pyast::Node* fn, pyast::ClassDef* owner,
                  const Scope& scope, bool kernel, bool calls);

// State and control on one reachable function (analyzer_rules_state.cpp): func.global_state,
// func.instance_state, func.try_except (recorded in Analysis::on_path_try), func.reference_model
// (forward reaches Model), then CheckCompute over the body.
void CheckReachableFn(Analysis& a, pyast::Node* fn, pyast::ClassDef* owner);

// Data movement that is the whole answer (analyzer_rules_movement.cpp): forward returns a
// materialised copy of an input, or a buffer filled by copy_ from one that no call is handed
// (func.torch_compute).
void CheckMovementAnswer(Analysis& a, pyast::Node* forward);

// Rules on the whole file, reachable or not (analyzer_rules_file.cpp): func.try_except_outside
// (needs the second pass's on_path_try), async, Tensor subclasses, dunder and frame attributes,
// builtins with a rule, computed getattr/setattr, global flags, monkeypatching, banned and
// not-allowed modules, banned imports even when unused. The third pass.
void CheckFileWide(Analysis& a);

// Kernel shapes (analyzer_rules_kernel.cpp): func.copy_only_kernel, a kernel that stores only
// loaded, constant or converted values (no arithmetic on them) and calls no dot, atomic or other
// kernel. The last pass.
void CheckKernelShapes(Analysis& a);

}  // namespace tritonrl::verify::analyzer
