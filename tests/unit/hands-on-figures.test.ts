// @vitest-environment happy-dom
// The hands-on figure code on its own: MatrixTable's readout, change marks, edit mode and painting;
// the export formats (float32 text, CSV, NumPy literal, the SVG drawing of a table); predictions
// (cover, answer, skip, switch off, a localStorage that throws); the NumPy script's text.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { BarChart } from '../../web/src/ui/bars';
import { f32, fileStem, tableCsv, tableNumpy } from '../../web/src/ui/export-text';
import { tableSvg } from '../../web/src/ui/export-svg';
import { formatDelta, formatPercentDelta } from '../../web/src/ui/format';
import { HeadGrid } from '../../web/src/ui/head-grid';
import { parseTyped, type MatrixEdit } from '../../web/src/ui/matrix-table/edit';
import { MatrixTable } from '../../web/src/ui/matrix-table/matrix-table';
import { cellColour, hex, LIGHT_PALETTE, mixOklab, parseColour } from '../../web/src/ui/palette';
import { ATTENTION_FUNCTION, CAUSAL_MASK_LINE, numpyScript } from '../../web/src/features/hands-on/numpy-script';
import { Prediction, PredictionStore, predictionToggle, type PredictQuestion } from '../../web/src/ui/predict';
import { encodePaint } from '../../web/src/features/hands-on/hands-on-settings';
import { exampleSnapshotFor, snapshotFor } from './fixtures';
import { mounted, view } from './table-fixtures';

const key = (target: Element, k: string, init: KeyboardEventInit = {}) =>
  target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init }));
const td = (root: Element, r: number, c: number) => root.querySelector(`td[data-row="${r}"][data-col="${c}"]`) as HTMLTableCellElement;

describe('MatrixTable: reading cells in words', () => {
  test('hover and focus name the cell under the table; the default words use the labels', () => {
    const table = new MatrixTable({ caption: 'M', scale: 'diverging' });
    const root = mounted(table);
    table.update(view([1, -2, 3.5, 0], 2, 2));
    const readout = root.querySelector('.matrix-readout')!;
    expect(readout.getAttribute('aria-live')).toBe('polite');
    td(root, 1, 0).dispatchEvent(new PointerEvent('pointerover', { bubbles: true }));
    expect(readout.textContent).toBe('Row r2, column c1: 3.50');
    root.querySelector('table')!.dispatchEvent(new PointerEvent('pointerleave'));
    expect(readout.textContent).toBe('');
    td(root, 0, 1).focus();
    expect(readout.textContent).toBe('Row r1, column c2: −2.00');
  });

  test('describe() words, blocked cells say so; every table is a keyboard grid with one tab stop', () => {
    const table = new MatrixTable({ caption: 'weights', scale: 'sequential', describe: (r, c, v) => `${r}→${c}: ${v}` });
    const root = mounted(table);
    table.update(view([1, 0, 0.5, 0.5], 2, 2, { blocked: (r: number, c: number) => c > r, blockedText: '0' }));
    expect(root.querySelectorAll('td[tabindex="0"]')).toHaveLength(1);
    expect(root.querySelectorAll('td[tabindex="-1"]')).toHaveLength(3);
    expect(root.querySelector('table')!.getAttribute('role')).toBeNull(); // a plain table: not selectable
    td(root, 0, 0).focus();
    key(td(root, 0, 0), 'ArrowRight');
    expect(document.activeElement).toBe(td(root, 0, 1));
    expect(td(root, 0, 1).tabIndex).toBe(0);
    expect(td(root, 0, 0).tabIndex).toBe(-1);
    expect(root.querySelector('.matrix-readout')!.textContent).toBe('0→1: 0 (blocked: 0)');
  });
});

