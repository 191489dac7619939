// Step 9's words: the introduction, the sentences made from the cost rows, and the FlashAttention aside
// (its links filled by the step where the sections they point at are on the page).
import { el } from '../../ui/dom';
import { bytes, count } from '../../ui/format';
import { ratioLabel } from '../../features/cost/cost-model';
import type { CostRow } from './cost-rows';

export function intro(): HTMLElement {
  return el(
    'p',
    {},
    'Step 3’s score table has a row and a column per token: double the sentence, four times the numbers. Counted for this page’s d_model and heads, up to 128k tokens (1k = 1,024).',
  );
}

/** This page's own matrix: entries per head and for all heads, and its float32 bytes. */
export function matrixText(here: CostRow, heads: number): string {
  const n = here.n;
  return (
    `${n} token${n === 1 ? '' : 's'}: ${count(here.entries)} scores per head, ${count(here.entries * heads)} for all ${heads} head${heads === 1 ? '' : 's'}, ` +
    `${bytes(here.bytesPerLayer)} as float32.`
  );
}

/** "2k -> 8k is 16x", checked on the rows, and a single head's matrix at 128k tokens. */
export function ratiosText(k2: CostRow, k8: CostRow, k128: CostRow): string {
  return (
    `From 2k to 8k tokens the context grows 4 times, and every column grows ${ratioLabel(k8.entries / k2.entries).slice(1)} times: ` +
    `${count(k2.entries)} → ${count(k8.entries)} scores per head, ${bytes(k2.bytesPerLayer)} → ${bytes(k8.bytesPerLayer)} per layer. ` +
    `At 128k tokens a single head’s matrix alone is ${bytes(k128.bytesPerHead)}.`
  );
}

/** The aside pointing on to FlashAttention and the long-context techniques; the spans take links. */
export function flashAside(techniques: HTMLElement, flash: HTMLElement, run: HTMLElement): HTMLElement {
  return el(
    'aside',
    { class: 'cost-flash', 'aria-labelledby': 'cost-flash-title' },
    el('h3', { id: 'cost-flash-title' }, 'FlashAttention: same answer, no n × n table'),
    el(
      'p',
      {},
      techniques,
      ' avoid that table; ',
      flash,
      ' computes the same output in tiles: memory stops growing like n², the multiply-adds do not.',
      run,
    ),
  );
}
