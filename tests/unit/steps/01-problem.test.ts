// @vitest-environment happy-dom
// The problem step on real snapshots: the sentence as chips, and the live mixture of the followed
// token ("it", else the last one) read straight from the shown head's attention weights.
import { describe, expect, test } from 'vitest';
import { problemStep } from '../../../web/src/steps/01-problem/step';
import { percent } from '../../../web/src/ui/format';
import type { Snapshot } from '../../../web/src/snapshot';
import { ARTICLE_TOKEN_LABELS, snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(problemStep);

function weightsRow(snapshot: Snapshot, row: number): number[] {
  const { n, weights } = snapshot.pipeline;
  const h = snapshot.settings.head;
  return Array.from(weights.data.subarray((h * n + row) * n, (h * n + row + 1) * n));
}

const barRows = (body: HTMLElement) => [...body.querySelectorAll('table.bar-chart tbody tr')] as HTMLElement[];
const barValues = (body: HTMLElement) => barRows(body).map((row) => row.querySelector('.bar-value')!.textContent);

describe('problem step', () => {
  test('the sentence becomes one chip per token, and “it” is the token followed', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const chips = [...body.querySelectorAll('.problem-chip')] as HTMLElement[];
    expect(chips.map((c) => c.textContent)).toEqual(snapshot.tokens);
    const checked = chips.filter((c) => c.getAttribute('aria-checked') === 'true');
    expect(checked.map((c) => c.textContent)).toEqual(['it']);
    expect(checked[0].tabIndex).toBe(0);
    expect(chips.filter((c) => c.tabIndex === 0)).toHaveLength(1);
    expect(body.querySelector('.problem-question')!.textContent).toBe('What does “it” (token 7) refer to?');
  });

  test('the bars are the weights of “it” in the shown head, and the reading names the largest', async () => {
    for (const head of [0, 1]) {
      const snapshot = await snapshotFor({ head });
      const { body, view } = mount();
      view.render(snapshot);
      const row = weightsRow(snapshot, 6);
      expect(barValues(body)).toEqual(row.map((w) => percent(w)));
      expect(barRows(body).map((r) => r.querySelector('th')!.textContent)).toEqual(
        ARTICLE_TOKEN_LABELS.map((label) => (label === 'it' ? 'it (itself)' : label)),
      );
      const top = row.indexOf(Math.max(...row));
      const emphasised = body.querySelectorAll('table.bar-chart tr.emphasis');
      expect(emphasised).toHaveLength(1);
      expect(emphasised[0]).toBe(barRows(body)[top]);
      const reading = body.querySelector('.reading')!.textContent!;
      expect(reading).toContain(`draws most from “${snapshot.tokens[top]}”`);
      expect(reading).toContain(`${percent(row[top])} of its mixture`);
      expect(body.querySelector('table.bar-chart caption')!.textContent).toContain(`head ${head + 1} of 2`);
      // The bars' lengths are the weights relative to the largest.
      const fill = barRows(body)[top].querySelector('.bar-fill') as HTMLElement;
      expect(fill.style.getPropertyValue('--w')).toBe('1.0000');
    }
  });

  test('choosing another chip (click or arrow keys) shows that token’s mixture', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    (body.querySelectorAll('.problem-chip')[1] as HTMLElement).click();
    expect(barValues(body)).toEqual(weightsRow(snapshot, 1).map((w) => percent(w)));
    expect(body.querySelector('.problem-question')!.textContent).toContain('“animal” (token 2)');
    const chosen = body.querySelector('.problem-chip[aria-checked="true"]') as HTMLElement;
    chosen.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    expect(body.querySelector('.problem-chip[aria-checked="true"]')!.textContent).toBe('crossed');
    expect(barValues(body)).toEqual(weightsRow(snapshot, 2).map((w) => percent(w)));
    // A re-render with the same sentence keeps the reader's choice.
    view.render(snapshot);
    expect(body.querySelector('.problem-chip[aria-checked="true"]')!.textContent).toBe('crossed');
  });

  test('without an “it” the last token is followed; masked tokens say so', async () => {
    const snapshot = await snapshotFor({ sentence: 'a b c', causal: true });
    const { body, view } = mount();
    view.render(snapshot);
    expect(body.querySelector('.problem-chip[aria-checked="true"]')!.textContent).toBe('c');
    expect(barValues(body)).toEqual(weightsRow(snapshot, 2).map((w) => percent(w)));
    (body.querySelectorAll('.problem-chip')[0] as HTMLElement).click();
    // Token 1 under a causal mask sees only itself.
    expect(barValues(body)).toEqual(['100%', 'masked', 'masked']);
    expect(barRows(body).filter((r) => r.classList.contains('muted'))).toHaveLength(2);
  });

  test('a long sentence lists the ten largest shares and sums up the rest', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`);
    const snapshot = await snapshotFor({ sentence: words.join(' ') });
    const { body, view } = mount();
    view.render(snapshot);
    const row = weightsRow(snapshot, 29);
    const sorted = [...row].sort((a, b) => b - a);
    const values = barValues(body);
    expect(values).toHaveLength(11);
    expect(values.slice(0, 10)).toEqual(sorted.slice(0, 10).map((w) => percent(w)));
    expect(values[10]).toBe(percent(sorted.slice(10).reduce((a, b) => a + b, 0)));
    expect(barRows(body)[10].querySelector('th')!.textContent).toBe('the other 20 tokens together');
    expect(body.textContent).not.toMatch(/NaN|undefined/);
  });

  test('the opening follows the sentence: the article’s answer only for the article’s sentence', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor());
    const opening = () => body.querySelector('.problem-opening')!.textContent!;
    expect(opening()).toContain('Roads do not get tired, so “it” is the animal.');
    view.render(await snapshotFor({ sentence: 'the cat sat on the mat' }));
    expect(opening()).toBe(
      'Take the sentence “the cat sat on the mat”. A model reading each token alone could not tell how “mat” relates to the others: each token starts as the same vector wherever it stands.',
    );
    expect(body.textContent).not.toContain('animal');
  });
});
