// The engine's documented limits (cpp/engine_limits.h), for code that needs them before an engine
// exists: the page's settings clamp to them synchronously. They are read from the header itself,
// which the bundler inlines as text, so no number is copied; engine.info().limits publishes the same
// constants at run time (tests/unit/pipeline-format.test.ts checks that both agree).
import header from '../../../cpp/engine_limits.h?raw';

/** Each `constexpr <type> kName = <integer>` or `= std::int64_t(1) << <bits>` of the header, by name. */
function readLimits(text: string): Record<string, number> {
  const limits: Record<string, number> = {};
  for (const [, name, value] of text.matchAll(/constexpr\s+[\w:]+\s+(k\w+)\s*=\s*([^;]+);/g)) {
    const shift = /^std::int64_t\(1\)\s*<<\s*(\d+)$/.exec(value!.trim());
    limits[name!] = shift ? 2 ** Number(shift[1]) : Number(value!.trim());
  }
  return limits;
}

const read = readLimits(header);

function limit(name: string): number {
  const value = read[name];
  if (value === undefined || !Number.isSafeInteger(value)) throw new Error(`cpp/engine_limits.h has no integer ${name}`);
  return value;
}

/** The limits the page's settings restate. */
export const ENGINE_LIMITS = Object.freeze({
  maxHeads: limit('kMaxHeads'),
  maxSeed: limit('kMaxSeed'),
});
