// The 8-byte atomic operations of GCC's libatomic, for the boards of
// platforms/cortex_m. Armv7-M and Armv8-M have exclusive loads and stores of
// 1, 2 and 4 bytes only, so GCC compiles a std::atomic<uint64_t> (the
// portable kernels' random stream position: kernels/portable/cpu/util/
// random_util.h) to calls of these; arm-none-eabi has no libatomic to
// provide them. Each here is the plain operation with interrupts masked
// (PRIMASK), which is atomic on a single core, these boards' only kind:
// nothing else can run between its load and its store. The previous mask is
// restored, so a call from code that already masked interrupts leaves them
// masked. The memory order argument needs nothing more: the core does not
// reorder around the masking (the asm statements are compiler barriers).

#include <cstdint>

namespace {

using Word = uint64_t;

// Masks interrupts; returns the previous PRIMASK.
inline uint32_t mask_interrupts() {
  uint32_t previous;
  __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(previous)::"memory");
  return previous;
}

inline void restore_interrupts(uint32_t previous) {
  __asm volatile("msr primask, %0" ::"r"(previous) : "memory");
}

// `*address = update(*address, value)` with interrupts masked; returns the old value.
template <typename Update>
Word exchange_with(volatile void* address, Word value, Update update) {
  volatile Word* word = static_cast<volatile Word*>(address);
  const uint32_t previous = mask_interrupts();
  const Word old = *word;
  *word = update(old, value);
  restore_interrupts(previous);
  return old;
}

}  // namespace

extern "C" {

Word __atomic_load_8(const volatile void* address, int) {
  const uint32_t previous = mask_interrupts();
  const Word value = *static_cast<const volatile Word*>(address);
  restore_interrupts(previous);
  return value;
}

void __atomic_store_8(volatile void* address, Word value, int) {
  exchange_with(address, value, [](Word, Word v) { return v; });
}

Word __atomic_exchange_8(volatile void* address, Word value, int) {
  return exchange_with(address, value, [](Word, Word v) { return v; });
}

bool __atomic_compare_exchange_8(volatile void* address, void* expected, Word desired, bool, int, int) {
  volatile Word* word = static_cast<volatile Word*>(address);
  Word* wanted = static_cast<Word*>(expected);
  const uint32_t previous = mask_interrupts();
  const Word old = *word;
  const bool equal = old == *wanted;
  if (equal) {
    *word = desired;
  }
  restore_interrupts(previous);
  if (!equal) {
    *wanted = old;
  }
  return equal;
}

Word __atomic_fetch_add_8(volatile void* address, Word value, int) {
  return exchange_with(address, value, [](Word a, Word b) { return a + b; });
}

Word __atomic_fetch_sub_8(volatile void* address, Word value, int) {
  return exchange_with(address, value, [](Word a, Word b) { return a - b; });
}

Word __atomic_fetch_and_8(volatile void* address, Word value, int) {
  return exchange_with(address, value, [](Word a, Word b) { return a & b; });
}

Word __atomic_fetch_or_8(volatile void* address, Word value, int) {
  return exchange_with(address, value, [](Word a, Word b) { return a | b; });
}

Word __atomic_fetch_xor_8(volatile void* address, Word value, int) {
  return exchange_with(address, value, [](Word a, Word b) { return a ^ b; });
}

Word __atomic_add_fetch_8(volatile void* address, Word value, int) {
  return __atomic_fetch_add_8(address, value, 0) + value;
}

Word __atomic_sub_fetch_8(volatile void* address, Word value, int) {
  return __atomic_fetch_sub_8(address, value, 0) - value;
}

}  // extern "C"
