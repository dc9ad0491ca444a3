// Peak single-precision FLOP rate of one core (lib/profiles.py measure_peak): independent chains of
// multiply-adds on 64-byte vectors (zmm with AVX-512; pairs of ymm otherwise), compiled for this
// machine; the best of 100 short rounds.
#include <chrono>
#include <cstdio>
typedef float v16 __attribute__((vector_size(64)));
int main() {
  constexpr int kChains = 16;
  constexpr long kSteps = 1000000;   // ~2 ms a round: the best of many is one no other process cut into
  v16 acc[kChains], a, b;
  for (int lane = 0; lane < 16; ++lane) { a[lane] = 0.999999f; b[lane] = 1e-7f; }
  for (int i = 0; i < kChains; ++i) acc[i] = b * (float)i;
  double best = 0;
  for (int round = 0; round < 100; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (long step = 0; step < kSteps; ++step) {
#pragma GCC unroll 16
      for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * a + b;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double gflops = 2.0 * 16 * kChains * kSteps / seconds / 1e9;
    if (gflops > best) best = gflops;
  }
  float sum = 0;
  for (int i = 0; i < kChains; ++i) sum += acc[i][0];
  std::printf("%.3f %g\n", best, sum);
}
