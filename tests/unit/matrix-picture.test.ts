// @vitest-environment happy-dom
// MatrixTable draws a large colour-only matrix as a picture (ui/matrix-table/picture.ts) instead of a table, and
// keeps the table's behaviour: the keyboard cursor and the readout name the right cell with its value,
// Enter selects, Space toggles a painted cell, highlights become outlines of row/column runs, exports
// carry every number, and a smaller matrix brings the table back. (Pixels are checked in Chromium:
// tests/browser/long-sentence.test.ts; happy-dom has no 2D canvas.)
import { afterEach, describe, expect, test } from 'vitest';
import { MatrixTable } from '../../web/src/ui/matrix-table/matrix-table';
import { drawnAsPicture, MAX_TABLE_CELLS, PICTURE_CELLS, runsOf } from '../../web/src/ui/matrix-table/picture';

const N = 200;
const labels = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
/** Cell (r, c) holds r + c / 1000, so a readout names its own position. */
function bigView(n = N, extra: Record<string, unknown> = {}) {
  const data = new Float32Array(n * n);
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) data[r * n + c] = r + c / 1000;
  return { data, rows: n, cols: n, rowLabels: labels(n), colLabels: labels(n), showNumbers: false, ...extra };
}

function mount(table: MatrixTable): HTMLElement {
  document.body.replaceChildren(table.element);
  return table.element;
}

const key = (target: Element, name: string, init: KeyboardEventInit = {}) =>
  target.dispatchEvent(new KeyboardEvent('keydown', { key: name, bubbles: true, cancelable: true, ...init }));

afterEach(() => document.body.replaceChildren());

describe('runsOf', () => {
  test('merges consecutive indices, drops duplicates and out-of-range ones', () => {
    expect(runsOf([5, 1, 2, 3, 3, 9, 10, -1, 400], 12)).toEqual([
      [1, 3],
      [5, 1],
      [9, 2],
    ]);
    expect(runsOf([], 10)).toEqual([]);
  });
});

