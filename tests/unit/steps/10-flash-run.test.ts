// @vitest-environment happy-dom
// The FlashAttention step's "Run it on my machine" figure, driven through a fake worker
// (tests/unit/fake-cost-worker.ts): nothing runs until Run; progress, the table, the fitted slope and
// the 2k → 8k ratio come from the measurements; Cancel terminates the worker; a worker that cannot be
// made, or one that fails mid-run, leaves a message and what was measured, and the stepper still works.
import { describe, expect, test } from 'vitest';
import type { CostItem } from '../../../web/src/features/cost/cost-plan';
import { FakeWorker } from '../fake-cost-worker';
import { snapshotFor } from '../fixtures';
import { mount, position, q } from './flash-fixture';

/** The step drawn, with every worker it makes kept (fakes), and its "Run it on my machine" figure. */
async function mountWithWorkers() {
  const workers: FakeWorker[] = [];
  const { body, view } = mount({
    createWorker: () => {
      const w = new FakeWorker();
      workers.push(w);
      return w;
    },
  });
  view.render(await snapshotFor());
  return { workers, body, figure: q(body, '.flash-run') };
}

describe('Run it on my machine (with a fake worker)', () => {
  test('nothing runs until Run; progress, table, fitted slope and the 2k → 8k ratio; Cancel terminates', async () => {
    const { workers, body, figure } = await mountWithWorkers();
    expect(workers).toHaveLength(0);
    expect(q(figure, '.flash-run-results').hidden).toBe(true);
    figure.dataset.maxN = '20000'; // the test hook (rounded down to 16384)
    q<HTMLButtonElement>(figure, '.flash-run-start').click();
    expect(workers).toHaveLength(1);
    const worker = workers[0];
    expect(worker.sent).toEqual([
      {
        type: 'run',
        suite: 'flash',
        maxN: 16384,
        budgetBytes: 256 * 2 ** 20,
        wasmUrl: expect.stringMatching(/\/attention_engine\.wasm$/),
        laterWasmUrl: expect.stringMatching(/\/attention_engine_later\.wasm$/),
      },
    ]);
    expect(q<HTMLButtonElement>(figure, '.flash-run-start').disabled).toBe(true);
    expect(q<HTMLButtonElement>(figure, '.flash-run-cancel').disabled).toBe(false);

    const { planCost } = await import('../../../web/src/features/cost/cost-plan');
    const plan: CostItem[] = planCost({ maxN: 16384 });
    worker.emit({ type: 'started', plan, simd: true });
    const workTotal = plan.reduce((s, i) => s + i.work, 0);
    let workDone = 0;
    // Times exactly proportional to n^2 (naive) and n^2 (tiled, a bit faster); memory n^2 and n.
    plan.forEach((item, index) => {
      worker.emit({ type: 'measuring', item, index });
      if (index === plan.length - 1) return; // the last one stays unmeasured: cancel comes first
      workDone += item.work;
      worker.emit({
        type: 'measured',
        index,
        workDone,
        workTotal,
        result: {
          kernel: item.kernel,
          n: item.n,
          reps: item.reps,
          ms: (item.kernel === 'naive' ? 6e-5 : 2e-5) * item.n * item.n,
          memoryBytes: item.kernel === 'naive' ? 16e6 + 8 * item.n * item.n : 16e6 + 1024 * item.n,
        },
      });
    });
    // Results redraw once per animation frame (cost-run.ts), however many arrived: wait for it.
    await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    const progress = q<HTMLProgressElement>(figure, 'progress');
    expect(progress.value).toBeCloseTo(workDone / workTotal, 6);
    expect(progress.value).toBeLessThan(1);
    const slope = q(figure, '.flash-run-slope');
    expect(slope.textContent).toContain('naive time slope 2.00');
    expect(Number(slope.dataset.naiveSlope)).toBeCloseTo(2, 6);
    expect(q(figure, '.flash-run-ratio').textContent).toContain('naive ×16.0');
    expect(q(figure, '.flash-run-ratio').textContent).toContain('The article’s count: ×16.');
    expect(figure.querySelectorAll('table.flash-run-table tbody tr')).toHaveLength(8);
    expect(q(figure, 'table.flash-run-table tr[data-n="16384"] td[data-kernel="naive"]').textContent).toBe('over the 256 MiB budget');
    expect(q(figure, 'table.flash-run-table tr[data-n="16384"] td[data-kernel="tiled"]').textContent).toBe('measuring…');
    expect(q(figure, 'table.flash-run-table tr[data-n="1024"] td[data-kernel="naive"]').textContent).toBe('62.9 ms');
    expect(figure.querySelectorAll('svg.line-chart circle.series-naive').length).toBeGreaterThan(0);

    q<HTMLButtonElement>(figure, '.flash-run-cancel').click();
    expect(worker.terminated).toBe(true);
    expect(figure.dataset.phase).toBe('cancelled');
    expect(q(figure, '.flash-run-status').textContent).toMatch(/^Cancelled while measuring n = 16,384 \(tiled\)/);
    expect(q<HTMLButtonElement>(figure, '.flash-run-start').disabled).toBe(false);
    expect(q<HTMLButtonElement>(figure, '.flash-run-cancel').disabled).toBe(true);
    // Messages after cancel are ignored.
    worker.emit({ type: 'done' });
    expect(figure.dataset.phase).toBe('cancelled');
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
  });

  test('a worker that cannot be made (CSP, another origin): a message, the rest keeps working', async () => {
    const { body, view } = mount({
      createWorker: () => {
        throw new DOMException('blocked', 'SecurityError');
      },
    });
    view.render(await snapshotFor());
    q<HTMLButtonElement>(body, '.flash-run-start').click();
    expect(q(body, '.flash-run').dataset.phase).toBe('failed');
    expect(q(body, '.flash-run-status').textContent).toMatch(/does not allow the background thread.*runs on the walkthrough’s own page/);
    expect(q<HTMLButtonElement>(body, '.flash-run-start').disabled).toBe(false);
    q<HTMLButtonElement>(body, '.flash-next').click();
    expect(position(body)).toBe(1);
  });

  test('a worker error mid-run keeps what was measured', async () => {
    const worker = new FakeWorker();
    const { body, view } = mount({ createWorker: () => worker });
    view.render(await snapshotFor());
    q<HTMLButtonElement>(body, '.flash-run-start').click();
    const { planCost } = await import('../../../web/src/features/cost/cost-plan');
    const plan = planCost({ maxN: 512 });
    worker.emit({ type: 'started', plan, simd: true });
    worker.emit({
      type: 'measured',
      index: 0,
      workDone: 1,
      workTotal: 10,
      result: { kernel: 'tiled', n: 128, reps: 15, ms: 0.3, memoryBytes: 16777216 },
    });
    worker.emit({ type: 'error', message: 'attention() stopped inside WebAssembly', item: plan[1] });
    expect(worker.terminated).toBe(true);
    expect(q(body, '.flash-run-status').textContent).toContain('stopped at n = 128 (naive)');
    expect(q(body, 'table.flash-run-table tr[data-n="128"] td[data-kernel="tiled"]').textContent).toBe('0.30 ms');
    expect(q(body, '.flash-run-slope').textContent).toContain('slope: needs two sizes from 512 on');
  });

  test('the progress bar moves with the table: never ahead of a size the table has not drawn', async () => {
    const { workers, figure } = await mountWithWorkers();
    figure.dataset.maxN = '1024';
    q<HTMLButtonElement>(figure, '.flash-run-start').click();
    const { planCost } = await import('../../../web/src/features/cost/cost-plan');
    const plan: CostItem[] = planCost({ maxN: 1024 });
    const workTotal = plan.reduce((s, i) => s + i.work, 0);
    const worker = workers[0];
    worker.emit({ type: 'started', plan, simd: true });
    const progress = q<HTMLProgressElement>(figure, 'progress');
    const measuredCells = () => figure.querySelectorAll('table.flash-run-table td[data-ms]').length;
    const [item] = plan;
    worker.emit({ type: 'measuring', item, index: 0 });
    worker.emit({
      type: 'measured',
      index: 0,
      workDone: item.work,
      workTotal,
      result: { kernel: item.kernel, n: item.n, reps: item.reps, ms: 0.5, memoryBytes: 16e6 },
    });
    // Before the redraw: neither the bar nor the table shows the measurement.
    expect(progress.value).toBe(0);
    expect(measuredCells()).toBe(0);
    await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    expect(progress.value).toBeCloseTo(item.work / workTotal, 6);
    expect(measuredCells()).toBe(1);
    // Done arrives before the next frame: the bar and the table are drawn together at once.
    worker.emit({ type: 'done' });
    expect(progress.value).toBe(1);
    expect(figure.dataset.phase).toBe('done');
  });
});
