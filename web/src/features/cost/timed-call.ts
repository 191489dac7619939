// Timing a kernel call that may be shorter than the timer's tick (cost-worker.ts's measurements).

/**
 * The shortest timed call. performance.now() ticks in 100 µs steps in a page that is not cross-origin
 * isolated (Chromium; 1 ms in Firefox and Safari), and a small n on a fast machine runs in less: timed
 * alone it read 0 ms, a point the log-scale chart cannot draw, or a time a whole tick off.
 */
export const MIN_TIMED_MS = 5;
export const MAX_REPEATS = 1 << 16;

/**
 * The fastest of `reps` timed calls, per call, in ms. Each timed call repeats `call` until it lasts
 * MIN_TIMED_MS (the repeats found on the first, which a long call passes at once and which then counts
 * as the first of the reps), and its time is divided by the repeats.
 * @param now  the clock (performance.now; a test's fake)
 */
export function fastestCall(call: () => void, reps: number, now: () => number = () => performance.now()): { ms: number; repeats: number } {
  const timed = (repeats: number) => {
    const start = now();
    for (let i = 0; i < repeats; i++) call();
    return now() - start;
  };
  let repeats = 1;
  let first = timed(repeats);
  while (first < MIN_TIMED_MS && repeats < MAX_REPEATS) {
    repeats = Math.min(MAX_REPEATS, first > 0 ? Math.ceil((repeats * 1.25 * MIN_TIMED_MS) / first) : repeats * 8);
    first = timed(repeats);
  }
  const times = [first];
  for (let r = 1; r < reps; r++) times.push(timed(repeats));
  return { ms: Math.min(...times) / repeats, repeats };
}
