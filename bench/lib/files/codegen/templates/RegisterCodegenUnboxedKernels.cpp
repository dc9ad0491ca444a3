// Minimal template written for etsb's benchmark; ExecuTorch's generator fills the ${...} parts.
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/profiler.h>
#include "${fn_header}"

namespace torch {
namespace executor {
namespace function {
namespace {

Kernel kernels_to_register[] = {
    ${unboxed_kernels}
};

const auto registered = register_kernels(
    Span<const Kernel>(kernels_to_register, sizeof(kernels_to_register) / sizeof(kernels_to_register[0])));

}  // namespace
}  // namespace function
}  // namespace executor
}  // namespace torch
