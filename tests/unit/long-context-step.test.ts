// @vitest-environment happy-dom
// The long-context step on real snapshots: the engine's sparse kernel, masked full attention and
// linear attention agree where the maths says they must, the counts are the patterns' own, and every
// number the step prints (table, readings) is the snapshot's. The controls ask for the schema's settings.
import { describe, expect, test } from 'vitest';
import {
  cellMultiplyAdds,
  fullCells,
  linearCrossover,
  linearMultiplyAdds,
  type LongContextSnapshot,
} from '../../web/src/features/long-context/compute';
import { longContextStep, patternSentence, TECHNIQUE_NAMES } from '../../web/src/features/long-context/step';
import { costStep } from '../../web/src/steps/09-cost/step';
import { faqStep } from '../../web/src/steps/12-faq/step';
import { count, fmt, percent } from '../../web/src/ui/format';
import { settingsFromParams } from '../../web/src/settings';
import { sentenceView } from '../../web/src/snapshot';
import { exampleSnapshotFor, snapshotFor, trainedSnapshotFor } from './fixtures';
import { mountStep } from './mount-step';

const mount = () => mountStep(longContextStep);

const technique = (lc: LongContextSnapshot, id: string) => lc.techniques.find((t) => t.id === id)!;

/** (rows, cols) product a × b. */
function times(a: Float32Array, b: Float32Array, n: number, cols: number): Float32Array {
  const out = new Float32Array(n * cols);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) for (let c = 0; c < cols; c++) out[i * cols + c] += a[i * n + j] * b[j * cols + c];
  return out;
}

describe('long-context snapshot', () => {
  test('each pattern: its cells are its mask, its weights stay inside it, and the sparse kernel equals masked attention', async () => {
    const snapshot = await snapshotFor({
      sentence: 'one two three four five six seven eight nine ten eleven',
      causal: true,
      lcWindow: 3,
      lcGlobal: 2,
      lcStride: 4,
    });
    const lc = snapshot.longContext!;
    const n = lc.tokens;
    expect(n).toBe(11);
    expect(lc.full.cells).toBe((11 * 12) / 2);
    const V = snapshot.pipeline.V_heads.data.slice(lc.head * n * lc.dK, (lc.head + 1) * n * lc.dK);
    for (const id of ['window', 'global', 'strided'] as const) {
      const t = technique(lc, id);
      const mask = t.mask!.data;
      expect(t.cells).toBe(mask.reduce((sum, bit) => sum + bit, 0));
      for (let i = 0; i < n; i++) {
        let row = 0;
        for (let j = 0; j < n; j++) {
          const w = t.weights.data[i * n + j];
          if (!mask[i * n + j]) expect(w).toBe(0);
          if (j > i) expect(mask[i * n + j]).toBe(0);
          row += w;
        }
        expect(row).toBeCloseTo(1, 5);
      }
      // The kernel that visits only the pattern's cells gives masked attention's output.
      const masked = times(t.weights.data, V, n, lc.dK);
      for (let i = 0; i < masked.length; i++) expect(t.output.data[i]).toBeCloseTo(masked[i], 5);
      expect(t.multiplyAdds).toBe(cellMultiplyAdds(t.cells, lc.dK));
    }
    // A causal window of 3: min(i + 1, 3) keys per row.
    expect(technique(lc, 'window').cells).toBe(1 + 2 + 3 * 9);
    // Global tokens and a stride only add cells.
    expect(technique(lc, 'global').cells).toBeGreaterThan(technique(lc, 'window').cells);
    expect(technique(lc, 'strided').cells).toBeGreaterThan(technique(lc, 'window').cells);
  });

  test('a window as wide as the sentence is full attention; linear attention is its weights times V', async () => {
    const snapshot = await snapshotFor({ lcWindow: 200, lcGlobal: 250 });
    const lc = snapshot.longContext!;
    const n = lc.tokens;
    expect(lc.global).toBe(n);
    const window = technique(lc, 'window');
    expect(window.cells).toBe(n * n);
    expect(window.maxDifference).toBeLessThan(1e-5);
    const linear = technique(lc, 'linear');
    const V = snapshot.pipeline.V_heads.data.slice(lc.head * n * lc.dK, (lc.head + 1) * n * lc.dK);
    const implied = times(linear.weights.data, V, n, lc.dK);
    for (let i = 0; i < implied.length; i++) expect(linear.output.data[i]).toBeCloseTo(implied[i], 5);
    expect(linear.maxDifference).toBeGreaterThan(0);
    expect(linear.multiplyAdds).toBe(linearMultiplyAdds(n, lc.dK));
  });

  test('the crossover is the first n where linear attention costs less', () => {
    for (const causal of [false, true])
      for (const dK of [1, 4, 64]) {
        const n = linearCrossover(dK, causal);
        expect(linearMultiplyAdds(n, dK)).toBeLessThan(cellMultiplyAdds(fullCells(n, causal), dK));
        expect(linearMultiplyAdds(n - 1, dK)).toBeGreaterThanOrEqual(cellMultiplyAdds(fullCells(n - 1, causal), dK));
      }
  });

  test('with the article’s example the step reads the sentence with the trained model', async () => {
    const snapshot = await exampleSnapshotFor();
    expect(snapshot.longContext).toBe(sentenceView(snapshot).longContext);
    expect(snapshot.longContext!.tokens).toBe(sentenceView(snapshot).pipeline.n);
  });
});

describe('long-context settings', () => {
  test('lc_window, lc_global and lc_stride come from the URL, clamped with a notice', () => {
    const { settings, notices } = settingsFromParams(new URLSearchParams('lc_window=5&lc_global=0&lc_stride=999'));
    expect([settings.lcWindow, settings.lcGlobal, settings.lcStride]).toEqual([5, 0, 256]);
    expect(notices.join(' ')).toMatch(/stride/i);
    expect(settingsFromParams(new URLSearchParams('lc_window=0')).settings.lcWindow).toBe(1);
  });
});

