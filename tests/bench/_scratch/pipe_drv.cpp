#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "pipeline.h"
int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 4, d_model = argc > 2 ? atoi(argv[2]) : 8, reps = argc > 3 ? atoi(argv[3]) : 3000;
  abh::PipelineConfig c; for (int i = 0; i < n; ++i) c.token_ids.push_back(1000 + i); c.d_model = d_model; c.heads = 8;
  double best = 1e9, sum = 0;
  for (int r = 0; r < reps; ++r) { auto t0 = std::chrono::steady_clock::now(); auto s = abh::run_pipeline(c); if (!s.ok()) return 1; double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count(); sum += us; if (us < best) best = us; }
  printf("run_pipeline n=%d d_model=%d: best %.1f us, mean %.1f us\n", n, d_model, best, sum / reps);
}
