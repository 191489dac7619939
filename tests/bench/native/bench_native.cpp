// The native peer of the benchmark: the same C++ (cpp/, portable path: ABH_SIMD is 0 outside wasm)
// compiled with -O3 -march=native, timing the same shapes as the wasm benchmark with the same inputs
// (mulberry32, as tests/bench/data.ts). Prints one JSON object on stdout; tests/bench/run.ts reads it.
//
//   abh_bench_native [--quick | --n=512,1024] [--budget-ms=1500]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attention.h"
#include "flash.h"
#include "pipeline.h"

namespace {

struct Shape {
  int n, heads, d;
  bool causal;
};

// mulberry32, bit for bit the generator in tests/bench/data.ts.
struct Mulberry32 {
  std::uint32_t state;
  double next() {
    state += 0x6d2b79f5u;
    std::uint32_t t = state;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return double(t ^ (t >> 14)) / 4294967296.0;
  }
};

struct Inputs {
  std::vector<abh::Matrix> Q, K, V;  // one per head
};

Inputs make_inputs(const Shape& s) {
  Mulberry32 rng{std::uint32_t(0xa77e ^ (s.n * 131 + s.heads))};
  std::vector<float> q(std::size_t(s.heads) * s.n * s.d), k(q.size()), v(q.size());
  for (auto* a : {&q, &k, &v})
    for (float& x : *a) x = float(rng.next() * 2 - 1);
  Inputs in;
  for (int h = 0; h < s.heads; ++h) {
    const std::size_t off = std::size_t(h) * s.n * s.d;
    in.Q.push_back(Eigen::Map<const abh::Matrix>(q.data() + off, s.n, s.d));
    in.K.push_back(Eigen::Map<const abh::Matrix>(k.data() + off, s.n, s.d));
    in.V.push_back(Eigen::Map<const abh::Matrix>(v.data() + off, s.n, s.d));
  }
  return in;
}

double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const std::size_t m = xs.size() / 2;
  return xs.size() % 2 ? xs[m] : (xs[m - 1] + xs[m]) / 2;
}

struct Timing {
  bool ok = false;
  std::string reason;
  double median_ms = 0, cpu_median_ms = 0;
  int samples = 0;
};

volatile float sink;

template <class F>
Timing time_it(F&& run, double budget_ms, double max_run_ms) {
  Timing t;
  const double w0 = wall_ms();
  run();  // warm-up
  const double first = wall_ms() - w0;
  if (first > max_run_ms) {
    t.reason = "too slow: " + std::to_string(int(first)) + " ms per run";
    return t;
  }
  const int batch = std::max(1, int(std::ceil(2.0 / std::max(first, 1e-3))));
  const int rounds = std::clamp(int(budget_ms / std::max(first * batch, 1e-3)), 5, 41);
  std::vector<double> wall, cpu;
  for (int r = 0; r < rounds; ++r) {
    const double c = cpu_ms(), w = wall_ms();
    for (int i = 0; i < batch; ++i) run();
    wall.push_back((wall_ms() - w) / batch);
    cpu.push_back((cpu_ms() - c) / batch);
  }
  t.ok = true;
  t.median_ms = median(wall);
  t.cpu_median_ms = median(cpu);
  t.samples = rounds;
  return t;
}

void print_timing(const char* name, const Timing& t) {
  if (t.ok)
    std::printf("\"%s\": {\"status\": \"ok\", \"medianMs\": %.6f, \"cpuMedianMs\": %.6f, \"samples\": %d}", name,
                t.median_ms, t.cpu_median_ms, t.samples);
  else
    std::printf("\"%s\": {\"status\": \"skipped\", \"reason\": \"%s\"}", name, t.reason.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> lengths = {4, 16, 64, 256, 512, 1024, 2048, 4096};
  double budget_ms = 1000, max_run_ms = 1500;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick")
      lengths = {64, 512};
    else if (arg.rfind("--n=", 0) == 0) {
      lengths.clear();
      for (const char* p = arg.c_str() + 4; *p;) {
        lengths.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    } else if (arg.rfind("--budget-ms=", 0) == 0)
      budget_ms = std::atof(arg.c_str() + 12);
  }

  std::printf("{\"compiler\": \"%s\", \"flags\": \"-O3 -march=native\", \"cases\": [\n",
#if defined(__clang__)
              "clang " __clang_version__
#else
              "gcc " __VERSION__
#endif
  );
  bool first = true;
  for (int heads : {1, 8})
    for (bool causal : {false, true})
      for (int n : lengths) {
        const Shape s{n, heads, 64, causal};
        const Inputs in = make_inputs(s);
        abh::FlashOptions options;
        options.block_q = 64;
        options.block_k = 64;
        options.causal = causal;
        const Timing flash = time_it(
            [&] {
              for (int h = 0; h < heads; ++h)
                sink = abh::flash_attention(in.Q[h], in.K[h], in.V[h], options).value().output(0, 0);
            },
            budget_ms, max_run_ms);
        const abh::Mask mask = causal ? abh::causal_mask(n) : abh::Mask();
        const Timing naive = time_it(
            [&] {
              for (int h = 0; h < heads; ++h)
                sink = abh::attention(in.Q[h], in.K[h], in.V[h], causal ? &mask : nullptr).value().output(0, 0);
            },
            budget_ms, max_run_ms);
        std::printf("%s {\"n\": %d, \"heads\": %d, \"d\": %d, \"causal\": %s, ", first ? "" : ",\n", n, heads, s.d,
                    causal ? "true" : "false");
        print_timing("flash", flash);
        std::printf(", ");
        print_timing("naive", naive);
        std::printf("}");
        std::fflush(stdout);
        first = false;
        std::fprintf(stderr, "[native] n=%d h=%d%s flash %.3f ms, naive %.3f ms\n", n, heads, causal ? " causal" : "",
                     flash.median_ms, naive.median_ms);
      }
  // The walkthrough's call without the JS boundary: run_pipeline_into alone (every intermediate, 8 heads).
  std::printf("\n], \"pipeline\": [\n");
  first = true;
  for (int d_model : {8, 64, 512})
    for (int n : {4, 16, 64}) {
      abh::PipelineConfig config;
      for (int i = 0; i < n; ++i) config.token_ids.push_back(std::uint32_t(1000 + i));
      config.d_model = d_model;
      config.heads = 8;
      // As the wasm bindings run it: into a workspace reused across calls.
      abh::PipelineWorkspace workspace;
      abh::PipelineView view;
      const Timing t = time_it(
          [&] {
            abh::run_pipeline_into(config, workspace, view);
            sink = view.tensor(abh::kPipeOutput)[0];
          },
          300, max_run_ms);
      std::printf("%s {\"n\": %d, \"dModel\": %d, \"heads\": 8, \"medianUs\": %.3f, \"cpuMedianUs\": %.3f}",
                  first ? "" : ",\n", n, d_model, t.median_ms * 1000, t.cpu_median_ms * 1000);
      first = false;
    }
  std::printf("\n]}\n");
  return 0;
}