describe('MatrixTable as a picture', () => {
  test('which matrices are pictures: colour-only ones over 64 × 64 cells, and any over 128 × 128', () => {
    expect(PICTURE_CELLS).toBe(64 * 64);
    expect(MAX_TABLE_CELLS).toBe(128 * 128);
    expect(drawnAsPicture(64, 64, false)).toBe(false);
    expect(drawnAsPicture(65, 64, false)).toBe(true);
    expect(drawnAsPicture(64, 64, true)).toBe(false);
    expect(drawnAsPicture(128, 128, true)).toBe(false);
    expect(drawnAsPicture(129, 128, true)).toBe(true);
  });

  test('a colour-only matrix over PICTURE_CELLS has no table cell, one focusable heatmap with a name', () => {
    const table = new MatrixTable({ caption: 'weights', scale: 'sequential', describe: (r, c, v) => `t${r} → t${c}: ${v.toFixed(3)}` });
    const root = mount(table);
    table.update(bigView(), 'weights, (200, 200)');
    expect(root.querySelectorAll('td')).toHaveLength(0);
    const picture = root.querySelector<HTMLElement>('.matrix-picture')!;
    expect(picture.getAttribute('role')).toBe('img');
    expect(picture.tabIndex).toBe(0);
    expect(picture.getAttribute('aria-label')).toMatch(/^weights, \(200, 200\): a 200 × 200 heatmap/);
    expect(root.querySelector('.matrix-picture-caption')!.textContent).toBe('weights, (200, 200)');
    expect(root.querySelector<HTMLCanvasElement>('canvas')!.width).toBe(N);
    // 64 × 64 is still a table.
    table.update(bigView(64));
    expect(root.querySelectorAll('td')).toHaveLength(64 * 64);
    expect(root.querySelector('.matrix-picture')).toBeNull();
    expect(root.querySelector<HTMLElement>('.matrix-scroll')!.hidden).toBe(false);
  });

  test('arrow keys, Shift, Page and Home/End move the cursor; the readout names the cell and its value', () => {
    const table = new MatrixTable({ caption: 'scores', scale: 'diverging', describe: (r, c, v) => `t${r} → t${c}: ${v.toFixed(3)}` });
    const root = mount(table);
    table.update(bigView());
    const picture = root.querySelector<HTMLElement>('.matrix-picture')!;
    const readout = root.querySelector('.matrix-readout')!;
    picture.focus();
    expect(readout.textContent).toBe('t0 → t0: 0.000');
    key(picture, 'ArrowRight');
    key(picture, 'ArrowDown', { shiftKey: true });
    expect(readout.textContent).toBe('t8 → t1: 8.001');
    key(picture, 'PageDown');
    key(picture, 'End');
    expect(readout.textContent).toBe('t24 → t199: 24.199');
    key(picture, 'ArrowRight');
    expect(readout.textContent).toBe('t24 → t199: 24.199'); // clamped at the edge
    key(picture, 'Home', { ctrlKey: true });
    expect(readout.textContent).toBe('t0 → t0: 0.000');
    key(picture, 'ArrowUp');
    expect(readout.textContent).toBe('t0 → t0: 0.000');
    key(picture, 'End', { ctrlKey: true });
    expect(readout.textContent).toBe('t199 → t199: 199.199');
    picture.blur();
    expect(readout.textContent).toBe('');
  });

  test('Enter selects the cursor cell; select() and highlight() outline cells and runs', () => {
    const picked: [number, number][] = [];
    const table = new MatrixTable({ caption: 'scores', scale: 'diverging', onSelect: (r, c) => picked.push([r, c]) });
    const root = mount(table);
    table.update(bigView());
    const picture = root.querySelector<HTMLElement>('.matrix-picture')!;
    picture.focus();
    key(picture, 'ArrowDown');
    key(picture, 'ArrowDown');
    key(picture, 'ArrowRight');
    key(picture, 'Enter');
    expect(picked.at(-1)).toEqual([2, 1]);
    expect(table.selection).toEqual([2, 1]);
    const mark = root.querySelector<HTMLElement>('.picture-selected')!;
    expect(mark.hidden).toBe(false);
    expect([mark.style.getPropertyValue('--r'), mark.style.getPropertyValue('--c')]).toEqual(['2', '1']);
    table.select(150, 40);
    expect([mark.style.getPropertyValue('--r'), mark.style.getPropertyValue('--c')]).toEqual(['150', '40']);
    expect(picked.at(-1)).toEqual([150, 40]);
    table.highlight([150], [3, 4, 5, 7]);
    const bands = [...root.querySelectorAll<HTMLElement>('.picture-band.hl')].map((b) => [
      b.classList.contains('picture-row') ? 'row' : 'col',
      b.style.getPropertyValue('--first'),
      b.style.getPropertyValue('--count'),
    ]);
    expect(bands).toEqual([
      ['row', '150', '1'],
      ['col', '3', '3'],
      ['col', '7', '1'],
    ]);
    table.highlight([], []);
    expect(root.querySelectorAll('.picture-band.hl')).toHaveLength(0);
  });

  test('a painted mask: Space toggles the cursor cell through the owner', () => {
    const painted: [number, number, boolean][] = [];
    const mask = new Float32Array(N * N).fill(1);
    const table = new MatrixTable({
      caption: 'mask',
      scale: 'sequential',
      paint: { paint: (cells, on) => cells.forEach(([r, c]) => painted.push([r, c, on])) },
    });
    const root = mount(table);
    table.update({ ...bigView(), data: mask });
    const picture = root.querySelector<HTMLElement>('.matrix-picture')!;
    picture.focus();
    key(picture, 'ArrowRight');
    key(picture, ' ');
    expect(painted).toEqual([[0, 1, false]]);
    mask[1] = 0;
    table.update({ ...bigView(), data: mask });
    key(picture, ' ');
    expect(painted.at(-1)).toEqual([0, 1, true]);
  });

  test('exports carry every number of the picture', () => {
    const table = new MatrixTable({ caption: 'scores', scale: 'diverging' });
    mount(table);
    table.update(bigView());
    const data = table.exportData();
    expect(data.rows).toBe(N);
    expect(data.values).toHaveLength(N * N);
    expect(data.values[5 * N + 7]).toBeCloseTo(5.007, 5);
  });
});