describe('long-context step', () => {
  test('the table and the readings print the snapshot’s numbers', async () => {
    const snapshot = await trainedSnapshotFor({ lcWindow: 2, lcGlobal: 1, lcStride: 3 });
    const lc = snapshot.longContext!;
    const { body, view } = mount();
    view.render(snapshot);
    const rows = [...body.querySelectorAll('table.lc-table tbody tr')] as HTMLElement[];
    expect(rows.map((r) => r.dataset.technique)).toEqual(['full', 'window', 'global', 'strided', 'linear']);
    expect([...rows[0].querySelectorAll('td')].map((td) => td.textContent)).toEqual([
      count(lc.full.cells),
      '100%',
      count(lc.full.multiplyAdds),
      '0',
      '0',
    ]);
    for (const t of lc.techniques) {
      const row = rows.find((r) => r.dataset.technique === t.id)!;
      const cell = (key: string) => row.querySelector(`[data-key="${key}"]`)!.textContent;
      expect(row.querySelector('th')!.textContent).toBe(TECHNIQUE_NAMES[t.id].name);
      expect([cell('cells'), cell('share'), cell('multiplyAdds'), cell('max'), cell('mean')]).toEqual([
        count(t.cells),
        percent(t.cells / lc.full.cells),
        count(t.multiplyAdds),
        fmt(t.maxDifference, 3),
        fmt(t.meanDifference, 3),
      ]);
      const panel = body.querySelector(`.lc-panels [data-technique="${t.id}"]`)!;
      const reading = panel.querySelector('.lc-technique-reading')!.textContent!;
      expect(reading).toContain(`differs from full attention’s by at most ${fmt(t.maxDifference, 3)} (mean ${fmt(t.meanDifference, 3)})`);
      if (t.id !== 'linear')
        expect(reading).toContain(`${count(t.cells)} of ${count(lc.full.cells)} scores (${percent(t.cells / lc.full.cells)})`);
      // The weights drawn are the snapshot's (first row, every key).
      const first = [...panel.querySelectorAll('tbody tr:first-child td')].map((td) => td.textContent);
      expect(first.length).toBe(lc.tokens);
    }
    const reading = body.querySelector('.lc-reading')!.textContent!;
    expect(reading).toContain(`${lc.tokens} tokens, head ${lc.head + 1} of the trained model (Q, K, V each ${lc.tokens} × ${lc.dK})`);
    expect(reading).toContain(`full attention computes ${count(lc.full.cells)} scores. Window w = 2, 1 global token, stride 3.`);
    expect(body.querySelector('.lc-linear-cost')!.textContent).toContain(`from ${count(lc.linearCheaperFrom)} tokens on`);
  });

  test('the global pattern names its tokens in the right number', async () => {
    const rule = async (lcGlobal: number) => {
      const lc = (await trainedSnapshotFor({ lcWindow: 2, lcGlobal, lcStride: 3 })).longContext!;
      return patternSentence(lc, technique(lc, 'global'));
    };
    expect(await rule(1)).toBe('The window, plus the first token, which every token sees and which sees every token.');
    expect(await rule(2)).toBe('The window, plus the first 2 tokens, which every token sees and which see every token.');
  });

  test('the controls show the settings and ask for changes; FlashAttention is a link only where its step is', async () => {
    const { body, view, changes } = mount();
    view.render(await snapshotFor({ lcWindow: 4, lcGlobal: 2, lcStride: 0 }));
    const input = (name: string) => body.querySelector(`input[name="${name}"]`) as HTMLInputElement;
    expect([input('window').value, input('global-tokens').value, input('stride').value]).toEqual(['4', '2', '0']);
    input('window').value = '6';
    input('window').dispatchEvent(new Event('change'));
    input('stride').value = '2';
    input('stride').dispatchEvent(new Event('change'));
    expect(changes).toEqual([{ lcWindow: 6 }, { lcStride: 2 }]);
    expect(body.querySelector('.lc-flash a')).toBeNull();
    const flash = document.createElement('section');
    flash.id = 'flash';
    document.body.append(flash);
    view.render(await snapshotFor());
    expect(body.querySelector('.lc-flash a')!.getAttribute('href')).toBe('#flash');
  });

  test('the cost step and the FAQ link the live figures, where the step is on the page', async () => {
    const snapshot = await snapshotFor();
    const section = (id: string) => {
      const node = document.createElement('section');
      node.id = id;
      return node;
    };
    const [cost, faq] = [document.createElement('div'), document.createElement('div')];
    const views = [costStep.mount(cost, { update: () => {} }), faqStep.mount(faq, { update: () => {} })];
    document.body.replaceChildren(cost, faq);
    for (const view of views) view.render(snapshot);
    expect(cost.querySelectorAll('.cost-techniques a').length).toBe(0);
    expect(faq.querySelectorAll('.faq-long-context-ref a').length).toBe(0);

    const long = section('long-context');
    longContextStep.mount(long, { update: () => {} }).render(snapshot);
    document.body.append(long);
    for (const view of views) view.render(snapshot);
    const targets = (root: Element, selector: string) =>
      [...root.querySelectorAll(`${selector} a`)].map((a) => {
        const id = a.getAttribute('href')!.slice(1);
        expect(document.getElementById(id)).not.toBeNull();
        return id;
      });
    expect(targets(cost, '.cost-techniques')).toEqual(['lc-window', 'lc-global', 'lc-linear']);
    expect(targets(faq, '.faq-long-context-ref')).toEqual(['long-context', 'kv-cache']);
  });
});
