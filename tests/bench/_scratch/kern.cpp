#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "kernels.h"
#include "random.h"
int main(int argc, char** argv) {
  const int n = 512, d = 64, reps = 200;
  abh::SplitMix64 rng(1);
  std::vector<float> Q(n*d), K(n*d), V(n*d), S(n*n), O(n*d);
  for (auto* v : {&Q, &K, &V}) for (float& x : *v) x = rng.normal();
  auto best = [&](auto f) { double b = 1e9; for (int r = 0; r < reps; ++r) { auto t0 = std::chrono::steady_clock::now(); f(); double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); if (ms < b) b = ms; } return b; };
  double a = best([&] { abh::kernels::scores_qkt(Q.data(), d, K.data(), d, S.data(), n, n, d); });
  double s = best([&] { abh::kernels::scale_mask_softmax(S.data(), S.data(), nullptr, n, n, 0.125f, nullptr); });
  double w = best([&] { abh::kernels::weighted_sum(S.data(), V.data(), d, O.data(), d, n, n, d); });
  double r = best([&] { abh::kernels::repair_overflowed_scores(Q.data(), d, K.data(), d, S.data(), n, n, d); });
  printf("scores %.3f ms (%.1f GF/s)  softmax %.3f ms  weighted %.3f ms (%.1f GF/s)  repair %.3f ms\n", a, 2.0*n*n*d/a/1e6, s, w, 2.0*n*n*d/w/1e6, r);
}
