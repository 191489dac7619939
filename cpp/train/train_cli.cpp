// Trains a model natively and writes its weights file (and a JSON record of how it was trained):
// `npm run train:weights` runs it to regenerate web/src/model/who-is-it.bin; a ctest runs the same
// command line and compares the result with the committed file byte for byte.
//
//   abh_train [--task who-is-it] [--layers 2] [--heads 2] [--d-model 32] [--lr 0.003] [--batch 32]
//             [--seed 1] [--steps 300] [--optimizer adamw] [--log-every 25] [--out file.bin] [--json file.json]
//             [--scale 1] [--clip 1] [--mask task]
//   abh_train --jsonl 1 [options] [--log-at 0,25,50,100]   instead of the text log, one JSON line per
//             evaluation (every --log-every steps, or at the listed steps; 0 is the untrained model):
//             { step, loss, heldoutLoss, heldoutAccuracy, gradientNorm, entropy, layerEntropy: [L],
//               gradWq: [L] (|dL/dW_q| of the step that reached this one, before clipping; at step 0
//               that of step 1, taken at the initial weights), heads: [{ layer, head, previousToken,
//               induction, inductionLatest, self, first, entropy }] } (trainer.h's HeadScores; the
//               experiments of issue 20)
//   abh_train --bench 1 [options] --steps S   times S steps after 5 warm-up steps and prints one JSON
//             line { "cpuMsPerStep", "wallMsPerStep" } (tests/bench/training.ts, `npm run bench`)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_flags.h"
#include "trainer.h"

using namespace abh::train;

namespace {

// One evaluation as a JSON line (see the header); gradient_norms are per layout entry.
void print_json_line(int step, float train_loss, float gradient_norm, const Trainer& trainer,
                     const std::vector<float>& gradient_norms) {
  const Evaluation e = trainer.evaluate();
  const AttentionScores scores = trainer.attention_scores();
  std::ostringstream o;
  o.precision(6);
  o << "{\"step\": " << step << ", \"loss\": " << train_loss << ", \"heldoutLoss\": " << e.loss
    << ", \"heldoutAccuracy\": " << e.accuracy << ", \"gradientNorm\": " << gradient_norm
    << ", \"entropy\": " << scores.entropy << ", \"layerEntropy\": [";
  for (std::size_t l = 0; l < scores.layer_entropy.size(); ++l) o << (l ? ", " : "") << scores.layer_entropy[l];
  o << "], \"gradWq\": [";
  const auto& entries = trainer.layout().entries;
  bool any = false;
  for (std::size_t i = 0; i < entries.size() && i < gradient_norms.size(); ++i) {
    const std::string& name = entries[i].name;
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".W_q") != 0) continue;
    o << (any ? ", " : "") << gradient_norms[i];
    any = true;
  }
  o << "], \"heads\": [";
  for (std::size_t i = 0; i < scores.heads.size(); ++i) {
    const HeadScores& h = scores.heads[i];
    o << (i ? ", " : "") << "{\"layer\": " << h.layer << ", \"head\": " << h.head
      << ", \"previousToken\": " << h.previous_token << ", \"induction\": " << h.induction
      << ", \"inductionLatest\": " << h.induction_latest << ", \"self\": " << h.self << ", \"first\": " << h.first
      << ", \"entropy\": " << h.entropy << "}";
  }
  o << "]}\n";
  std::fputs(o.str().c_str(), stdout);
}

}  // namespace

int main(int argc, char** argv) {
  TrainConfig config;
  int steps = 300, log_every = 25;
  bool bench = false, jsonl = false;
  std::vector<int> log_at;  // --log-at: the steps to evaluate at (jsonl)
  std::string out_path, json_path;
  const bool parsed = CliFlags()
                          .add("--task", config.task)
                          .add("--layers", config.layers)
                          .add("--heads", config.heads)
                          .add("--d-model", config.d_model)
                          .add("--lr", config.learning_rate)
                          .add("--batch", config.batch)
                          .add("--seed", config.seed)
                          .add("--optimizer", config.optimizer)
                          .add("--mlp", config.mlp)
                          .add("--layer-norm", config.layer_norm)
                          .add("--scale", config.scale)
                          .add("--clip", config.clip)
                          .add("--mask", config.mask)
                          .add("--jsonl", jsonl)
                          .add("--log-at",
                               [&log_at](const std::string& value) {
                                 std::stringstream list(value);
                                 for (std::string item; std::getline(list, item, ',');)
                                   log_at.push_back(std::atoi(item.c_str()));
                               })
                          .add("--steps", steps)
                          .add("--log-every", log_every)
                          .add("--out", out_path)
                          .add("--json", json_path)
                          .add("--bench", bench)
                          .parse(argc, argv);
  if (!parsed) return 2;
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
  if (jsonl) {
    // evaluations at the listed steps (or every log_every), step 0 included; the gradient norms of a
    // line at step s are those of step s (at step 0: of step 1, computed at the initial weights)
    if (log_at.empty())
      for (int s = 0; s <= steps; s += std::max(1, log_every > 0 ? log_every : steps)) log_at.push_back(s);
    for (const int at : log_at) {
      if (at < trainer.steps_done() || (at == trainer.steps_done() && at > 0) || at > steps) continue;
      if (at == 0) {
        // the untrained model's line, with the gradient of step 1 taken from a copy of the trainer
        const auto bytes = trainer.export_weights();
        auto probe = Trainer::import_weights(bytes.data(), bytes.size());
        const auto first = probe.value()->step(1);
        print_json_line(0, first.ok() ? first.value().loss : NAN, first.ok() ? first.value().gradient_norm : NAN,
                        trainer, probe.value()->gradient_norms());
        continue;
      }
      StepReport last;
      while (trainer.steps_done() < at) {
        const auto report = trainer.step(std::min(kMaxStepsPerCall, at - trainer.steps_done()));
        if (!report.ok()) {
          std::fprintf(stderr, "%s\n", report.error().c_str());
          return 1;
        }
        last = report.value();
      }
      print_json_line(at, last.loss, last.gradient_norm, trainer, trainer.gradient_norms());
    }
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
