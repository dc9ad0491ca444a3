// The random numbers of etsb's portable library (rand, randn, native_dropout).
//
// Contract (kernels/README.md repeats it): one deterministic stream per
// process. Draw n of the stream is SplitMix64 of kRandomSeed + n times the
// golden-ratio increment; a process-wide counter (atomic, so concurrent
// kernels never share draws) hands each kernel call the next block of draws.
// So a process that runs the same calls in the same order gets the same
// values, run after run, and no value depends on the clock or the OS.
// torch's generator is another one: the values differ from torch's, the
// distributions do not (the tests check ranges, means and variances).
#pragma once

#include "kernel_util.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace etsb {
namespace kernels {

/// The seed of the stream ("ETSBSEED" in ASCII).
constexpr uint64_t kRandomSeed = 0x4554534253454544ULL;

/// The index of the next unused draw of the process's stream.
inline std::atomic<uint64_t>& random_position() {
  static std::atomic<uint64_t> position{0};
  return position;
}

/// Reserves `count` consecutive draws for one kernel call; returns the first.
inline uint64_t reserve_draws(uint64_t count) {
  return random_position().fetch_add(count, std::memory_order_relaxed);
}

/// Draw n of the stream: 64 random bits (SplitMix64's output function).
inline uint64_t random_bits(uint64_t n) {
  uint64_t z = kRandomSeed + (n + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The significand bits of a floating dtype: the grid uniform values of T
/// are drawn on, so that every value is exact in T and below 1.
template <typename T>
constexpr int significand_bits() {
  if constexpr (std::is_same<T, double>::value) return 53;
  if constexpr (std::is_same<T, float>::value) return 24;
  if constexpr (std::is_same<T, ::executorch::aten::Half>::value) return 11;
  return 8;  // BFloat16
}

/// Draw n as a uniform value of [0, 1) on T's grid (multiples of 2^-bits).
template <typename T>
inline T uniform_draw(uint64_t n) {
  constexpr int bits = significand_bits<T>();
  return static_cast<T>(std::ldexp(static_cast<double>(random_bits(n) >> (64 - bits)), -bits));
}

/// Draws 2n and 2n+1 as one standard normal value (Box-Muller, in double).
inline double normal_draw(uint64_t n) {
  const double u1 = std::ldexp(static_cast<double>(random_bits(2 * n) >> 11), -53);
  const double u2 = std::ldexp(static_cast<double>(random_bits(2 * n + 1) >> 11), -53);
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  return std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(kTwoPi * u2);
}

}  // namespace kernels
}  // namespace etsb
