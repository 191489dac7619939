// fastestCall (web/src/features/cost/timed-call.ts) against a fake clock that ticks like a browser's
// performance.now() without cross-origin isolation: a kernel shorter than the tick is still timed.
import { describe, expect, test } from 'vitest';
import { fastestCall, MAX_REPEATS, MIN_TIMED_MS } from '../../web/src/features/cost/timed-call';

/** A clock whose reading is floored to `tickMs`, and a call that advances it by `callMs`. */
function fakeKernel(callMs: number, tickMs: number) {
  let t = 0;
  let calls = 0;
  return {
    now: () => Math.floor(t / tickMs) * tickMs,
    call: () => {
      t += callMs;
      calls += 1;
    },
    calls: () => calls,
  };
}

describe('fastestCall', () => {
  test('a call shorter than the tick is repeated until a timed call lasts MIN_TIMED_MS, and timed within a tick', () => {
    const kernel = fakeKernel(0.03, 0.1); // 30 µs calls, 100 µs ticks (Chromium's coarse clock)
    const { ms, repeats } = fastestCall(kernel.call, 15, kernel.now);
    expect(ms).toBeGreaterThan(0);
    // Timed over at least MIN_TIMED_MS, a tick is at most 0.1 / MIN_TIMED_MS of the time.
    expect(Math.abs(ms - 0.03)).toBeLessThanOrEqual((0.1 / MIN_TIMED_MS) * 0.03 + 1e-12);
    expect(repeats * 0.03).toBeGreaterThanOrEqual(MIN_TIMED_MS);
    expect(repeats * 0.03).toBeLessThan(3 * MIN_TIMED_MS); // not far more than needed
  });

  test('a call that reads 0 on a 1 ms clock (Firefox, Safari) is found by growing the repeats', () => {
    const kernel = fakeKernel(0.002, 1);
    const { ms, repeats } = fastestCall(kernel.call, 3, kernel.now);
    expect(repeats).toBeGreaterThan(1000);
    expect(ms).toBeGreaterThan(0.0015);
    expect(ms).toBeLessThan(0.0025);
  });

  test('a call longer than MIN_TIMED_MS runs exactly reps times, its first call the first timed one', () => {
    const kernel = fakeKernel(20, 0.1);
    const { ms, repeats } = fastestCall(kernel.call, 3, kernel.now);
    expect(repeats).toBe(1);
    expect(kernel.calls()).toBe(3);
    expect(ms).toBe(20);
  });

  test('the fastest timed call is the one reported', () => {
    const lengths = [12, 9, 15];
    let t = 0;
    let i = 0;
    const { ms } = fastestCall(
      () => (t += lengths[i++]!),
      3,
      () => t,
    );
    expect(ms).toBe(9);
  });

  test('repeats stop at MAX_REPEATS for a call the clock never sees', () => {
    const kernel = fakeKernel(0, 0.1);
    const { ms, repeats } = fastestCall(kernel.call, 2, kernel.now);
    expect(repeats).toBe(MAX_REPEATS);
    expect(ms).toBe(0);
  });
});
