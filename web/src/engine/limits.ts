// The engine's documented limits (cpp/engine_limits.h), for code that needs them before an engine
// exists: the page's settings clamp to them synchronously. They are read from the header itself,
// which the bundler inlines as text, so no number is copied; engine.info().limits publishes the same
// constants at run time (tests/unit/pipeline-format.test.ts checks that both agree).
import header from '../../../cpp/engine_limits.h?raw';
import modelHeader from '../../../cpp/train/model.h?raw';
import trainerHeader from '../../../cpp/train/trainer.h?raw';

/**
 * Each `constexpr <type> kName = <number>` of a header (several per declaration too: `kMin = 4, kMax = 128`),
 * by name; `std::int64_t(1) << <bits>` is a power of two, and a float's `f` suffix is dropped.
 */
function readLimits(text: string): Record<string, number> {
  const limits: Record<string, number> = {};
  for (const [, declarators] of text.matchAll(/constexpr\s+[\w:]+\s+(k\w+\s*=[^;]+);/g)) {
    for (const declarator of declarators!.split(',')) {
      const [name, value] = declarator.split('=').map((part) => part.trim());
      const shift = /^std::int64_t\(1\)\s*<<\s*(\d+)$/.exec(value!);
      limits[name!] = shift ? 2 ** Number(shift[1]) : Number(value!.replace(/f$/, ''));
    }
  }
  return limits;
}

function limitsOf(file: string, text: string): (name: string) => number {
  const read = readLimits(text);
  return (name) => {
    const value = read[name];
    if (value === undefined || !Number.isFinite(value)) throw new Error(`${file} has no number ${name}`);
    return value;
  };
}

const limit = limitsOf('cpp/engine_limits.h', header);
const modelLimit = limitsOf('cpp/train/model.h', modelHeader);
const trainerLimit = limitsOf('cpp/train/trainer.h', trainerHeader);

/** The limits the page's settings restate. */
export const ENGINE_LIMITS = Object.freeze({
  maxHeads: limit('kMaxHeads'),
  maxSeed: limit('kMaxSeed'),
});

/** The training core's limits (cpp/train/model.h, trainer.h), which the training settings clamp to. */
export const TRAINING_LIMITS = Object.freeze({
  maxLayers: modelLimit('kMaxLayers'),
  maxHeads: modelLimit('kMaxHeads'),
  minDModel: modelLimit('kMinDModel'),
  maxDModel: modelLimit('kMaxDModel'),
  maxPositions: modelLimit('kMaxPositions'),
  maxStepsPerCall: trainerLimit('kMaxStepsPerCall'),
  maxTotalSteps: trainerLimit('kMaxTotalSteps'),
  maxLearningRate: trainerLimit('kMaxLearningRate'),
});
