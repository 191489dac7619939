// @vitest-environment happy-dom
// The multi-head step on real snapshots: the work and parameter counter does not move as h changes
// at a fixed d_model, the head buttons and maps drive the page settings, every shape in the diagram
// is the snapshot's, and the output is the engine's (n, d_model) output.
import { describe, expect, test } from 'vitest';
import { costOfShape, costOfSnapshot } from '../../../web/src/features/cost/cost-model';
import { count, fmt } from '../../../web/src/ui/format';
import { tokenLabels } from '../../../web/src/ui/labels';
import { headChoices } from '../../../web/src/settings';
import { ATTENTION_FUNCTION, HEAD_LINES } from '../../../web/src/features/hands-on/numpy-script';
import { multiHeadStep } from '../../../web/src/steps/08-multi-head/step';
import { MAX_HEAD_MAPS } from '../../../web/src/steps/08-multi-head/prose';
import { topKey } from '../../../web/src/steps/08-multi-head/head-maps-figure';
import { snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(multiHeadStep);

const costCell = (body: HTMLElement, rowClass: string, heads: number) =>
  body.querySelector(`table.multi-head-cost tr.${rowClass} td[data-heads="${heads}"]`)!.textContent;

describe('multi-head step', () => {
  test('the counter is identical for h = 1, 2, 4, 8 at d_model 8, part by part', async () => {
    const seen = new Set<string>();
    for (const heads of [1, 2, 4, 8]) {
      const snapshot = await snapshotFor({ dModel: 8, heads });
      const { body, view } = mount();
      view.render(snapshot);
      const n = snapshot.pipeline.n;
      const d = 8;
      const total = 3 * n * d * d + 2 * n * n * d + n * d * d;
      expect(costCell(body, 'multi-head-total', heads)).toBe(count(total));
      expect(costCell(body, 'multi-head-params', heads)).toBe(count(4 * d * d));
      const rows = [...body.querySelectorAll('table.multi-head-cost tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent),
      );
      expect(rows).toEqual([
        Array(4).fill(count(3 * n * d * d)),
        Array(4).fill(count(n * n * d)),
        Array(4).fill(count(n * n * d)),
        Array(4).fill(count(n * d * d)),
      ]);
      seen.add([...body.querySelectorAll('table.multi-head-cost tfoot td')].map((td) => td.textContent).join('|'));
      expect(body.querySelector('table.multi-head-cost th.multi-head-current')!.textContent).toBe(`h = ${heads}`);
      expect(body.querySelector('.multi-head-cost-reading')!.textContent).toContain(
        `Every column is identical: ${count(total)} multiply-adds and ${count(4 * d * d)} parameters`,
      );
    }
    expect(seen.size).toBe(1);
  });

  test('the current column is counted from the snapshot’s real shapes, and agrees with the formula', async () => {
    for (const [dModel, heads] of [
      [8, 2],
      [12, 3],
      [64, 16],
      [512, 8],
    ]) {
      const snapshot = await snapshotFor({ dModel, heads });
      expect(costOfSnapshot(snapshot.pipeline)).toEqual(costOfShape(snapshot.pipeline.n, dModel, heads));
    }
  });

  test('one button per allowed h, the current one pressed; a press asks for that h', async () => {
    const { body, view, changes } = mount();
    view.render(await snapshotFor({ dModel: 12, heads: 3 }));
    const buttons = [...body.querySelectorAll('.multi-head-choices button')] as HTMLButtonElement[];
    expect(buttons.map((b) => Number(b.textContent))).toEqual(headChoices(12));
    expect(buttons.filter((b) => b.getAttribute('aria-pressed') === 'true').map((b) => b.textContent)).toEqual(['3']);
    buttons.find((b) => b.textContent === '6')!.click();
    expect(changes).toEqual([{ heads: 6 }]);
    expect(body.querySelector('.multi-head-choices-note')!.textContent).toContain('dₖ = 12 / 3 = 4');
  });

  test('one map per head, the shown head pressed; picking a map asks for that head', async () => {
    const snapshot = await snapshotFor({ heads: 4, head: 2 });
    const { body, view, changes } = mount();
    view.render(snapshot);
    const maps = [...body.querySelectorAll('.head-grid .head-map-pick')] as HTMLButtonElement[];
    expect(maps.length).toBe(4);
    expect(maps.map((m) => m.getAttribute('aria-pressed'))).toEqual(['false', 'false', 'true', 'false']);
    expect(maps[2].getAttribute('aria-label')).toContain('Head 3 of 4');
    maps[1].click();
    expect(changes).toEqual([{ head: 1 }]);
    // Every map is labelled with the sentence's tokens on both axes.
    const labels = tokenLabels(snapshot.tokens);
    for (const map of body.querySelectorAll('.head-map')) {
      expect([...map.querySelectorAll('.head-map-row')].map((b) => b.textContent)).toEqual(labels);
      expect([...map.querySelectorAll('.head-map-col')].map((b) => b.textContent)).toEqual(labels);
    }
    // The table equivalent: each token's strongest key in each head.
    const { pipeline: p, tokens } = snapshot;
    const rows = [...body.querySelectorAll('table.multi-head-top tbody tr')];
    expect(rows.length).toBe(p.n);
    for (let head = 0; head < 4; head++) {
      const key = topKey(p.weights.data, head, p.n, 6);
      expect(rows[6].querySelectorAll('td')[head].textContent).toContain(tokenLabels(tokens)[key]);
    }
  });

  test('a token on the left highlights its row in every head: pointing shows it, a click keeps it, arrows move it', async () => {
    const snapshot = await snapshotFor({ dModel: 8, heads: 2 });
    const { body, view, changes } = mount();
    view.render(snapshot);
    expect(body.textContent).toContain('Point at or click a token on the left to highlight its row in every head;');
    const bands = () =>
      [...body.querySelectorAll<HTMLElement>('.head-map-band')].map((b) => (b.hidden ? null : b.style.getPropertyValue('--row')));
    const highlighted = () =>
      [...body.querySelectorAll('.head-map')].map((map) => [...map.querySelectorAll('.head-map-row-hl')].map((b) => b.textContent));
    const labels = tokenLabels(snapshot.tokens);
    const rowsOf = (head: number) => [...body.querySelectorAll(`.head-map[data-head="${head}"] .head-map-row`)] as HTMLButtonElement[];
    expect(bands()).toEqual([null, null]);
    rowsOf(0)[6].dispatchEvent(new PointerEvent('pointerover', { bubbles: true }));
    expect(bands()).toEqual(['6', '6']);
    expect(highlighted()).toEqual([[labels[6]], [labels[6]]]);
    body.querySelector('.head-grid')!.dispatchEvent(new PointerEvent('pointerleave'));
    expect(bands()).toEqual([null, null]);
    rowsOf(1)[2].click();
    expect(bands()).toEqual(['2', '2']);
    expect(rowsOf(0)[2].getAttribute('aria-pressed')).toBe('true');
    expect(changes).toEqual([]); // a label is not a map: the shown head stays
    // A redraw with the same tokens (another head picked) keeps the row highlighted.
    view.render(await snapshotFor({ dModel: 8, heads: 2, head: 1 }));
    expect(bands()).toEqual(['2', '2']);
    // Keyboard: one tab stop per map's labels; ↓ moves it and the highlight, in every map.
    rowsOf(0)[2].focus();
    rowsOf(0)[2].dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true, cancelable: true }));
    expect(document.activeElement).toBe(rowsOf(0)[3]);
    expect(bands()).toEqual(['3', '3']);
    expect(rowsOf(1).map((b) => b.tabIndex)).toEqual(labels.map((_, r) => (r === 3 ? 0 : -1)));
    rowsOf(0)[3].dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true, cancelable: true }));
    expect(bands()).toEqual([String(labels.length - 1), String(labels.length - 1)]);
  });

  test('more than 16 heads: the first 16 maps, and the page says so', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor({ dModel: 64, heads: 32 }));
    expect(body.querySelectorAll('.head-grid .head-map-pick').length).toBe(MAX_HEAD_MAPS);
    expect(body.querySelector('.multi-head-grid-note')!.textContent).toContain('first 16 of 32 heads');
  });

  test('the diagram’s shapes are the snapshot’s', async () => {
    const snapshot = await snapshotFor({ dModel: 8, heads: 2 });
    const { body, view } = mount();
    view.render(snapshot);
    const shapes = [...body.querySelectorAll('.multi-head-shape')].map((s) => s.textContent);
    expect(shapes).toEqual(['(9, 8)', '3 × (9, 8)', '2 × 3 × (9, 4)', '2 × (9, 4)', '(9, 8)', '(9, 8)']);
    expect(body.querySelectorAll('.multi-head-slice').length).toBe(2);
    expect(body.querySelector('.multi-head-slice')!.textContent).toBe('head 1: 1–4');
  });

  test('the output is the engine’s (n, d_model) output; numbers drop out when it is large', async () => {
    const small = await snapshotFor();
    const { body, view } = mount();
    view.render(small);
    const table = body.querySelector('table.matrix')!;
    expect([...table.querySelectorAll('td')].map((td) => td.textContent)).toEqual(Array.from(small.pipeline.output.data, (v) => fmt(v)));
    view.render(await snapshotFor({ dModel: 512, heads: 8 }));
    expect(body.querySelector('table.matrix')!.classList.contains('no-numbers')).toBe(true);
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
  });

  test('shows attention_heads() with the lines that split and merge heads highlighted', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor());
    const code = body.querySelector('pre.code')!.textContent!;
    for (const line of ATTENTION_FUNCTION.split('\n')) expect(code).toContain(line);
    const highlighted = [...body.querySelectorAll('.code-line-hl')].map((line) => Number((line as HTMLElement).dataset.line));
    expect(highlighted).toEqual([...HEAD_LINES]);
    expect(body.querySelector('.code-line-hl[data-line="7"]')!.textContent).toContain('reshape(n, heads, d_k)');
  });
});
