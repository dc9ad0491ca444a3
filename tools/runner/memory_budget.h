// The memory a method may take (--max-memory-mb), planned arenas and the
// runtime's own allocations together, so that a program's claims cannot
// exhaust the machine: a budget, an allocator that spends from it, and the
// memory one method loads and runs with, all taken within one budget.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/platform/log.h>

#include "huge_pages.h"

namespace etsb_runner {

// Bytes left to take.
struct MemoryBudget {
  size_t left;
  // Takes `size` bytes from the budget; false if they are not there.
  bool take(size_t size) {
    if (size > left) return false;
    left -= size;
    return true;
  }
  // Returns `size` bytes taken before.
  void give_back(size_t size) { left += size; }
};

// malloc within a budget: the runtime's allocations for a method (its values,
// kernel arguments and scratch) fail cleanly once the budget is spent. What
// reset() frees (the runtime resets the temp allocator after every kernel)
// goes back to the budget: without that, a kernel's scratch of every run
// added up until, after a few thousand runs, kernels were refused it and
// silently took their slow paths.
class BudgetedAllocator : public executorch::extension::MallocMemoryAllocator {
 public:
  explicit BudgetedAllocator(MemoryBudget& budget) : budget_(budget) {}
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (!budget_.take(size + alignment)) {
      ET_LOG(Error, "the method needs more memory than --max-memory-mb allows (asked for %zu bytes)", size);
      ++refused_;
      if (size > largest_refused_) largest_refused_ = size;
      return nullptr;
    }
    void* memory = MallocMemoryAllocator::allocate(size, alignment);
    if (memory == nullptr) {
      budget_.give_back(size + alignment);
    } else {
      held_ += size + alignment;
    }
    return memory;
  }
  void reset() override {
    budget_.give_back(held_);
    held_ = 0;
    MallocMemoryAllocator::reset();
  }
  // The requests the budget refused, and the largest of them in bytes.
  size_t refused() const { return refused_; }
  size_t largest_refused() const { return largest_refused_; }

 private:
  MemoryBudget& budget_;
  size_t held_ = 0, refused_ = 0, largest_refused_ = 0;
};

// The memory of a method: one buffer per planned arena and per output the
// program leaves to its caller, and the allocators the method loads with,
// all within one budget. It must outlive the method.
struct MethodMemory {
  MemoryBudget budget;
  std::string limit_flag;  // the flag that set the limit, as messages name it
  std::vector<LargeBuffer> buffers;  // on huge pages where the system has them (huge_pages.h)
  std::vector<executorch::runtime::Span<uint8_t>> spans;
  std::unique_ptr<executorch::runtime::HierarchicalAllocator> planned_memory;
  BudgetedAllocator method_allocator{budget}, temp_allocator{budget};
  std::unique_ptr<executorch::runtime::MemoryManager> manager;

  MethodMemory(size_t limit, std::string flag) : budget{limit}, limit_flag(std::move(flag)) {}

  // A zeroed buffer of `bytes` for `what`, checked against the budget first;
  // null when there is none, and `why` says why.
  uint8_t* buffer(size_t bytes, const std::string& what, std::string& why) {
    if (!budget.take(bytes))
      return why = what + " needs " + std::to_string(bytes) + " bytes, more than " + limit_flag + " allows", nullptr;
    buffers.emplace_back(bytes);
    if (buffers.back().data() == nullptr)
      return why = "cannot allocate " + std::to_string(bytes) + " bytes for " + what, nullptr;
    return buffers.back().data();
  }

  // Allocates the planned arenas `meta` declares and the memory manager; false, and `why`, if it cannot.
  bool plan(const executorch::runtime::MethodMeta& meta, std::string& why) {
    for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
      auto size = meta.memory_planned_buffer_size(i);
      if (!size.ok() || size.get() < 0)
        return why = "the method's planned buffer " + std::to_string(i) + " is invalid", false;
      size_t bytes = static_cast<size_t>(size.get());
      uint8_t* arena = buffer(bytes, "the method's planned buffer " + std::to_string(i), why);
      if (arena == nullptr) return false;
      spans.emplace_back(arena, bytes);
    }
    planned_memory.reset(new executorch::runtime::HierarchicalAllocator({spans.data(), spans.size()}));
    manager.reset(new executorch::runtime::MemoryManager(&method_allocator, planned_memory.get(), &temp_allocator));
    return true;
  }
};

}  // namespace etsb_runner
