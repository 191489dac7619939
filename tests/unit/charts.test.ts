// @vitest-environment happy-dom
// The general chart figures: bars (ui/bars.ts), histograms (ui/histogram.ts) and the
// training charts (features/training/train-chart.ts).
import { describe, expect, test } from 'vitest';
import { BarChart, barFraction } from '../../web/src/ui/bars';
import { binCounts, Histogram, niceTicks } from '../../web/src/ui/histogram';
import { TrainChart } from '../../web/src/features/training/train-chart';

describe('bar chart', () => {
  test('one table row per bar: label as row header, bar length from --w, value as text', () => {
    const chart = new BarChart({ caption: 'shares', labelHeader: 'token', valueHeader: 'share' });
    chart.update([
      { label: 'a', value: 0.2 },
      { label: 'b', value: 0.5, emphasis: true },
      { label: 'c', value: 0.3, text: 'masked', muted: true },
      { label: 'rest', value: 0.9, bar: false },
    ]);
    const table = chart.element.querySelector('table')!;
    expect(table.querySelector('caption')!.textContent).toBe('shares');
    expect([...table.querySelectorAll('thead th')].map((th) => th.textContent)).toEqual(['token', 'bar', 'share']);
    const rows = [...table.querySelectorAll('tbody tr')] as HTMLElement[];
    expect(rows.map((r) => r.querySelector('th')!.textContent)).toEqual(['a', 'b', 'c', 'rest']);
    expect(rows.map((r) => r.querySelector('.bar-value')!.textContent)).toEqual(['20%', '50%', 'masked', '90%']);
    // Scaled to the largest drawn bar (0.5): the bar-less row does not count.
    expect(rows.map((r) => (r.querySelector('.bar-fill') as HTMLElement).style.getPropertyValue('--w'))).toEqual([
      '0.4000',
      '1.0000',
      '0.6000',
      '0',
    ]);
    expect(rows[1].classList.contains('emphasis')).toBe(true);
    expect(rows[2].classList.contains('muted')).toBe(true);
    expect(rows[0].querySelector('.bar-track')!.getAttribute('aria-hidden')).toBe('true');
    // Same number of bars: rows are updated in place, and a changed value keeps its text node with
    // new data (a replaced text node is a new layout object to style and lay out).
    const valueText = rows[0].querySelector('.bar-value')!.firstChild;
    chart.update(
      [
        { label: 'x', value: 1 },
        { label: 'y', value: 0 },
        { label: 'z', value: 0 },
        { label: 'w', value: 0 },
      ],
      'new',
    );
    expect(table.querySelector('tbody tr')).toBe(rows[0]);
    expect(rows[0].querySelector('.bar-value')!.firstChild).toBe(valueText);
    expect(valueText!.textContent).toBe('100%');
    expect(table.querySelector('caption')!.textContent).toBe('new');
    expect(rows[1].classList.contains('emphasis')).toBe(false);
  });

  test('bar fractions never go outside [0, 1], whatever the input', () => {
    expect(barFraction(0.5, 1)).toBe(0.5);
    expect(barFraction(2, 1)).toBe(1);
    expect(barFraction(-1, 1)).toBe(0);
    expect(barFraction(NaN, 1)).toBe(0);
    expect(barFraction(1, 0)).toBe(0);
  });
});

