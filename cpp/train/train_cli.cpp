// Trains a model natively and writes its weights file (and a JSON record of how it was trained):
// `npm run train:weights` runs it to regenerate web/src/model/who-is-it.bin; a ctest runs the same
// command line and compares the result with the committed file byte for byte.
//
//   abh_train [--task who-is-it] [--layers 2] [--heads 2] [--d-model 32] [--lr 0.003] [--batch 32]
//             [--seed 1] [--steps 300] [--optimizer adamw] [--log-every 25] [--out file.bin] [--json file.json]
//   abh_train --bench 1 [options] --steps S   times S steps after 5 warm-up steps and prints one JSON
//             line { "cpuMsPerStep", "wallMsPerStep" } (tests/bench/training.ts, `npm run bench`)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

#include "trainer.h"

using namespace abh::train;

int main(int argc, char** argv) {
  TrainConfig config;
  int steps = 300, log_every = 25;
  bool bench = false;
  std::string out_path, json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "missing value after %s\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--task")
      config.task = value;
    else if (flag == "--layers")
      config.layers = std::atoi(value.c_str());
    else if (flag == "--heads")
      config.heads = std::atoi(value.c_str());
    else if (flag == "--d-model")
      config.d_model = std::atoi(value.c_str());
    else if (flag == "--lr")
      config.learning_rate = std::strtof(value.c_str(), nullptr);
    else if (flag == "--batch")
      config.batch = std::atoi(value.c_str());
    else if (flag == "--seed")
      config.seed = std::uint32_t(std::strtoul(value.c_str(), nullptr, 10));
    else if (flag == "--optimizer")
      config.optimizer = value;
    else if (flag == "--mlp")
      config.mlp = value == "1";
    else if (flag == "--layer-norm")
      config.layer_norm = value == "1";
    else if (flag == "--steps")
      steps = std::atoi(value.c_str());
    else if (flag == "--log-every")
      log_every = std::atoi(value.c_str());
    else if (flag == "--out")
      out_path = value;
    else if (flag == "--json")
      json_path = value;
    else if (flag == "--bench")
      bench = value == "1";
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  auto created = Trainer::create(config);
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.error().c_str());
    return 2;
  }
  Trainer& trainer = *created.value();
  if (bench) {
    if (!trainer.step(5).ok()) return 1;
    timespec cpu0, cpu1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
    const auto wall0 = std::chrono::steady_clock::now();
    const auto report = trainer.step(steps);
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
    if (!report.ok()) {
      std::fprintf(stderr, "%s\n", report.error().c_str());
      return 1;
    }
    const double cpu = 1e3 * double(cpu1.tv_sec - cpu0.tv_sec) + 1e-6 * double(cpu1.tv_nsec - cpu0.tv_nsec);
    std::printf("{\"cpuMsPerStep\": %.6f, \"wallMsPerStep\": %.6f, \"loss\": %.6f}\n", cpu / steps, wall / steps,
                report.value().loss);
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();
  int first_perfect = -1;
  for (int done = 0; done < steps;) {
    const int chunk = std::min(log_every > 0 ? log_every : steps, steps - done);
    const auto report = trainer.step(chunk);
    if (!report.ok()) {
      std::fprintf(stderr, "%s\n", report.error().c_str());
      return 1;
    }
    done += chunk;
    const Evaluation e = trainer.evaluate();
    if (e.accuracy == 1.0f && first_perfect < 0) first_perfect = done;
    std::printf("step %5d  loss %.4f  held-out accuracy %.4f  held-out loss %.4f\n", done, report.value().mean_loss,
                e.accuracy, e.loss);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d steps in %.2f s (%.3f ms per step, evaluations included); %zu parameters\n", steps, seconds,
              1e3 * seconds / steps, trainer.layout().count);
  const Evaluation e = trainer.evaluate();
  for (const auto& s : trainer.head_shares())
    std::printf("layer %d head %d: from \"it\" on referent %.3f, other noun %.3f, adjective %.3f, itself %.3f\n",
                s.layer, s.head, s.referent, s.other_noun, s.adjective, s.self);
  if (!out_path.empty()) {
    const auto bytes = trainer.export_weights();
    std::ofstream(out_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    std::printf("wrote %s (%zu bytes)\n", out_path.c_str(), bytes.size());
  }
  if (!json_path.empty()) {
    std::ofstream json(json_path);
    json << "{\n  \"task\": \"" << config.task << "\",\n  \"layers\": " << config.layers
         << ",\n  \"heads\": " << config.heads << ",\n  \"dModel\": " << config.d_model
         << ",\n  \"parameters\": " << trainer.layout().count << ",\n  \"optimizer\": \"" << config.optimizer
         << "\",\n  \"learningRate\": " << config.learning_rate << ",\n  \"batch\": " << config.batch
         << ",\n  \"seed\": " << config.seed << ",\n  \"steps\": " << steps
         << ",\n  \"heldoutExamples\": " << e.examples << ",\n  \"heldoutAccuracy\": " << e.accuracy
         << ",\n  \"heldoutLoss\": " << e.loss << ",\n  \"firstFullAccuracyStep\": " << first_perfect
         << ",\n  \"evaluatedEvery\": " << log_every << ",\n  \"bytes\": " << trainer.export_weights().size()
         << "\n}\n";
  }
  return 0;
}
