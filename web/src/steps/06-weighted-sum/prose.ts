// Step 6's words: the fixed text around the figures, and the sentences made from the snapshot.
import { el } from '../../ui/dom';
import { fmt, percent, quoted } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import { link, subheading } from '../shared/prose';

export function intro(): HTMLElement {
  return el(
    'p',
    {},
    'The weights say how much to take from each token, the values what it hands over: each output row blends the value rows in its weights’ proportions.',
  );
}

export function codeHeading(): HTMLElement[] {
  return subheading('The whole mechanism in code', 'All of it fits in one NumPy function, for any number of heads and any mask:');
}

/** Which line of the NumPy function is which step. */
export function codeLines(): HTMLElement {
  return el(
    'p',
    {},
    'Lines 3, 9, 10–11, 12–13 and 14–18 are ',
    link('#qkv', 'steps 2'),
    ', ',
    link('#scores', '3'),
    ', ',
    link('#scale', '4'),
    ', ',
    link('#causal', '7'),
    ' and ',
    link('#softmax', '5'),
    '; line 19 is this step; lines 20–21 are ',
    link('#multi-head', 'step 8'),
    '.',
  );
}

export function reproHeading(): HTMLElement[] {
  return subheading(
    'Reproduce it in NumPy',
    'The button copies this function with this page’s matrices, mask and scaling: a script that prints the numbers shown here.',
  );
}

export function copiedText(lines: number): string {
  return `Copied: ${lines} lines of Python. Save them as attention.py and run python3 attention.py (it needs NumPy).`;
}

export const CLIPBOARD_BLOCKED =
  'The clipboard is blocked here, so the script is open and selected below: press Ctrl+C (⌘C on a Mac) to copy it.';

export function scriptTooLarge(maxDModel: number, dModel: number): string {
  return `The script writes out all four d_model × d_model matrices, so it is offered up to d_model ${maxDModel}; this page has ${dModel}.`;
}

export function cellTitle({ tokens }: Snapshot, row: number, col: number): string {
  return `Output row ${row + 1} (${quoted(tokens[row])}), dimension ${col + 1}: weights of row ${row + 1} times column ${col + 1} of V`;
}

/** What the selected output cell is: an average of column `col` of V, with its largest share named. */
export function cellReading(
  { pipeline: p, tokens }: Snapshot,
  row: number,
  col: number,
  weightRow: ArrayLike<number>,
  valueColumn: readonly number[],
  value: number,
): string {
  if (p.fullyMaskedRows[row]) return `Every key is blocked for row ${row + 1}, so all its weights are 0 and its output is 0.`;
  let total = 0;
  let best = 0;
  for (let t = 0; t < p.n; t++) {
    total += weightRow[t];
    if (weightRow[t] > weightRow[best]) best = t;
  }
  const lo = Math.min(...valueColumn);
  const hi = Math.max(...valueColumn);
  return (
    `Row ${row + 1}’s weights are never negative and add up to ${fmt(total)}, so ${fmt(value)} averages column ${col + 1} of V, ` +
    `between its smallest value (${fmt(lo)}) and its largest (${fmt(hi)}); the biggest share, ${percent(weightRow[best])}, is of ${quoted(tokens[best])}’s value, ${fmt(valueColumn[best])}.`
  );
}