describe('histogram', () => {
  test('binning counts every finite value once, end bins taking what lies beyond the axis', () => {
    const bins = binCounts([-10, -1, -0.5, 0, 0.5, 0.99, 1, 10, NaN], -1, 1, 4);
    // Bins of width 0.5: [−1, −0.5), [−0.5, 0), [0, 0.5), [0.5, 1]; −10 and 10 are clamped into the ends.
    expect(bins.counts).toEqual([2, 1, 1, 4]);
    expect(bins.clamped).toBe(2);
    expect(bins.skipped).toBe(1);
    expect(bins.total).toBe(8);
  });

  test('ticks are round numbers inside the domain', () => {
    // Steps of 1, 2 or 5 times a power of ten, at least (hi − lo) / 6 apart.
    expect(niceTicks(-8, 8)).toEqual([-5, 0, 5]);
    expect(niceTicks(-33, 33)).toEqual([-20, 0, 20]);
    expect(niceTicks(-4, 4)).toEqual([-4, -2, 0, 2, 4]);
    const fractions = niceTicks(0, 1);
    expect(fractions).toHaveLength(6);
    fractions.forEach((t, i) => expect(t).toBeCloseTo(i * 0.2, 10));
    expect(niceTicks(1, 1)).toEqual([]);
  });

  test('an accessible SVG (role img, summary as its name) plus the same bins as a table', () => {
    const histogram = new Histogram({ title: 'Two samples', xLabel: 'value', bins: 5 });
    const a = [-2, -1, 0, 0, 0, 1, 2];
    const b = [0, 0, 0.1];
    histogram.update(
      [
        {
          label: 'wide',
          values: a,
          className: 'series-b',
          markers: [
            { at: -1, label: '−σ' },
            { at: 1, label: '+σ' },
            { at: 99, label: 'off the axis' },
          ],
        },
        { label: 'narrow', values: b, className: 'series-a' },
      ],
      [-2.5, 2.5],
      'Wide and narrow.',
    );
    const chart = histogram.element.querySelector('svg')!;
    expect(chart.getAttribute('role')).toBe('img');
    expect(chart.getAttribute('aria-label')).toBe('Wide and narrow.');
    expect([...chart.querySelectorAll('.panel-title')].map((t) => t.textContent)).toEqual(['wide', 'narrow']);
    expect(chart.querySelectorAll('g.series-b rect')).toHaveLength(5);
    expect(chart.querySelectorAll('g.series-a rect')).toHaveLength(1);
    expect(chart.querySelectorAll('line.marker')).toHaveLength(2);
    const rows = [...histogram.element.querySelectorAll('table tbody tr')].map((r) => [...r.children].map((c) => c.textContent));
    expect(rows).toEqual([
      ['−∞', '−1.50', '1', '0'],
      ['−1.50', '−0.50', '1', '0'],
      ['−0.50', '0.50', '3', '3'],
      ['0.50', '1.50', '1', '0'],
      ['1.50', '∞', '1', '0'],
    ]);
    expect([...histogram.element.querySelectorAll('table thead th')].map((th) => th.textContent)).toEqual([
      'from',
      'to',
      'wide (samples)',
      'narrow (samples)',
    ]);
  });
});

describe('training chart', () => {
  test('several series: one line each, a legend, a summary naming each; non-finite points never drawn', () => {
    const chart = new TrainChart({ label: 'loss', format: (v) => v.toFixed(2), className: 'x' });
    chart.updateSeries(
      [
        {
          name: 'scaled',
          points: [
            [0, 4],
            [100, 1],
            [200, Number.NaN],
          ],
          className: 'train-scaled',
        },
        {
          name: 'not scaled',
          points: [
            [0, 4],
            [200, 2],
          ],
          className: 'train-unscaled',
        },
      ],
      200,
    );
    const lines = [...chart.element.querySelectorAll('polyline')];
    expect(lines.map((l) => l.getAttribute('class'))).toEqual(['train-line train-scaled', 'train-line train-unscaled']);
    // x from 40 to 310 over 200 steps; y from 122 (0) to 10 (the top, 4).
    expect(lines[0]!.getAttribute('points')).toBe('40.0,10.0 175.0,94.0');
    expect([...chart.element.querySelectorAll('.train-legend-item text')].map((t) => t.textContent)).toEqual(['scaled', 'not scaled']);
    expect(chart.element.getAttribute('aria-label')).toBe(
      'loss over 200 steps: scaled, 1.00 at step 100, from 4.00 at step 0; not scaled, 2.00 at step 200, from 4.00 at step 0',
    );
    // One series: no legend.
    chart.update([[0, 1]], 10);
    expect(chart.element.querySelectorAll('.train-legend-item')).toHaveLength(0);
  });

  test('a log axis spans whole decades around the points and leaves out zeros', () => {
    const chart = new TrainChart({ label: '|g|', format: String, className: 'x', log: true });
    chart.updateSeries(
      [
        {
          name: 'g',
          points: [
            [1, 2],
            [2, 0.002],
            [3, 0],
          ],
        },
      ],
      4,
    );
    const ticks = [...chart.element.querySelectorAll('.train-tick')].map((t) => t.textContent);
    expect(ticks).toContain('1e-3');
    expect(ticks).toContain('1e1');
    // log10(2) = 0.301 of the way from 1e-3 to 1e1 (4 decades): y = 122 - 112 * 3.301 / 4.
    const [first, second] = chart.element.querySelector('polyline')!.getAttribute('points')!.split(' ');
    expect(first).toBe(`107.5,${(122 - (112 * (Math.log10(2) + 3)) / 4).toFixed(1)}`);
    expect(second).toBe(`175.0,${(122 - (112 * (Math.log10(0.002) + 3)) / 4).toFixed(1)}`);
    expect(chart.element.querySelector('polyline')!.getAttribute('points')!.split(' ')).toHaveLength(2);
  });
});
