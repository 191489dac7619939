// How the long-context kernels (cpp/long_context.h) scale with n, natively: the same C++ as the wasm
// engine, portable path, -O3 -march=native. For n from 4,096 to 65,536 (d_k 64, one head) it times
// sliding-window, sparse and linear attention, a decoding step against n cached tokens, and the tiled
// full attention for comparison, then fits log(time) = slope log(n) + c per kernel. Window, global
// and linear attention should have slope ~1, full attention ~2; the strided pattern with a fixed
// stride s computes n^2 / s cells besides its window, so its slope lies between.
//
//   abh_bench_long_native [--n=4096,8192] [--max-full-n=16384] [--runs=3] [--only=window,linear]
//
// Prints one JSON object on stdout (times in ms: the median of the runs' thread CPU times, which
// other processes on a shared machine disturb less than wall time), progress on stderr.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "flash.h"
#include "long_context.h"
#include "random.h"

namespace {

constexpr int kDk = 64;

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

volatile float sink;

// The median thread CPU time of `runs` calls after one warm-up call.
double time_ms(const std::function<float()>& run, int runs) {
  sink = run();
  std::vector<double> samples;
  for (int r = 0; r < runs; ++r) {
    const double start = cpu_ms();
    sink = run();
    samples.push_back(cpu_ms() - start);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

abh::Matrix random_matrix(abh::SplitMix64& rng, int rows, int cols) {
  abh::Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal();
  return m;
}

// Least-squares slope of log(time) against log(n).
double fitted_slope(const std::vector<int>& ns, const std::vector<double>& ms) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double k = double(ns.size());
  for (std::size_t i = 0; i < ns.size(); ++i) {
    const double x = std::log(double(ns[i])), y = std::log(ms[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

struct Kernel {
  std::string name, what;
  std::function<float(const abh::Matrix&, const abh::Matrix&, const abh::Matrix&)> run;
  int max_n;
  std::vector<int> ns;
  std::vector<double> ms;
};

abh::SparsePattern pattern(int window, int global, int stride) {
  abh::SparsePattern p;
  p.window = window;
  p.global = global;
  p.stride = stride;
  p.causal = true;
  return p;
}

float first(const abh::Matrix& m) { return m(0, 0); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> lengths = {4096, 8192, 16384, 32768, 65536};
  int max_full_n = 16384, runs = 3;
  std::string only;  // comma-separated kernel names (and "decode"); empty: all
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--n=", 0) == 0) {
      lengths.clear();
      for (const char* p = arg.c_str() + 4; *p;) {
        lengths.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    } else if (arg.rfind("--max-full-n=", 0) == 0) {
      max_full_n = std::atoi(arg.c_str() + 13);
    } else if (arg.rfind("--only=", 0) == 0) {
      only = "," + arg.substr(7) + ",";
    } else if (arg.rfind("--runs=", 0) == 0) {
      runs = std::max(1, std::atoi(arg.c_str() + 7));
    }
  }

  auto wanted = [&](const std::string& name) {
    return only.empty() || only.find("," + name + ",") != std::string::npos;
  };
  const int big = 1 << 30;
  std::vector<Kernel> kernels = {
      {"window", "causal sliding window, w = 256",
       [](auto& Q, auto& K, auto& V) {
         return first(abh::sliding_window_attention(Q, K, V, 256, true).value().output);
       },
       big},
      {"global", "window 256 + 16 global tokens",
       [](auto& Q, auto& K, auto& V) {
         return first(abh::sparse_attention(Q, K, V, pattern(256, 16, 0)).value().output);
       },
       big},
      {"strided", "window 128 + every 256th key",
       [](auto& Q, auto& K, auto& V) {
         return first(abh::sparse_attention(Q, K, V, pattern(128, 0, 256)).value().output);
       },
       big},
      {"linear", "linear attention, elu + 1",
       [](auto& Q, auto& K, auto& V) { return first(abh::linear_attention(Q, K, V, false).value().output); }, big},
      {"linear_causal", "causal linear attention (prefix sums)",
       [](auto& Q, auto& K, auto& V) { return first(abh::linear_attention(Q, K, V, true).value().output); }, big},
      {"flash_causal", "full causal attention, tiled (FlashAttention-style)",
       [](auto& Q, auto& K, auto& V) {
         abh::FlashOptions options;
         options.causal = true;
         return first(abh::flash_attention(Q, K, V, options).value().output);
       },
       max_full_n},
  };

  abh::SplitMix64 rng(0x10C0);
  for (int n : lengths) {
    const abh::Matrix Q = random_matrix(rng, n, kDk), K = random_matrix(rng, n, kDk), V = random_matrix(rng, n, kDk);
    for (Kernel& k : kernels) {
      if (n > k.max_n || !wanted(k.name)) continue;
      const double ms = time_ms([&] { return k.run(Q, K, V); }, runs);
      k.ns.push_back(n);
      k.ms.push_back(ms);
      std::fprintf(stderr, "[long] n=%d %s %.2f ms\n", n, k.name.c_str(), ms);
    }
  }

  // Decoding one token against n cached ones: 8 query heads, 8, 2 or 1 KV heads (MHA, GQA, MQA).
  struct DecodeRow {
    int kv_heads;
    std::vector<int> ns;
    std::vector<double> ms;
  };
  std::vector<DecodeRow> decode;
  if (wanted("decode")) decode = {{8, {}, {}}, {2, {}, {}}, {1, {}, {}}};
  const int h = 8, max_n = *std::max_element(lengths.begin(), lengths.end());
  for (DecodeRow& row : decode) {
    auto cache = abh::KVCache::create(1, row.kv_heads, kDk, max_n).value();
    const abh::Matrix q = random_matrix(rng, h, kDk);
    for (int n : lengths) {
      while (cache.length(0) < n) {
        const abh::Matrix kv = random_matrix(rng, row.kv_heads, kDk);
        cache.append(0, kv, kv);
      }
      const double ms = time_ms([&] { return first(abh::decode_step(cache, 0, q).value().output); }, runs + 2);
      row.ns.push_back(n);
      row.ms.push_back(ms);
      std::fprintf(stderr, "[long] t=%d decode kv_heads=%d %.3f ms\n", n, row.kv_heads, ms);
    }
  }

  auto print_series = [](const std::vector<int>& ns, const std::vector<double>& ms) {
    std::printf("\"n\": [");
    for (std::size_t i = 0; i < ns.size(); ++i) std::printf("%s%d", i ? ", " : "", ns[i]);
    std::printf("], \"ms\": [");
    for (std::size_t i = 0; i < ms.size(); ++i) std::printf("%s%.3f", i ? ", " : "", ms[i]);
    std::printf("], \"slope\": %.3f", ns.size() > 1 ? fitted_slope(ns, ms) : 0.0);
  };
  std::printf("{\"dK\": %d, \"kernels\": [\n", kDk);
  bool first_kernel = true;
  for (const Kernel& k : kernels) {
    if (k.ns.empty()) continue;  // not asked for
    std::printf("%s {\"name\": \"%s\", \"what\": \"%s\", ", first_kernel ? "" : ",\n", k.name.c_str(), k.what.c_str());
    print_series(k.ns, k.ms);
    std::printf("}");
    first_kernel = false;
  }
  std::printf("\n], \"decode\": [\n");
  for (std::size_t i = 0; i < decode.size(); ++i) {
    std::printf("%s {\"heads\": %d, \"kvHeads\": %d, \"bytesPerTokenPerLayer\": %lld, ", i ? ",\n" : "", h,
                decode[i].kv_heads,
                static_cast<long long>(abh::kv_cache_bytes_per_token(1, decode[i].kv_heads, kDk, 4).value()));
    print_series(decode[i].ns, decode[i].ms);
    std::printf("}");
  }
  std::printf("\n]}\n");
  return 0;
}
