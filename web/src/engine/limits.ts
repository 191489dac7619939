// The engine's and the training core's documented limits, for code that needs them before an engine
// exists: the page's settings clamp to them synchronously. The C++ publishes them (engineInfo().limits
// from cpp/engine_limits.h, trainingLimits() from cpp/train/model.h and trainer.h) and
// `npm run build:wasm` writes what the fresh build publishes into generated/limits.json, so no number
// is copied here and TypeScript reads them this one way (tests/unit/pipeline-format.test.ts checks the
// file against the engine beside it).
import published from './generated/limits.json';
import type { EngineLimits, TrainingLimits } from './types';

/** The engine's size limits (cpp/engine_limits.h), which the page's settings restate. */
export const ENGINE_LIMITS: Readonly<EngineLimits> = Object.freeze(published.engine);

/** The training core's limits (cpp/train/model.h, trainer.h), which the training settings clamp to. */
export const TRAINING_LIMITS: Readonly<TrainingLimits> = Object.freeze(published.training);
