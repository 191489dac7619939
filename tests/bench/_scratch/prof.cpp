#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "flash.h"
#include "attention.h"
#include "random.h"
int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 512, d = 64, reps = argc > 2 ? atoi(argv[2]) : 200;
  const int which = argc > 3 ? atoi(argv[3]) : 0;
  abh::SplitMix64 rng(1);
  abh::Matrix Q(n, d), K(n, d), V(n, d);
  for (int i = 0; i < n * d; ++i) { Q.data()[i] = rng.normal(); K.data()[i] = rng.normal(); V.data()[i] = rng.normal(); }
  double best = 1e9;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    if (which == 0 || which == 2) { abh::FlashOptions o; o.block_q = argc > 4 ? atoi(argv[4]) : 64; o.block_k = argc > 5 ? atoi(argv[5]) : 64; o.causal = which == 2; auto res = abh::flash_attention(Q, K, V, o); if (!res.ok()) return 1; }
    else { auto res = abh::attention(Q, K, V); if (!res.ok()) return 1; }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms < best) best = ms;
  }
  printf("best %.3f ms  %.1f GF/s\n", best, (which == 2 ? 2.0 : 4.0) * n * n * d / best / 1e6);
}
