// @vitest-environment happy-dom
// "Train it yourself" mounted in happy-dom with real training: the runs go through the same
// TrainingRun the worker drives, in-process with the SIMD engine, on clocks the test moves (a sleep
// moves the time on at once). Each sleep is where a browser would paint, so a change of the loss
// chart seen at a sleep is one drawn update. At the default pace "Who is “it”?" is drawn in at least 20
// updates over 10-30 s of its clock and ends by saying that the answer and the attention agree;
// the Speed control changes a running run; a run that misses the target suggests nothing in force.
import { beforeAll, describe, expect, test } from 'vitest';
import type { AttentionEngine } from '../../../web/src/engine/engine';
import { Trainer } from '../../../web/src/engine/training';
import { trainStep } from '../../../web/src/features/training/step';
import { EXPERIMENTS } from '../../../web/src/features/training/train-settings';
import { pacedMs, TrainingRun, type RunClock } from '../../../web/src/features/training/train-plan';
import type { TrainingService, TrainingSession } from '../../../web/src/features/training/training-service';
import { loadSimdEngine } from '../load-engine';

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
});

/**
 * A training service without workers: each run is a TrainingRun in this thread on a clock of its own,
 * whose sleeps call `onSleep` (where the test looks at the page) and move that run's time on. Messages
 * arrive after the call that caused them, as a worker's would.
 */
function inProcessTraining(onSleep: () => void) {
  const clocks: { time: number; waits: number[] }[] = [];
  const service: TrainingService = {
    start({ config, steps, probe, measure, pace }, report) {
      const trainer = Trainer.create(engine, config);
      const moved = { time: 0, waits: [] as number[] };
      clocks.push(moved);
      const clock: RunClock = {
        now: () => moved.time,
        sleep: (ms) => {
          onSleep();
          moved.waits.push(ms);
          moved.time += ms;
          return Promise.resolve();
        },
      };
      const run = new TrainingRun(trainer, { steps, probe, post: report, measure, pace, clock });
      let stopped = false;
      const ready = Promise.resolve().then(() => {
        report({ type: 'ready', parameterCount: trainer.describe().parameterCount, batch: trainer.describe().config.batch });
        run.start();
      });
      const later = (act: () => void) => void ready.then(() => !stopped && act());
      const session: TrainingSession = {
        resume: () => later(() => void run.resume()),
        pause: () => later(() => run.pauseRun()),
        step: () => later(() => run.stepOnce()),
        probe: (words) => later(() => run.setProbe(words)),
        pace: (next) => later(() => run.setPace(next)),
        exportWeights: () => {},
        stop: () => {
          stopped = true;
          run.stop();
        },
      };
      return session;
    },
  };
  return { service, clocks };
}

function mount(training: TrainingService) {
  const body = document.createElement('div');
  document.body.replaceChildren(body);
  trainStep.mount(body, { update: () => {}, training });
  return body;
}

const q = <T extends Element = HTMLElement>(root: ParentNode, selector: string) => root.querySelector(selector) as T;
const button = (body: HTMLElement, name: string) =>
  [...body.querySelectorAll('button')].find((b) => b.textContent === name && !b.hidden) as HTMLButtonElement;
const choose = (control: HTMLSelectElement | HTMLInputElement, value: string) => {
  control.value = value;
  control.dispatchEvent(new Event('change'));
};

