// @vitest-environment happy-dom
// The FAQ on real snapshots: five questions, each with a live figure whose numbers are the
// snapshot's: the spread of dot products and the saturated softmax, the chosen token's q, k and v,
// each head's strongest key for it, its weights row as bars, and n² against (4n)².
import { describe, expect, test } from 'vitest';
import { count, fmt, percent } from '../../../web/src/ui/format';
import { tokenLabels } from '../../../web/src/ui/labels';
import { faqStep } from '../../../web/src/steps/12-faq/step';
import { BAR_ROW_TOP } from '../../../web/src/steps/12-faq/map-answer';
import { exampleSnapshotFor, snapshotFor, trainedSnapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(faqStep);

const barValues = (table: Element) =>
  [...table.querySelectorAll('tbody tr')].map((tr) => [tr.querySelector('th')!.textContent, tr.querySelector('.bar-value')!.textContent]);

describe('FAQ step', () => {
  test('five questions, keyboard-accessible details with the article’s questions', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor());
    const summaries = [...body.querySelectorAll('details > summary')].map((s) => s.textContent);
    expect(summaries).toEqual([
      'Why divide by the square root of dₖ?',
      'What is the difference between query, key and value?',
      'Why multiple attention heads?',
      'Is attention the same as the attention maps I see visualised?',
      'Why is long context expensive?',
    ]);
  });

  test('1: the spread at this d_k and the saturated softmax are the snapshot’s', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const { dots, saturation } = snapshot;
    const spread = body.querySelector('.faq-spread')!.textContent!;
    expect(spread).toBe(`Here dₖ = 4: 4,000 dot products spread ${fmt(dots.rawStd)} (√4 = 2.00); divided, ${fmt(dots.scaledStd)}.`);
    const [soft, sharp] = [...body.querySelectorAll('.faq-bars table.bar-chart')];
    expect(barValues(soft)).toEqual(Array.from(saturation.soft.probabilities, (p, i) => [`score ${i + 1}`, fmt(p)]));
    expect(barValues(sharp)).toEqual(Array.from(saturation.sharp.probabilities, (p, i) => [`score ${i + 1}`, fmt(p)]));
    // The article's numbers: softmax([1, 2, 3]) = [0.09, 0.24, 0.67].
    expect(barValues(soft).map((r) => r[1])).toEqual(['0.09', '0.24', '0.67']);
    expect(body.querySelector('.faq-gradient')!.textContent).toContain(fmt(saturation.sharp.jacobianNorm, 3));
  });

  test('2: the q, k and v rows of “it” in the shown head', async () => {
    const snapshot = await snapshotFor({ heads: 2, head: 1 });
    const { body, view } = mount();
    view.render(snapshot);
    const { pipeline: p } = snapshot;
    const it = 6;
    const table = body.querySelector('table.matrix')!;
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    const rowOf = (data: Float32Array) => Array.from(data.subarray((p.n + it) * p.dK, (p.n + it + 1) * p.dK), (v) => fmt(v));
    expect(rows).toEqual([rowOf(p.Q_heads.data), rowOf(p.K_heads.data), rowOf(p.V_heads.data)]);
    expect(table.querySelector('caption')!.textContent).toContain('q, k and v of “it”, head 2 of 2');
  });

  test('3: each head’s strongest key for “it”', async () => {
    const snapshot = await snapshotFor({ heads: 4 });
    const { body, view } = mount();
    view.render(snapshot);
    const { pipeline: p, tokens } = snapshot;
    const labels = tokenLabels(tokens);
    const rows = [...body.querySelectorAll('table.faq-heads tbody tr')];
    expect(rows.length).toBe(4);
    const keys = new Set<number>();
    rows.forEach((tr, head) => {
      const weights = Array.from(p.weights.data.subarray((head * p.n + 6) * p.n, (head * p.n + 7) * p.n));
      const best = weights.indexOf(Math.max(...weights));
      keys.add(best);
      const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent);
      expect(cells).toEqual([labels[best], percent(weights[best])]);
    });
    expect(body.querySelector('.faq-heads-reading')!.textContent).toContain(`looks most at ${keys.size} different token`);
  });

  test('4: the weights row of “it” as bars, adding up to 100%', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const { pipeline: p, tokens } = snapshot;
    const row = Array.from(p.weights.data.subarray(6 * p.n, 7 * p.n));
    const table = body.querySelector('table.faq-row-bars')!;
    expect(barValues(table)).toEqual(row.map((w, j) => [tokenLabels(tokens)[j], percent(w)]));
    const best = row.indexOf(Math.max(...row));
    expect(table.querySelector('tr.emphasis th')!.textContent).toBe(tokenLabels(tokens)[best]);
    expect(body.querySelector('.faq-row-reading')!.textContent).toContain(
      `${percent(row[best])}, from “${tokens[best]}”; the whole row adds up to 100%`,
    );
  });

  test('5: n² now against (4n)², sixteen times as many', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor());
    const text = body.querySelector('.faq-growth')!.textContent!;
    expect(text).toContain(`9 tokens: ${count(81)} scores per head; 36 tokens: ${count(1296)}, 16 times as many.`);
    const svg = body.querySelector('svg.faq-squares')!;
    expect(svg.getAttribute('role')).toBe('img');
    expect(svg.getAttribute('aria-label')).toContain('fits 16 times');
  });

  test('5: what each method holds at 4n (the block setting), and links to step 10 and its measurement only when they exist', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor({ block: 4 }));
    const bars = [...body.querySelectorAll('.faq-held-bars tbody tr')].map((tr) => [
      tr.querySelector('th')!.textContent,
      tr.querySelector('.bar-value')!.textContent,
    ]);
    expect(bars).toEqual([
      ['naive: n × n matrix', '1,296 floats'],
      ['tiled: 4 × 4 + 3 × 4', '28 floats'],
    ]);
    expect(body.querySelector('.faq-held-bars caption')!.textContent).toBe('Held in memory for 36 tokens, one head');
    // A single-step embed: no #flash, no #flash-run, so the references are words.
    expect(body.querySelector('.faq-flash-ref a')).toBeNull();
    expect(body.querySelector('.faq-measured a')).toBeNull();
    expect(body.querySelector('.faq-measured')!.textContent).toContain('Step 10 times both methods in your browser');
    // In the walkthrough both sections exist.
    for (const id of ['flash', 'flash-run']) document.body.appendChild(Object.assign(document.createElement('section'), { id }));
    view.render(await snapshotFor({ block: 2 }));
    expect(body.querySelector('.faq-flash-ref a')!.getAttribute('href')).toBe('#flash');
    expect(body.querySelector('.faq-measured a')!.getAttribute('href')).toBe('#flash-run');
    expect(body.querySelector('.faq-measured')!.textContent).toContain(
      'Tiled: 10 floats of memory, yet all 1,296 scores for 36 tokens computed.',
    );
  });

  test('the token picker changes which token the answers follow; without “it”, the last token', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const picker = body.querySelector('select') as HTMLSelectElement;
    expect(picker.value).toBe('6');
    expect(picker.name).toBe('faq-token');
    picker.value = '1';
    picker.dispatchEvent(new Event('change'));
    expect(body.querySelector('table.faq-row-bars caption')!.textContent).toContain('what “animal” draws');
    view.render(snapshot); // a re-render with the same sentence keeps the reader's choice
    expect(picker.value).toBe('1');
    view.render(await snapshotFor({ sentence: 'a cat sat' }));
    expect(picker.value).toBe('2');
    expect(body.querySelector('table.faq-row-bars caption')!.textContent).toContain('what “sat” draws');
  });

  test('a long sentence: the largest weights and the rest; one head; no NaN anywhere', async () => {
    const sentence = Array.from({ length: 40 }, (_, i) => (i === 20 ? 'it' : `w${i}`)).join(' ');
    const snapshot = await snapshotFor({ sentence, heads: 1 });
    const { body, view } = mount();
    view.render(snapshot);
    const table = body.querySelector('table.faq-row-bars')!;
    expect(table.querySelectorAll('tbody tr').length).toBe(BAR_ROW_TOP);
    const row = Array.from(snapshot.pipeline.weights.data.subarray(20 * 40, 21 * 40)).sort((a, b) => b - a);
    expect(body.querySelector('.faq-row-reading')!.textContent).toContain(
      `The other 28 tokens share the remaining ${percent(row.slice(BAR_ROW_TOP).reduce((a, b) => a + b, 0))}`,
    );
    expect(body.querySelector('.faq-heads-reading')!.textContent).toContain('With one head there is one answer');
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
    view.render(await snapshotFor({ dModel: 1, heads: 1 }));
    expect(body.querySelector('.faq-gradient')!.textContent).toContain('scaling changes nothing');
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
  });

  test('beside the article’s example the stretched bars name the dₖ they stand for, √64 = 8', async () => {
    const snapshot = await exampleSnapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    expect(body.querySelector('.faq-spread')!.textContent).toContain('Here dₖ = 4:');
    expect(body.querySelector('.faq-spread')!.textContent).toContain('The bars below use the article’s dₖ = 64.');
    const sharp = body.querySelectorAll('.faq-bars table.bar-chart caption')[1].textContent;
    expect(sharp).toBe('softmax([1, 2, 3] × √64 = 8.00): the spread unscaled dₖ = 64 scores have');
  });

  test('with the trained model the heads answer says so, and suggests no seed', async () => {
    const { body, view } = mount();
    view.render(await trainedSnapshotFor());
    const reading = body.querySelector('.faq-heads-reading')!.textContent!;
    expect(reading).toContain('These are the trained model’s heads in layer 2');
    expect(reading).not.toMatch(/random|seed/);
  });

  test('at dₖ = 1 the advice names only what can change: fewer heads only when there are several', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor({ dModel: 1, heads: 1 }));
    expect(body.querySelector('.faq-gradient')!.textContent).toBe(
      'At dₖ = 1, √dₖ is 1 and scaling changes nothing. Pick a larger d_model to see the difference.',
    );
    view.render(await snapshotFor({ dModel: 2, heads: 2 }));
    expect(body.querySelector('.faq-gradient')!.textContent).toContain('Pick a larger d_model or fewer heads');
  });
});