describe('MatrixTable: what moved since the edits', () => {
  test('changed cells get a class, the signed change and a title; unchanged ones do not', () => {
    const table = new MatrixTable({ caption: 'M', scale: 'diverging', describe: () => 'cell' });
    const root = mounted(table);
    table.update(view([1, 2.12, 3, 4.0004], 2, 2, { baseline: Float32Array.from([1, 2, 3.5, 4]) }));
    const changed = [...root.querySelectorAll('td.changed')] as HTMLElement[];
    expect(changed.map((c) => c.dataset.delta)).toEqual(['+0.12', '−0.50']);
    expect(td(root, 0, 1).title).toBe('cell; +0.12 since your edits');
    expect(td(root, 1, 1).classList.contains('changed')).toBe(false); // 0.0004: float rounding
    expect(table.changes).toBe(2);
    expect(root.querySelector('table')!.classList.contains('has-changes')).toBe(true);
    expect(root.querySelector('.matrix-readout')!.textContent).toBe(
      '2 of 4 numbers moved since your edits (dashed outline, change in the corner).',
    );
    table.update(view([1, 2.12, 3, 4], 2, 2, { baseline: null }));
    expect(root.querySelectorAll('td.changed')).toHaveLength(0);
    expect(td(root, 0, 1).title).toBe('cell');
  });

  test('delta text: two decimals, three below 0.01; percentage points for weights', () => {
    expect(formatDelta(0.123)).toBe('+0.12');
    expect(formatDelta(-0.004)).toBe('−0.004');
    expect(formatPercentDelta(0.031)).toBe('+3%');
    expect(formatPercentDelta(-0.004)).toBe('−0.4%');
  });
});

describe('MatrixTable: editing', () => {
  function editable() {
    const calls: string[] = [];
    const edit: MatrixEdit = {
      label: (r, c) => `X ${r + 1},${c + 1}`,
      start: (r, c) => calls.push(`start ${r},${c}`),
      change: (r, c, v) => calls.push(`change ${r},${c}=${v}`),
      end: (r, c, keep) => calls.push(`end ${r},${c} ${keep ? 'keep' : 'undo'}`),
    };
    const table = new MatrixTable({ caption: 'X', scale: 'diverging', edit });
    const root = mounted(table);
    table.update(view([0.5, 1, -1, 2], 2, 2));
    return { table, root, calls };
  }

  test('Enter edits, ↑/↓ nudge by 0.1 (Shift: 1), Enter keeps; the arrows still move between cells outside edit mode', () => {
    const { root, calls } = editable();
    expect(root.querySelector('table')!.getAttribute('role')).toBe('grid');
    const cell = td(root, 0, 0);
    cell.focus();
    key(cell, 'ArrowDown');
    expect(document.activeElement).toBe(td(root, 1, 0));
    key(td(root, 1, 0), 'ArrowUp');
    key(cell, 'Enter');
    const input = cell.querySelector('input')!;
    expect(input.value).toBe('0.5');
    expect(input.getAttribute('aria-label')).toMatch(/^X 1,1\. Type a number/);
    expect(document.activeElement).toBe(input);
    key(input, 'ArrowUp');
    key(input, 'ArrowUp', { shiftKey: true });
    key(input, 'ArrowDown');
    expect(input.value).toBe('1.5');
    key(input, 'Enter');
    expect(calls).toEqual(['start 0,0', 'change 0,0=0.6', 'change 0,0=1.6', 'change 0,0=1.5', 'change 0,0=1.5', 'end 0,0 keep']);
    expect(cell.querySelector('input')).toBeNull();
    expect(document.activeElement).toBe(cell);
  });

  test('Escape puts the old value back; typing a digit starts editing with it; F2 edits too', () => {
    const { root, calls } = editable();
    const cell = td(root, 1, 1);
    cell.focus();
    key(cell, 'F2');
    key(cell.querySelector('input')!, 'ArrowUp');
    key(cell.querySelector('input')!, 'Escape');
    expect(calls.slice(-1)).toEqual(['end 1,1 undo']);
    expect(cell.textContent).toBe('2.00');
    calls.length = 0;
    key(cell, '7');
    const input = cell.querySelector('input')!;
    expect(input.value).toBe('7');
    expect(calls).toEqual(['start 1,1', 'change 1,1=7']);
    input.value = '−2.5';
    input.dispatchEvent(new Event('input'));
    key(input, 'Enter');
    expect(calls.slice(-2)).toEqual(['change 1,1=-2.5', 'end 1,1 keep']);
  });

  test('an update while a cell is edited keeps the edit box; setEditable(false) switches editing off', () => {
    const { table, root } = editable();
    const cell = td(root, 0, 1);
    cell.focus();
    key(cell, 'Enter');
    table.update(view([0.5, 1.1, -1, 2], 2, 2));
    expect(cell.querySelector('input')).not.toBeNull();
    table.setEditable(false);
    expect(cell.querySelector('input')).toBeNull();
    expect(root.querySelector('table')!.classList.contains('editable')).toBe(false);
    key(cell, 'Enter');
    expect(cell.querySelector('input')).toBeNull();
  });

  test('typed numbers: minus signs and decimal commas are read; anything else is not a number yet', () => {
    expect(parseTyped('−1,5')).toBe(-1.5);
    expect(parseTyped('.25')).toBe(0.25);
    expect(parseTyped('1e-2')).toBe(0.01);
    for (const text of ['', '-', 'abc', '1..2', 'Infinity', '0x10']) expect(parseTyped(text)).toBeNull();
  });
});

