// One training step of step 1's reader model (cpp/train/reader.h), natively: the shipped
// configuration (web/src/model/reader.args: 2 layers x 4 heads, d_model 64, MLP, batch 32), on
// sentences drawn from the WordNet corpus inside each step, as `npm run train:weights` trains it.
// The reader trainer is native only (the page never trains this model), so there is no wasm twin.
//
//   abh_bench_reader_train [--wordnet /usr/share/wordnet] [--causal 0|1] [--steps 20] [--samples 7]
//
// Prints one JSON object on stdout: the median thread CPU ms per step over `samples` samples of
// `steps` steps each, after 5 warm-up steps.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "train/corpus/corpus.h"
#include "train/reader.h"

using namespace abh::train;

namespace {

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  std::string wordnet = "/usr/share/wordnet";
  ReaderConfig config;  // the defaults are the shipped model's shape; steps sets only the schedule's length
  config.steps = 5000;
  int steps = 20, samples = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--wordnet")
      wordnet = value;
    else if (flag == "--causal")
      config.causal = value == "1";
    else if (flag == "--steps")
      steps = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--samples")
      samples = std::max(1, std::atoi(value.c_str()));
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  auto generator = corpus::Generator::make(wordnet, config.seed);
  if (!generator.ok()) {
    std::fprintf(stderr, "%s\n", generator.error().c_str());
    return 1;
  }
  corpus::Generator& corpus = generator.value();
  auto made = ReaderTrainer::create(config, corpus.vocabulary(),
                                    [&corpus](corpus::Split split) { return corpus.sample(split); });
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.error().c_str());
    return 1;
  }
  ReaderTrainer& trainer = made.value();
  if (!trainer.step(5).ok()) return 1;
  std::vector<double> per_step;
  for (int s = 0; s < samples; ++s) {
    const double start = cpu_ms();
    if (!trainer.step(steps).ok()) return 1;
    per_step.push_back((cpu_ms() - start) / steps);
  }
  std::sort(per_step.begin(), per_step.end());
  std::printf(
      "{\"causal\": %s, \"layers\": %d, \"heads\": %d, \"dModel\": %d, \"batch\": %d, \"parameters\": %zu, "
      "\"vocabulary\": %zu, \"stepsPerSample\": %d, \"samples\": %d, \"msPerStep\": %.4f, \"p10\": %.4f, \"p90\": "
      "%.4f}\n",
      config.causal ? "true" : "false", config.layers, config.heads, config.d_model, config.batch,
      trainer.model().layout.count, trainer.model().vocabulary.words.size(), steps, samples,
      per_step[per_step.size() / 2], per_step[per_step.size() / 10], per_step[(per_step.size() * 9) / 10]);
  return 0;
}