/** Waits until the step says the run (and its twin) ended: the runs go on in microtasks and timers. */
async function finished(body: HTMLElement): Promise<void> {
  for (let i = 0; i < 10_000 && body.dataset.trainPhase !== 'finished'; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  expect(body.dataset.trainPhase).toBe('finished');
}

describe('Train it yourself, paced', () => {
  test('Who is “it”? at the default pace: the curve is drawn in at least 20 updates over 10-30 s, and the end is the run’s', async () => {
    let body: HTMLElement | null = null;
    const drawn: string[] = [];
    const { service, clocks } = inProcessTraining(() => {
      const line = q(body!, '.train-loss polyline.train-line')?.getAttribute('points') ?? '';
      if (line !== drawn.at(-1)) drawn.push(line);
    });
    body = mount(service);
    const { steps } = EXPERIMENTS['who-is-it'];
    const speed = q<HTMLSelectElement>(body, 'select.train-speed');
    // The control is labelled, defaults to normal, and says how long this run takes at each speed.
    expect(q(body, `label[for="${speed.id}"]`).textContent).toBe('Speed');
    expect(speed.value).toBe('normal');
    expect([...speed.options].map((o) => o.textContent)).toEqual([
      `Slow (about ${Math.round(pacedMs(steps, 'slow') / 1000)} s)`,
      `Normal (about ${Math.round(pacedMs(steps, 'normal') / 1000)} s)`,
      `Fast (about ${Math.round(pacedMs(steps, 'fast') / 1000)} s)`,
      'As fast as possible',
    ]);
    button(body, 'Start').click();
    await finished(body);
    expect(clocks).toHaveLength(1);
    expect(clocks[0]!.time).toBe(pacedMs(steps, 'normal'));
    expect(clocks[0]!.time).toBeGreaterThanOrEqual(10_000);
    expect(clocks[0]!.time).toBeLessThanOrEqual(30_000);
    expect(drawn.length).toBeGreaterThanOrEqual(20);
    // Each drawn state has more of the curve than the one before.
    const points = drawn.map((state) => state.split(' ').filter(Boolean).length);
    expect(points.every((n, i) => i === 0 || n > points[i - 1]!)).toBe(true);

    // The end, in this run's numbers: the answer is where the last layer looks (both heads, at seed 1).
    expect(q(body, '.train-prediction').textContent).toMatch(/^At “it” the model now predicts “animal” \(\d+%\)/);
    expect(q(body, '.train-answer').textContent).toMatch(
      /^Answer and attention agree: the model answers “animal” \(\d+%\), and the last layer’s head 1 puts \d+% of its weight from “it” on it and the last layer’s head 2 puts \d+%/,
    );
    expect(q(body, '.train-status').textContent).toMatch(
      /^Done: 400 steps in \d+ ms of computing, 100\.0% held-out accuracy\. It first reached 99% held-out accuracy at step 225, /,
    );
    expect(body.textContent).not.toMatch(/\bNaN\b|Infinity|undefined/);
  }, 120_000);

  test('the Speed control changes a running run; as fast as possible never waits; a missed target suggests nothing in force', async () => {
    let body: HTMLElement | null = null;
    let sleeps = 0;
    const { service, clocks } = inProcessTraining(() => {
      // After the first update, the reader picks "As fast as possible".
      if (++sleeps === 1) choose(q<HTMLSelectElement>(body!, 'select.train-speed'), 'fastest');
    });
    body = mount(service);
    button(body, 'Heads specialise').click();
    choose(q<HTMLInputElement>(body, 'input[name="train-steps"]'), '60');
    button(body, 'Start').click();
    await finished(body);
    // One paced wait (the first update), then none.
    expect(clocks[0]!.waits[0]).toBe(250);
    expect(clocks[0]!.waits.slice(1).every((ms) => ms === 0)).toBe(true);
    expect(clocks[0]!.time).toBe(250);
    // 60 steps of the induction task stay under 99%: the end suggests a learning rate, not scaling (on)
    // nor AdamW (in use).
    const status = q(body, '.train-status').textContent!;
    expect(status).toMatch(/^Done: 60 steps in \d+ ms of computing, [\d.]+% held-out accuracy\. It never reached 99% held-out accuracy/);
    expect(status).toMatch(/Try (more steps \(at that rate about \d+ more\) or )?a learning rate other than 0\.01\.$/);
    expect(status).not.toMatch(/scaling|AdamW/);
    // The choice stays for the next run.
    button(body, 'Reset').click();
    expect(q<HTMLSelectElement>(body, 'select.train-speed').value).toBe('fastest');
  }, 120_000);
});