describe('MatrixTable: painting 0/1 cells', () => {
  test('Space toggles the focused cell; a screen reader’s click toggles too; shown at once', () => {
    const painted: string[] = [];
    const table = new MatrixTable({
      caption: 'mask',
      scale: 'sequential',
      format: (v) => String(v),
      paint: { paint: (cells, on) => painted.push(`${cells.join(';')} ${on ? 1 : 0}`) },
    });
    const root = mounted(table);
    table.update(view([1, 0, 1, 1], 2, 2, { blocked: (r: number, c: number) => c > r, blockedText: '0' }));
    const cell = td(root, 0, 1);
    cell.focus();
    key(cell, ' ');
    expect(painted).toEqual(['0,1 1']);
    expect(cell.textContent).toBe('1');
    expect(cell.classList.contains('blocked')).toBe(false);
    key(cell, ' ');
    expect(painted).toEqual(['0,1 1', '0,1 0']);
    td(root, 1, 0).dispatchEvent(new MouseEvent('click', { bubbles: true, detail: 0 }));
    expect(painted.at(-1)).toBe('1,0 0');
    expect(td(root, 1, 0).classList.contains('blocked')).toBe(true);
  });
});

describe('exports', () => {
  test('f32: the shortest text that reads back as the same float32', () => {
    expect(f32(0.1)).toBe('0.1');
    expect(f32(Math.fround(0.1))).toBe('0.1');
    expect(f32(1)).toBe('1.0');
    expect(f32(-0)).toBe('0.0');
    expect(f32(Math.fround(1 / 3))).toBe('0.33333334');
    expect(f32(1e-8)).toBe('1.0e-08');
    expect(f32(-Infinity)).toBe('-inf');
    for (const v of [Math.PI, -2.5e-5, 123456.789, 7e20]) expect(Math.fround(Number(f32(v)))).toBe(Math.fround(v));
  });

  test('a table as CSV, as a NumPy literal and as SVG: labels, exact values, −∞ for blocked scores', () => {
    const table = new MatrixTable({ caption: 'scores, "head" 1', scale: 'diverging', corner: 'query ↓ key →' });
    mounted(table);
    table.update({
      ...view([0.25, 9, -1.5, 2], 2, 2, { blocked: (r: number, c: number) => c > r }),
      rowLabels: ['a, b', 'c'],
      colLabels: ['a, b', 'c'],
    });
    const data = table.exportData();
    expect(tableCsv(data)).toBe('query ↓ key →,"a, b",c\n"a, b",0.25,-inf\nc,-1.5,2.0\n');
    expect(tableNumpy(data)).toBe(
      '# scores, "head" 1\n# rows: a, b, c\n# columns: a, b, c\nnp.array([\n    [0.25, -np.inf],\n    [-1.5, 2.0],\n])\n',
    );
    const file = tableSvg(data);
    const doc = new DOMParser().parseFromString(file.svg, 'image/svg+xml');
    expect(doc.documentElement.nodeName).toBe('svg');
    const texts = [...doc.querySelectorAll('text')].map((t) => t.textContent);
    for (const text of ['0.25', '−∞', '−1.50', '2.00', 'a, b', 'c', 'query ↓ key →', 'scores, "head" 1']) expect(texts).toContain(text);
    expect(doc.querySelectorAll('rect[fill="url(#blocked)"]')).toHaveLength(1);
    expect(file.svg).not.toMatch(/style=/);
    expect(file.width).toBeGreaterThan(100);
    expect(fileStem('weights = softmax(scores / √d_k), head 1')).toBe('weights-softmax-scores-d-k-head-1');
  });

  test('a bar chart and the head grid as SVG files: labels, values, bar lengths, one square per weight', () => {
    const bars = new BarChart({ caption: 'shares of “it”', labelHeader: 'token', valueHeader: 'share' });
    document.body.replaceChildren(bars.element);
    bars.update(
      [
        { label: 'animal', value: 0.75, emphasis: true },
        { label: 'road', value: 0.25 },
      ],
      'shares of “it”',
    );
    const doc = new DOMParser().parseFromString(bars.svgFile().svg, 'image/svg+xml');
    const texts = [...doc.querySelectorAll('text')].map((t) => t.textContent);
    for (const text of ['shares of “it”', 'animal', 'road']) expect(texts).toContain(text);
    const widths = [...doc.querySelectorAll('rect')].slice(1).map((r) => Number(r.getAttribute('width')));
    expect(widths).toEqual([320, 320, 320, 106.7]); // tracks and fills: 0.75 is the longest bar, 0.25 a third of it
    const heads = new HeadGrid(() => {}, 'maps');
    heads.update(
      [
        { data: Float32Array.from([1, 0, 0.5, 0.5]), n: 2, caption: 'Head 1', description: 'head 1' },
        { data: Float32Array.from([0.25, 0.75, 0, 1]), n: 2, caption: 'Head 2', description: 'head 2' },
      ],
      0,
    );
    const grid = new DOMParser().parseFromString(heads.svgFile('maps').svg, 'image/svg+xml');
    expect([...grid.querySelectorAll('text')].map((t) => t.textContent)).toEqual(['maps', 'Head 1', 'Head 2']);
    // One square per weight above 0, in the colour the page paints it: the cells' sequential mix at the
    // full-strength cap, up to the grid's largest weight (1 here, so a weight of 1 is the scale's 1).
    const squares = [...grid.querySelectorAll('rect')].slice(2).filter((r) => r.getAttribute('width') !== '150');
    expect(squares.map((r) => r.getAttribute('fill'))).toEqual(
      [1, 0.5, 0.5, 0.25, 0.75, 1].map((w) => cellColour(w, 'sequential', LIGHT_PALETTE, 1)),
    );
    expect(squares[0].getAttribute('fill')).toBe(hex(LIGHT_PALETTE.seq1));
    // A grid whose largest weight is 0.5 shows 0.5 at full strength, as its legend's 0% … 50% says.
    heads.update([{ data: Float32Array.from([0.5, 0.5, 0.25, 0.25]), n: 2, caption: 'Head 1', description: 'head 1' }], 0);
    const half = new DOMParser().parseFromString(heads.svgFile('maps').svg, 'image/svg+xml');
    expect([...half.querySelectorAll('rect')].slice(2).map((r) => r.getAttribute('fill'))).toEqual(
      [1, 1, 0.5, 0.5].map((t) => cellColour(t, 'sequential', LIGHT_PALETTE, 1)),
    );
  });

  test('the head grid’s SVG file labels every map’s axes with its tokens, from the labels it was given', () => {
    const heads = new HeadGrid(() => {}, 'maps');
    const tokens = ['the (1)', 'cat', 'sat', '<b>'];
    const map = (i: number) => ({
      data: Float32Array.from({ length: 16 }, (_, k) => ((k + i) % 4) / 4),
      n: 4,
      caption: `Head ${i + 1}`,
      description: `head ${i + 1}`,
    });
    heads.update([map(0), map(1), map(2)], 1, tokens);
    document.body.replaceChildren(); // the file is drawn from the data, not from the page
    const file = heads.svgFile('Attention maps, one per head', LIGHT_PALETTE);
    const doc = new DOMParser().parseFromString(file.svg, 'image/svg+xml');
    expect(doc.querySelector('parsererror')).toBeNull();
    const texts = [...doc.querySelectorAll('text')].map((t) => t.textContent);
    // The title, then per map: its caption, the key tokens along the top, the query tokens down the left.
    expect(texts).toEqual(['Attention maps, one per head', ...[0, 1, 2].flatMap((i) => [`Head ${i + 1}`, ...tokens, ...tokens])]);
    expect(file.svg).toContain('&lt;b&gt;'); // escaped, not markup
    // Column labels read upwards and sit over their columns in order; row labels end left of the map, rows in order.
    const first = [...doc.querySelectorAll('text')].slice(2, 10);
    const cols = first.slice(0, 4).map((t) => /translate\(([\d.]+) ([\d.]+)\) rotate\(-90\)/.exec(t.getAttribute('transform') ?? ''));
    expect(cols.every(Boolean)).toBe(true);
    const xs = cols.map((m) => Number(m![1]));
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    const rows = first.slice(4);
    expect(rows.map((t) => t.getAttribute('text-anchor'))).toEqual(['end', 'end', 'end', 'end']);
    const ys = rows.map((t) => Number(t.getAttribute('y')));
    expect([...ys].sort((a, b) => a - b)).toEqual(ys);
    const frame = doc.querySelectorAll('rect')[1];
    expect(Number(rows[0].getAttribute('x'))).toBeLessThan(Number(frame.getAttribute('x')));
    expect(Math.max(...cols.map((m) => Number(m![2])))).toBeLessThan(Number(frame.getAttribute('y')));
    // Everything fits in the file.
    for (const t of doc.querySelectorAll('text[x]')) expect(Number(t.getAttribute('x'))).toBeLessThan(file.width);
    expect(
      Math.max(...[...doc.querySelectorAll('rect')].map((r) => Number(r.getAttribute('y') ?? 0) + Number(r.getAttribute('height')))),
    ).toBeLessThanOrEqual(file.height);

    // Past LABELLED_TOKENS tokens the page's maps go without labels, and so does the file.
    const n = 40;
    const words = Array.from({ length: n }, (_, i) => `w${i}`);
    heads.update([{ data: new Float32Array(n * n).fill(1 / n), n, caption: 'Head 1', description: 'head 1' }], 0, words);
    const big = new DOMParser().parseFromString(heads.svgFile('maps').svg, 'image/svg+xml');
    expect([...big.querySelectorAll('text')].map((t) => t.textContent)).toEqual(['maps', 'Head 1']);
  });

  test('colours mix like CSS color-mix(in oklab): the ends are the inputs, the middle is in between', () => {
    expect(parseColour('rgb(179, 88, 6)')).toEqual([179, 88, 6]);
    expect(parseColour('#08306b')).toEqual([8, 48, 107]);
    expect(parseColour('color(srgb 1 0.5 0)')).toEqual([255, 128, 0]);
    expect(hex(mixOklab([179, 88, 6], 1, [247, 247, 247]))).toBe('#b35806');
    expect(hex(mixOklab([179, 88, 6], 0, [247, 247, 247]))).toBe('#f7f7f7');
    const mid = mixOklab([0, 0, 0], 0.5, [255, 255, 255]);
    expect(mid[0]).toBeGreaterThan(90);
    expect(mid[0]).toBeLessThan(110); // oklab's middle grey, not sRGB's 128
  });
});

