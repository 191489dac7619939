// Step 2's words: the fixed introduction, and the sentences made from the snapshot the figures drew.
import { el } from '../../ui/dom';
import { fmt, quoted } from '../../ui/format';
import { EDIT_LIMITS, EDIT_MATRIX_KEYS, type Edit } from '../../features/hands-on/hands-on-settings';
import type { PipelineSnapshot } from '../../engine/types';
import type { Snapshot } from '../../snapshot';
import type { DimWindow } from './dim-window';

const ROLES: { name: string; symbol: string; text: string }[] = [
  { name: 'query', symbol: 'q', text: 'what this token is looking for.' },
  { name: 'key', symbol: 'k', text: 'what it offers, for queries to match against.' },
  { name: 'value', symbol: 'v', text: 'what it hands over once picked.' },
];

export function intro(): HTMLElement[] {
  return [
    el('p', {}, 'Each token’s embedding, d_model numbers, is a row of X. Attention gives every token three vectors:'),
    el('dl', { class: 'qkv-roles' }, ...ROLES.flatMap((role) => [el('dt', {}, `${role.name} (${role.symbol})`), el('dd', {}, role.text)])),
    el(
      'p',
      {},
      'Kept apart, they let a token match one query (its key) yet pass on something else (its value). Each is X times a learned matrix.',
    ),
  ];
}

/** The shapes of the tables below, for the shown head, and what a window leaves out. */
export function sizesText({ pipeline: p, settings }: Snapshot, { rowCount, colCount, windowed }: DimWindow): string {
  const d = p.dModel;
  // One head, as the article shows it before it explains heads (step 8): W_q is (d_model, dₖ).
  const sizeText =
    p.heads > 1
      ? `Here d_model = ${d}, and these tables show one head with dₖ = ${p.dK} (head ${settings.head + 1} of the ${p.heads} that step 8 explains): ` +
        `its W_q, W_k and W_v are (${d}, ${p.dK}), so its Q, K and V are (n, dₖ) = (${p.n}, ${p.dK}).`
      : `Here d_model = ${d} and dₖ = ${p.dK}: W_q, W_k and W_v are (${d}, ${p.dK}), so Q, K and V are (n, dₖ) = (${p.n}, ${p.dK}).`;
  return (
    sizeText +
    (windowed
      ? ` At this size the matrices are too large to print, so the tables show the first ${rowCount} rows and ${colCount} columns.`
      : '')
  );
}

export function editHelp(): HTMLElement {
  return el(
    'div',
    { class: 'qkv-edit-help' },
    el(
      'p',
      {},
      'Every number of X and the W matrices is yours: drag it sideways, or select it and press ',
      el('kbd', {}, 'Enter'),
      ' to type or ',
      el('kbd', {}, '↑'),
      ' ',
      el('kbd', {}, '↓'),
      ' to nudge (',
      el('kbd', {}, 'Escape'),
      ' undoes). What it changed gets a dashed outline everywhere.',
    ),
  );
}

/** Why this example cannot be edited, and how to get one that can. */
export function tooLargeToEdit({ pipeline: p }: Snapshot): string {
  return (
    `Editing works on small examples, where you can follow every number: up to ${EDIT_LIMITS.maxTokens} tokens and d_model up to ${EDIT_LIMITS.maxDModel}. ` +
    `This one has ${p.n} token${p.n === 1 ? '' : 's'} and d_model ${p.dModel}. Shorten the sentence or pick a smaller d_model in the settings bar, or:`
  );
}

export function noEdits({ settings }: Snapshot): string {
  return settings.weights === 'random' ? 'No edits yet: every number is the seed’s.' : 'No edits yet: every number is as it was given.';
}

/** How many numbers were edited, and how many of the shown head's weights and of the output moved. */
export function editedText(edits: number, p: PipelineSnapshot, moved: { weights: number; output: number }): string {
  return (
    `You changed ${edits} number${edits === 1 ? '' : 's'}. ` +
    `Of this head’s ${p.n * p.n} attention weights, ${moved.weights} moved; of the ${p.n * p.dModel} numbers of the layer’s output, ${moved.output} did.`
  );
}

/** "W_q[2, 3]: 0.100 → 0.500", from the number it replaced. */
export function editLine(e: Edit, seeded: PipelineSnapshot, tokens: readonly string[]): string {
  const M = seeded[EDIT_MATRIX_KEYS[e.matrix]];
  const where =
    e.matrix === 'X'
      ? `X[${e.row + 1}, ${e.col + 1}] (${quoted(tokens[e.row])})`
      : `${EDIT_MATRIX_KEYS[e.matrix]}[${e.row + 1}, ${e.col + 1}]`;
  return `${where}: ${fmt(M.data[e.row * M.cols + e.col], 3)} → ${fmt(e.value, 3)}`;
}

export function cellTitle({ tokens }: Snapshot, row: number, shownCol: number): string {
  return `Cell (${row + 1}, ${shownCol + 1}) of Q: row ${row + 1} of X (${quoted(tokens[row])}) times column ${shownCol + 1} of W_q`;
}
