// @vitest-environment happy-dom
// The cost step on real snapshots: the table is computed, not quoted: n², float32 bytes and
// 2·n²·d_model for this page's n, 2n, 4n, 8n and 1k..128k, and its ratio rows read ×4 for doubling
// n and ×16 for 2k -> 8k. The chart plots the same rows; the FlashAttention link appears only when
// the page has a #flash section.
import { describe, expect, test } from 'vitest';
import { bytes, count } from '../../../web/src/ui/format';
import { costStep } from '../../../web/src/steps/09-cost/step';
import { costLengths, LAYERS, REFERENCE_LENGTHS } from '../../../web/src/steps/09-cost/cost-rows';
import { snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(costStep);

const cellsOf = (row: Element) =>
  Object.fromEntries([...row.querySelectorAll('td')].map((td) => [(td as HTMLElement).dataset.key, td.textContent]));

describe('cost step', () => {
  test('every row is computed from n, d_model and h', async () => {
    const snapshot = await snapshotFor({ dModel: 8, heads: 2 });
    const { body, view } = mount();
    view.render(snapshot);
    const rows = [...body.querySelectorAll('table.cost-table tbody tr')] as HTMLElement[];
    expect(rows.map((r) => Number(r.dataset.n))).toEqual([9, 18, 36, 72, ...REFERENCE_LENGTHS]);
    for (const row of rows) {
      const n = Number(row.dataset.n);
      expect(cellsOf(row)).toEqual({
        entries: count(n * n),
        bytesPerHead: bytes(4 * n * n),
        bytesPerLayer: bytes(4 * n * n * 2),
        bytesModel: bytes(4 * n * n * 2 * LAYERS),
        multiplyAdds: count(2 * n * n * 8),
      });
    }
    expect(rows[0].classList.contains('cost-current')).toBe(true);
    expect(rows[0].querySelector('th')!.textContent).toBe('9 (this page)');
    const k2 = rows.find((r) => r.dataset.n === '2048')!;
    expect(k2.querySelector('th')!.textContent).toBe('2k');
    expect(cellsOf(k2).entries).toBe('4,194,304');
    expect(cellsOf(k2).bytesPerHead).toBe('16.0 MiB');
  });

  test('the ratio rows: doubling n is ×4, and 2k -> 8k is ×16 in every column', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor());
    const doubling = body.querySelector('tr.cost-ratio-double')!;
    expect(doubling.querySelector('th')!.textContent).toBe('doubling n: 9 → 18');
    expect(Object.values(cellsOf(doubling))).toEqual(Array(5).fill('×4'));
    const wide = body.querySelector('tr.cost-ratio-2k-8k')!;
    expect(Object.values(cellsOf(wide))).toEqual(Array(5).fill('×16'));
    expect(body.querySelector('.cost-ratios')!.textContent).toContain(
      'every column grows 16 times: 4,194,304 → 67,108,864 scores per head',
    );
  });

  test('lengths never repeat, even when n times a power of two is a reference length', () => {
    expect(costLengths(128)).toEqual([128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 131072]);
    expect(costLengths(1)).toEqual([1, 2, 4, 8, ...REFERENCE_LENGTHS]);
  });

  test('the score matrix is counted, not drawn again (step 3 draws it)', async () => {
    const snapshot = await snapshotFor({ heads: 2, head: 1 });
    const { body, view } = mount();
    view.render(snapshot);
    expect(body.querySelector('table.matrix, .matrix-picture')).toBeNull();
    expect(body.querySelector('.reading')!.textContent).toBe('9 tokens: 81 scores per head, 162 for all 2 heads, 648 B as float32.');
  });

  test('the chart is an image with words, plotting every row', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor());
    const chart = body.querySelector('svg.line-chart')!;
    expect(chart.getAttribute('role')).toBe('img');
    expect(chart.getAttribute('aria-label')).toContain('slope 2');
    expect(chart.getAttribute('aria-label')).toContain('648 B at 9 tokens');
    expect(chart.querySelectorAll('circle.series-dot').length).toBe(11);
    expect(chart.querySelectorAll('polyline').length).toBe(2);
    expect(chart.innerHTML).not.toMatch(/NaN|Infinity/);
  });

  test('FlashAttention links to #flash only when that section exists', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const aside = body.querySelector('.cost-flash')!;
    expect(aside.querySelector('a')).toBeNull();
    expect(aside.textContent).toContain(
      'FlashAttention computes the same output in tiles: memory stops growing like n², the multiply-adds do not.',
    );
    const flash = document.createElement('section');
    flash.id = 'flash';
    document.body.appendChild(flash);
    view.render(snapshot);
    expect(aside.querySelector('a')!.getAttribute('href')).toBe('#flash');
    expect(aside.querySelector('a[href="#flash-run"]')).toBeNull();
    const run = document.createElement('section');
    run.id = 'flash-run';
    document.body.appendChild(run);
    view.render(snapshot);
    expect(aside.querySelector('a[href="#flash-run"]')!.textContent).toBe('Time both methods in your browser');
  });

  test('inside a shadow root (an element), the #flash section is found through the root, not the document', async () => {
    const snapshot = await snapshotFor();
    const host = document.createElement('div');
    document.body.replaceChildren(host);
    const shadow = host.attachShadow({ mode: 'open' });
    const body = document.createElement('div');
    const flash = document.createElement('section');
    flash.id = 'flash';
    shadow.append(body, flash);
    const view = costStep.mount(body, { update: () => {} });
    view.render(snapshot);
    expect(document.getElementById('flash')).toBeNull();
    expect(body.querySelector('.cost-flash a')!.getAttribute('href')).toBe('#flash');
  });

  test('large settings: no NaN, colours without numbers (a picture)', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor({ sentence: Array.from({ length: 70 }, (_, i) => `w${i}`).join(' '), dModel: 512, heads: 64 }));
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
    expect(body.querySelector('.reading')!.textContent).toContain('70 tokens: 4,900 scores per head, 313,600 for all 64 heads');
    expect(Object.values(cellsOf(body.querySelector('tr.cost-ratio-2k-8k')!))).toEqual(Array(5).fill('×16'));
  });
});