describe('predictions', () => {
  afterEach(() => {
    localStorage.clear();
    vi.restoreAllMocks();
  });

  const question = (correct = 'b'): PredictQuestion => ({
    key: 'q1',
    question: 'Which?',
    choices: [
      { id: 'a', label: 'A' },
      { id: 'b', label: 'B' },
    ],
    correct,
    explanation: 'Because.',
  });

  function setup(store = new PredictionStore('test-predictions')) {
    const figure = document.createElement('figure');
    const prediction = new Prediction([figure], store);
    document.body.replaceChildren(prediction.element, figure);
    return { figure, prediction, store };
  }

  test('the figure is covered and inert until answered; the answer is judged and explained, and remembered', () => {
    const { figure, prediction } = setup();
    prediction.update(question());
    expect(prediction.covered).toBe(true);
    expect(figure.classList.contains('predict-cover')).toBe(true);
    expect(figure.hasAttribute('inert')).toBe(true);
    expect(figure.getAttribute('aria-hidden')).toBe('true');
    (prediction.element.querySelector('[data-choice="a"]') as HTMLElement).click();
    expect(prediction.element.querySelector('.predict-verdict')!.textContent).toBe('Not quite: you said A; the answer is B. Because.');
    expect(figure.classList.contains('predict-cover')).toBe(false);
    expect(figure.hasAttribute('inert')).toBe(false);
    expect(prediction.element.querySelector('[aria-pressed="true"]')!.textContent).toBe('A');
    // Another page (or a reload) with the same storage sees the answer.
    const again = setup(new PredictionStore('test-predictions'));
    again.prediction.update(question());
    expect(again.prediction.covered).toBe(false);
    expect(again.prediction.element.querySelector('.predict-verdict')!.textContent).toMatch(/^Not quite/);
    // The right answer follows the numbers: with B wrong and A right, the same choice is now right.
    again.prediction.update(question('a'));
    expect(again.prediction.element.querySelector('.predict-verdict')!.textContent).toBe('Right: A. Because.');
  });

  test('before an answer, a change that moves only the answer redraws nothing; the verdict then uses the latest answer', () => {
    const { prediction } = setup();
    prediction.update(question('b'));
    const buttons = [...prediction.element.querySelectorAll('[data-choice]')];
    const focused = buttons[1] as HTMLElement;
    focused.focus();
    prediction.update({ ...question('a'), explanation: 'Because of the new weights.' });
    const after = [...prediction.element.querySelectorAll('[data-choice]')];
    expect(after.length).toBe(2);
    after.forEach((button, i) => expect(button).toBe(buttons[i])); // the same nodes, not redrawn
    expect(document.activeElement).toBe(focused);
    expect(prediction.covered).toBe(true);
    (buttons[0] as HTMLElement).click();
    expect(prediction.element.querySelector('.predict-verdict')!.textContent).toBe('Right: A. Because of the new weights.');
    // A new question (other choices) is drawn anew.
    prediction.update({
      ...question('b'),
      key: 'q2',
      choices: [
        { id: 'b', label: 'B' },
        { id: 'c', label: 'C' },
      ],
    });
    expect([...prediction.element.querySelectorAll('[data-choice]')].map((b) => b.textContent)).toEqual(['B', 'C']);
    expect(prediction.covered).toBe(true);
  });

  test('skip, ask again, and the switch that turns every prediction off', () => {
    const { figure, prediction, store } = setup();
    prediction.update(question());
    (prediction.element.querySelector('.predict-skip') as HTMLElement).click();
    expect(prediction.element.querySelector('.predict-verdict')!.textContent).toBe('The answer: B. Because.');
    (prediction.element.querySelector('.predict-again') as HTMLElement).click();
    expect(prediction.covered).toBe(true);
    (prediction.element.querySelector('.predict-off') as HTMLElement).click();
    expect(store.enabled).toBe(false);
    expect(prediction.element.hidden).toBe(true);
    expect(figure.classList.contains('predict-cover')).toBe(false);
    const toggle = predictionToggle(store);
    const box = toggle.querySelector('input')!;
    expect(box.checked).toBe(false);
    box.checked = true;
    box.dispatchEvent(new Event('change'));
    expect(prediction.covered).toBe(true);
    prediction.update(null); // does not apply (e.g. one token): shown
    expect(prediction.covered).toBe(false);
    expect(prediction.element.hidden).toBe(true);
  });

  test('a localStorage that throws (a sandboxed iframe): predictions still work for the visit', () => {
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    const { prediction, figure } = setup(new PredictionStore('blocked'));
    prediction.update(question());
    expect(prediction.covered).toBe(true);
    (prediction.element.querySelector('[data-choice="b"]') as HTMLElement).click();
    expect(prediction.element.querySelector('.predict-verdict')!.textContent).toBe('Right: B. Because.');
    expect(figure.hasAttribute('inert')).toBe(false);
  });
});

