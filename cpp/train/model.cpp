#include "model.h"

namespace abh::train {

ParameterLayout ParameterLayout::of(const ModelConfig& config) {
  ParameterLayout L;
  const int C = config.d_model, V = config.vocab, H4 = kMlpExpansion * C;
  auto add = [&](std::string name, int rows, int cols) {
    const std::size_t at = L.count;
    L.entries.push_back({std::move(name), at, rows, cols});
    L.count += std::size_t(rows) * cols;
    return at;
  };
  L.wte = add("wte", V, C);
  L.wpe = add("wpe", config.positions, C);
  for (int l = 0; l < config.layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + ".";
    LayerOffsets& o = L.layer[l];
    if (config.layer_norm) {
      o.ln1_w = add(p + "ln1_w", 1, C);
      o.ln1_b = add(p + "ln1_b", 1, C);
    }
    o.W_q = add(p + "W_q", C, C);
    o.W_k = add(p + "W_k", C, C);
    o.W_v = add(p + "W_v", C, C);
    o.W_o = add(p + "W_o", C, C);
    if (config.mlp) {
      if (config.layer_norm) {
        o.ln2_w = add(p + "ln2_w", 1, C);
        o.ln2_b = add(p + "ln2_b", 1, C);
      }
      o.fc_w = add(p + "fc_w", C, H4);
      o.fc_b = add(p + "fc_b", 1, H4);
      o.proj_w = add(p + "proj_w", H4, C);
      o.proj_b = add(p + "proj_b", 1, C);
    }
  }
  if (config.layer_norm) {
    L.lnf_w = add("lnf_w", 1, C);
    L.lnf_b = add("lnf_b", 1, C);
  }
  L.w_out = config.head == Head::kPointer ? add("W_p", C, C) : add("w_out", C, V);
  return L;
}

// Embeddings ~ N(0, 1) like the article's randn X; every (in, out) matrix ~ N(0, 1/in) so that its
// outputs keep unit variance (the pipeline's generate_projection does the same); LayerNorm gains 1,
// biases 0. Each tensor draws from its own stream (seed, index in the layout).
void initialize_parameters(const ParameterLayout& L, std::uint32_t seed, float* params) {
  for (std::size_t e = 0; e < L.entries.size(); ++e) {
    const ParameterEntry& entry = L.entries[e];
    float* p = params + entry.offset;
    const std::size_t size = std::size_t(entry.rows) * entry.cols;
    const std::string& name = entry.name;
    const auto ends_with = [&](const char* suffix) {
      const std::string s(suffix);
      return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    if (ends_with("_b")) {
      for (std::size_t i = 0; i < size; ++i) p[i] = 0.0f;
    } else if (ends_with("ln1_w") || ends_with("ln2_w") || name == "lnf_w") {
      for (std::size_t i = 0; i < size; ++i) p[i] = 1.0f;
    } else {
      SplitMix64 rng(stream_seed(seed, 0x7261696e00000000ull + e));  // "rain" + index
      const float std_dev = (name == "wte" || name == "wpe") ? 1.0f : 1.0f / std::sqrt(float(entry.rows));
      for (std::size_t i = 0; i < size; ++i) p[i] = rng.normal() * std_dev;
    }
  }
}

}  // namespace abh::train
