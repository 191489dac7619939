// @vitest-environment happy-dom
// The scaling step on real snapshots: the division on the live scores, the variance experiment
// (histogram, its table and the measured standard deviations), the saturation demo with the
// article's numbers, and what scaling does to the current weights.
import { describe, expect, test, vi } from 'vitest';
import { scaleStep } from '../../../web/src/steps/04-scale/step';
import { rowMaxima } from '../../../web/src/steps/04-scale/effect-figure';
import { fmt, percent } from '../../../web/src/ui/format';
import type { Settings } from '../../../web/src/settings';
import { exampleSnapshotFor, snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

function mount() {
  const update = vi.fn<(change: Partial<Settings>) => void>();
  return { ...mountStep(scaleStep, update), update };
}

const text = (body: HTMLElement, selector: string) => body.querySelector(selector)!.textContent!;

describe('scale step', () => {
  test('the first score of the shown head is divided by √d_k, and the step draws no score matrix of its own', async () => {
    const snapshot = await snapshotFor({ head: 1 });
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    // The (n, n) scores are step 3's figure; the only matrix table here is the largest weight per row.
    expect([...body.querySelectorAll('table.matrix caption')].map((c) => c.textContent)).toEqual([
      'Largest attention weight in each row of head 2',
    ]);
    const raw = p.scores.data[p.n * p.n];
    const line = body.querySelector('.scale-division')!;
    expect(raw).not.toBe(p.scores.data[0]);
    expect(line.textContent).toBe(`scaled[1, 1] = ${fmt(raw)} ÷ √4 = ${fmt(raw)} ÷ 2.00 = ${fmt(p.scoresScaled.data[p.n * p.n])}`);
    expect(Number((line.querySelector('.by-hand-result') as HTMLElement).dataset.value)).toBeCloseTo(raw / 2, 5);
    expect(text(body, '.scale-division-note')).toBe(`“${snapshot.tokens[0]}” against itself, the first cell of step 3’s scores.`);
  });

  test('the variance experiment: std labels and table are the engine’s, next to √d_k', async () => {
    const snapshot = await snapshotFor();
    const { dots } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    expect(text(body, '.scale-raw-std')).toBe(fmt(dots.rawStd));
    expect(text(body, '.scale-scaled-std')).toBe(fmt(dots.scaledStd));
    expect(text(body, '.scale-stats tbody tr:first-child td:last-child')).toBe('√4 = 2.00');
    // The measured spreads obey the rule (4000 samples).
    expect(dots.rawStd).toBeGreaterThan(1.8);
    expect(dots.rawStd).toBeLessThan(2.2);
    expect(dots.scaledStd).toBeCloseTo(dots.rawStd / 2, 4);

    const chart = body.querySelector('svg.histogram-chart')!;
    expect(chart.getAttribute('role')).toBe('img');
    const label = chart.getAttribute('aria-label')!;
    expect(label).toContain(`standard deviation is ${fmt(dots.rawStd)}, close to √4 = 2.00`);
    expect(label).toContain(`it is ${fmt(dots.scaledStd)}, close to 1`);
    expect([...chart.querySelectorAll('.panel-title')].map((t) => t.textContent)).toEqual([
      `q · k: standard deviation ${fmt(dots.rawStd)}`,
      `q · k / √4: standard deviation ${fmt(dots.scaledStd)}`,
    ]);
    // Bars in both panels, and ±σ markers.
    expect(chart.querySelectorAll('g.series-b rect').length).toBeGreaterThan(5);
    expect(chart.querySelectorAll('g.series-a rect').length).toBeGreaterThan(3);
    expect(chart.querySelectorAll('line.marker')).toHaveLength(4);

    // The table equivalent counts every sample once per series.
    const rows = [...body.querySelectorAll('.histogram-table tbody tr')];
    expect(rows).toHaveLength(31);
    for (const column of [2, 3]) {
      const total = rows.reduce((sum, row) => sum + Number(row.children[column].textContent), 0);
      expect(total).toBe(dots.raw.length);
    }
  });

  test('the saturation demo: the article’s [0.09 0.24 0.67], and at d_k = 64 its [0.00 0.00 1.00]', async () => {
    const values = (body: HTMLElement, which: string) => [...body.querySelectorAll(`table.${which} .bar-value`)].map((v) => v.textContent);
    {
      const snapshot = await snapshotFor();
      const { body, view } = mount();
      view.render(snapshot);
      expect(values(body, 'scale-soft')).toEqual(['0.09', '0.24', '0.67']);
      expect(values(body, 'scale-sharp')).toEqual(Array.from(snapshot.saturation.sharp.probabilities, (v) => fmt(v)));
      expect(text(body, 'table.scale-sharp caption')).toBe('softmax([1, 2, 3] × √4) = softmax([2, 4, 6])');
      expect([...body.querySelectorAll('table.scale-sharp tbody th')].map((th) => th.textContent)).toEqual(['2', '4', '6']);
      expect(text(body, '.scale-soft-norm')).toBe(fmt(snapshot.saturation.soft.jacobianNorm, 3));
      expect(text(body, '.scale-sharp-norm')).toBe(fmt(snapshot.saturation.sharp.jacobianNorm, 3));
    }
    const snapshot = await snapshotFor({ dModel: 512, heads: 8 });
    const { body, view } = mount();
    view.render(snapshot);
    expect(values(body, 'scale-soft')).toEqual(['0.09', '0.24', '0.67']);
    expect(values(body, 'scale-sharp')).toEqual(['0.00', '0.00', '1.00']);
    expect(text(body, 'table.scale-sharp caption')).toBe('softmax([1, 2, 3] × √64) = softmax([8, 16, 24])');
    const { soft, sharp } = snapshot.saturation;
    expect(sharp.jacobianNorm).toBeLessThan(soft.jacobianNorm / 100);
    const reading = body.querySelector('.scale-saturation')!.nextElementSibling!.textContent!;
    expect(reading).toContain(
      `falls from ${fmt(soft.jacobianNorm, 3)} to ${fmt(sharp.jacobianNorm, 3)}, ${fmt(soft.jacobianNorm / sharp.jacobianNorm, 0)} times smaller`,
    );
    expect(reading).toContain('training stalls');
    // Already at the article's d_k: no button to go there.
    expect((body.querySelector('.scale-try') as HTMLButtonElement).hidden).toBe(true);
  });

  test('the effect table is the shown head’s: its unscaled maxima are softmax of that head’s raw scores', async () => {
    const snapshot = await snapshotFor({ heads: 2, head: 1 });
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    const n = p.n;
    const cells = [...body.querySelectorAll('.scale-effect td')].map((td) => td.textContent);
    for (let r = 0; r < n; r++) {
      // Head 2, row r: the largest softmax weight of the raw scores (float64), and of the scaled ones.
      const raw = Array.from(p.scores.data.subarray((n + r) * n, (n + r + 1) * n));
      const largest = (values: number[]) => 1 / values.reduce((total, v) => total + Math.exp(v - Math.max(...values)), 0);
      expect(cells[2 * r]).toBe(percent(largest(raw.map((v) => v * p.scaleFactor))));
      expect(cells[2 * r + 1]).toBe(percent(largest(raw)));
    }
  });

  test('with scaling on, the sentence compares the largest weights with and without it', async () => {
    const snapshot = await snapshotFor();
    const { pipeline: p } = snapshot;
    const { body, view, update } = mount();
    view.render(snapshot);
    const withScaling = rowMaxima(p.weights, 0);
    const without = rowMaxima(p.weightsUnscaled, 0);
    const gaps = without.map((w, i) => w - withScaling[i]);
    const most = gaps.indexOf(Math.max(...gaps));
    const effect = body.querySelector('.scale-toggle')!.parentElement!.textContent!;
    expect(effect).toContain(
      `Without scaling, the largest weight in row ${most + 1} (“${snapshot.tokens[most]}”) would be ${percent(without[most])} instead of ${percent(withScaling[most])}.`,
    );
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    expect(effect).toContain(
      `the largest weight is ${percent(mean(withScaling))} with scaling and would be ${percent(mean(without))} without`,
    );
    // The table lists both maxima for every row.
    const cells = [...body.querySelectorAll('.scale-effect td')].map((td) => td.textContent);
    expect(cells).toEqual(withScaling.flatMap((w, i) => [percent(w), percent(without[i])]));
    // Without scaling the rows are sharper, on average.
    expect(mean(without)).toBeGreaterThan(mean(withScaling));
    (body.querySelector('.scale-toggle') as HTMLButtonElement).click();
    expect(update).toHaveBeenCalledWith({ scale: false });
    (body.querySelector('.scale-try') as HTMLButtonElement).click();
    expect(update).toHaveBeenCalledWith({ weights: 'random', dModel: 512, heads: 8 });
  });

  test('with scaling off, the page says so and offers to switch it back on', async () => {
    const snapshot = await snapshotFor({ scale: false });
    const { pipeline: p } = snapshot;
    const { body, view, update } = mount();
    view.render(snapshot);
    expect(p.scaleFactor).toBe(1);
    expect(body.textContent).toContain('Scaling is switched off in the settings bar, so the scores pass on unchanged');
    const toggle = body.querySelector('.scale-toggle') as HTMLButtonElement;
    expect(toggle.textContent).toBe('Switch scaling back on');
    expect(toggle.parentElement!.textContent).toContain('Scaling is switched off');
    expect(toggle.parentElement!.textContent).toContain(
      `the largest weight averages ${percent(rowMaxima(p.weights, 0).reduce((a, b) => a + b, 0) / p.n)}`,
    );
    expect(text(body, '.scale-division')).toBe(`scaled[1, 1] = ${fmt(p.scores.data[0])} × 1 = ${fmt(p.scores.data[0])}`);
    toggle.click();
    expect(update).toHaveBeenCalledWith({ scale: true });
  });

  test('d_k = 1: nothing to scale, and the page says so', async () => {
    const snapshot = await snapshotFor({ dModel: 2, heads: 2 });
    const { body, view } = mount();
    view.render(snapshot);
    expect(snapshot.pipeline.dK).toBe(1);
    expect(body.textContent).toContain('At dₖ = 1 there is nothing to stretch');
    expect(body.textContent).toContain('With dₖ = 1 the scores are divided by √1 = 1');
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
  });

  test('beside the example’s dₖ = 4 the table also shows the article’s dₖ = 64: spread about 8, then about 1', async () => {
    const snapshot = await exampleSnapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const article = snapshot.articleDots!;
    expect(article.dK).toBe(64);
    expect(article.rawStd).toBeGreaterThan(7);
    expect(article.rawStd).toBeLessThan(9);
    expect(Math.abs(article.scaledStd - 1)).toBeLessThan(0.12);
    const rows = [...body.querySelectorAll('.scale-stats tbody tr')].map((tr) => [...tr.children].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['q · k, dₖ = 4', fmt(snapshot.dots.rawStd), '√4 = 2.00'],
      ['q · k / √4', fmt(snapshot.dots.scaledStd), '1'],
      ['q · k, dₖ = 64 (the article’s)', fmt(article.rawStd), '√64 = 8.00'],
      ['q · k / √64', fmt(article.scaledStd), '1'],
    ]);
    // At dₖ 64 itself there is nothing to add.
    view.render(await snapshotFor({ dModel: 64, heads: 1 }));
    expect(body.querySelectorAll('.scale-stats tbody tr')).toHaveLength(2);
  });
});
