#include "verify/rules.h"

#include <iterator>

namespace tritonrl::verify {
namespace {

constexpr RuleInfo kRules[] = {
    {"syntax.no_code", "no code found in the output", false, false},
    {"syntax.parse_error", "the code does not parse", false, false},
    {"syntax.no_triton_kernel", "no @triton.jit kernel is defined", false, false},
    {"syntax.no_modelnew", "no class ModelNew is defined", false, false},
    {"syntax.modelnew_not_module", "ModelNew does not subclass torch.nn.Module", false, false},
    {"syntax.no_forward", "ModelNew has no forward method", false, false},
    {"syntax.kernel_not_launched", "forward never launches one of the file's Triton kernels", false,
     false},
    {"func.torch_compute", "PyTorch compute reachable from forward", false, false},
    {"func.nn_layer_call", "an nn layer is called from forward", false, false},
    {"func.try_except", "try/except on the kernel path", false, false},
    {"func.try_except_outside", "try/except outside the kernel path", true, false},
    {"func.concurrency", "threads, processes or asyncio", false, false},
    {"func.cuda_stream", "CUDA streams, events, graphs or allocator control", false, false},
    {"func.torch_compile", "torch.compile, dynamo, inductor, jit or fx", false, false},
    {"func.native_code", "native code or extension loading", false, false},
    {"func.dynamic_code", "dynamic code execution or import", false, false},
    {"func.dynamic_attr", "getattr/setattr/delattr/hasattr with a computed or dunder name", false,
     false},
    {"func.introspection", "frame, object or interpreter introspection", false, false},
    {"func.io_access", "file, process, network or interpreter-exit access", false, false},
    {"func.global_flags", "writes global torch flags or RNG state", false, false},
    {"func.monkeypatch", "assigns an attribute of an imported module or class", false, false},
    {"func.tensor_subclass", "Tensor subclass or torch function/dispatch override", false, false},
    {"func.global_state", "module-level or class-level state written from forward", false, false},
    {"func.instance_state", "instance attribute written from forward", true, false},
    {"func.module_not_allowed", "use of a module outside the allowlist", false, false},
    {"func.reference_model", "ModelNew uses, wraps or subclasses the reference Model", false,
     false},
    {"func.torch_fallback", "PyTorch compute in a device-guarded fallback branch", true, false},
    // The candidate subset (subset.h): what the subset does not name is out.
    {"func.subset_import", "import or module member outside the candidate subset", false, false},
    {"func.subset_name", "name outside the candidate subset", false, false},
    {"func.subset_reflection", "reflection outside the candidate subset", false, false},
    {"func.subset_class", "class outside the candidate subset", false, false},
    {"func.subset_construct", "construct outside the candidate subset", false, false},
    {"func.subset_host_compute", "host code computes on a loop-varying value beyond bookkeeping",
     false, false},
    {"func.subset_kernel_reference", "kernel body references what Triton's compiler rejects", false,
     false},
    {"func.copy_only_kernel", "kernel only copies or fills memory (no arithmetic on loaded data)",
     false, true},
};

}  // namespace

const RuleInfo* FindRule(std::string_view id) {
  for (const RuleInfo& r : kRules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

const RuleInfo* AllRules(size_t* count) {
  *count = std::size(kRules);
  return kRules;
}

}  // namespace tritonrl::verify