describe('the NumPy script', () => {
  test('our attention_heads() once, the page’s matrices in full, the mask only when the page has one', async () => {
    const plain = numpyScript(await snapshotFor({ sentence: 'the cat sat down' }));
    expect(plain.split(ATTENTION_FUNCTION)).toHaveLength(2);
    expect(plain).not.toContain('mask = ');
    expect(plain).toContain('out, weights, outputs = attention_heads(X, W_q, W_k, W_v, W_o, heads, mask=None, scale=True)');
    expect(plain).toContain('heads = 2\n');
    expect(plain).toContain('np.set_printoptions(precision=2, suppress=True');
    const example = numpyScript(await exampleSnapshotFor());
    expect(example).toContain('heads = 1\n');
    expect(example).toContain('the article’s four-token example');
    expect(example).toContain('W_q = np.array([   # (d_model, heads * d_k) = (8, 4)');
    expect(example).toContain('one head: nothing to mix, the identity');
    const causal = numpyScript(await snapshotFor({ sentence: 'the cat sat down', causal: true }));
    expect(causal).toContain(CAUSAL_MASK_LINE);
    expect(causal).toContain('mask=mask, scale=True)');
    const snapshot = await snapshotFor({
      sentence: 'the cat sat down',
      mask: encodePaint(Uint8Array.from([1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1])),
      scale: false,
      edits: 'X.1.1:0.5',
    });
    const masked = numpyScript(snapshot);
    expect(masked).not.toContain(CAUSAL_MASK_LINE);
    expect(masked).toContain('mask=mask, scale=False)');
    expect(masked).toContain('    [1, 0, 0, 0],');
    expect(masked).toContain('X = np.array([   # (n, d_model) = (4, 8): one row per token\n    [0.5, ');
    expect(masked).toContain('with your edited numbers');
    // Every float of X, written out, reads back as the page's float32.
    const xRows = masked.split('X = np.array([')[1].split('])')[0].trim().split('\n').slice(1);
    const values = xRows.flatMap((row) =>
      row
        .replace(/[[\],]/g, ' ')
        .trim()
        .split(/\s+/)
        .map(Number),
    );
    expect(values.map((v) => Math.fround(v))).toEqual(Array.from(snapshot.pipeline.X.data));
  });
});
