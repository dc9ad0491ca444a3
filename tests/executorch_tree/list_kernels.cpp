// Lists the runtime's kernel registry, one operator name a line: what the
// tree test (tests/test_executorch_tree.py) compares with the tree's yaml.
#include <cstdio>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

int main() {
  executorch::runtime::runtime_init();
  for (const auto& kernel : executorch::ET_RUNTIME_NAMESPACE::get_registered_kernels()) {
    std::printf("%s\n", kernel.name_);
  }
  return 0;
}
