// The two hands-on settings, `edits` and `mask`, as compact URL text: parsing, validation against the
// current sizes, and canonical encoding. Pure (no DOM, no engine): settings.ts calls the validators at
// its one validation boundary, compute.ts turns the canonical text into engine input, and the unit
// tests (tests/unit/hands-on-settings.test.ts) check the round trips.
//
//   edits=X.3.2:0.5,Wq.1.4:-0.25     row.col counted from 1, values rounded to 3 decimals
//   mask=causal | pad:2 | window:3 | prefix:2 | paint:<base64url of the n × n bits, row by row>

/** Where the reader may edit numbers: the small example, small enough to follow every number. */
export const EDIT_LIMITS = Object.freeze({
  maxTokens: 8,
  maxDModel: 16,
  /** Typed or dragged values are kept within ±maxValue, so no product can overflow float32. */
  maxValue: 100,
  decimals: 3,
  /** Longest `edits` text read (every cell of the largest small example fits in far less). */
  maxChars: 20000,
});

export const EDIT_MATRICES = ['X', 'Wq', 'Wk', 'Wv'] as const;
export type EditMatrix = (typeof EDIT_MATRICES)[number];

/** The engine's name for each editable matrix. */
export const EDIT_MATRIX_KEYS: Readonly<Record<EditMatrix, 'X' | 'W_q' | 'W_k' | 'W_v'>> = Object.freeze({
  X: 'X',
  Wq: 'W_q',
  Wk: 'W_k',
  Wv: 'W_v',
});

/** One edited cell; row and col are 0-based here (1-based in the URL). */
export interface Edit {
  matrix: EditMatrix;
  row: number;
  col: number;
  value: number;
}

export function editsAllowed(tokens: number, dModel: number): boolean {
  return tokens <= EDIT_LIMITS.maxTokens && dModel <= EDIT_LIMITS.maxDModel;
}

/** Rounded to the URL's 3 decimals, never −0. */
export function roundEdit(value: number): number {
  const scale = 10 ** EDIT_LIMITS.decimals;
  const rounded = Math.round(value * scale) / scale;
  return Object.is(rounded, -0) ? 0 : rounded;
}

const NAMES: Record<string, EditMatrix> = { x: 'X', wq: 'Wq', w_q: 'Wq', wk: 'Wk', w_k: 'Wk', wv: 'Wv', w_v: 'Wv' };
const ENTRY = /^([A-Za-z_]+)\.(\d{1,4})\.(\d{1,4}):([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)$/i;

function shortText(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/gu, '');
  return clean.length > 24 ? `${clean.slice(0, 24)}…` : clean;
}

export interface ParsedEdits {
  edits: Edit[];
  /** Entries that could not be read, as typed (shortened). */
  bad: string[];
}

/** Syntax only: "X.3.2:0.5,Wq.1.4:-0.25" -> edits (0-based), later entries for the same cell win. */
export function parseEdits(text: string): ParsedEdits {
  const bad: string[] = [];
  const byCell = new Map<string, Edit>();
  const source = text.length > EDIT_LIMITS.maxChars ? text.slice(0, EDIT_LIMITS.maxChars) : text;
  for (const raw of source.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = ENTRY.exec(entry);
    const matrix = match ? NAMES[match[1].toLowerCase()] : undefined;
    const row = match ? Number(match[2]) : 0;
    const col = match ? Number(match[3]) : 0;
    const value = match ? Number(match[4]) : NaN;
    if (!match || !matrix || row < 1 || col < 1 || !Number.isFinite(value)) {
      bad.push(shortText(entry));
      continue;
    }
    byCell.set(`${matrix}.${row}.${col}`, { matrix, row: row - 1, col: col - 1, value });
  }
  return { edits: [...byCell.values()], bad };
}

const ORDER: Record<EditMatrix, number> = { X: 0, Wq: 1, Wk: 2, Wv: 3 };

/** Canonical text: sorted by matrix, row, column; 1-based; values rounded to 3 decimals. */
export function formatEdits(edits: readonly Edit[]): string {
  return [...edits]
    .sort((a, b) => ORDER[a.matrix] - ORDER[b.matrix] || a.row - b.row || a.col - b.col)
    .map((e) => `${e.matrix}.${e.row + 1}.${e.col + 1}:${roundEdit(e.value)}`)
    .join(',');
}

/** Rows and columns of each editable matrix at these sizes. */
export function editShape(matrix: EditMatrix, tokens: number, dModel: number): { rows: number; cols: number } {
  return matrix === 'X' ? { rows: tokens, cols: dModel } : { rows: dModel, cols: dModel };
}

function listed(items: string[]): string {
  const shown = items
    .slice(0, 3)
    .map((t) => `“${t}”`)
    .join(', ');
  return items.length > 3 ? `${shown} and ${items.length - 3} more` : shown;
}

/**
 * The validation boundary for `edits`: returns canonical text that the engine can use at these sizes,
 * and says in `notices` what was dropped or changed and why.
 */
export function validateEdits(raw: unknown, tokens: number, dModel: number, notices: string[]): string {
  if (raw === null || raw === undefined) return '';
  const text = String(raw).trim();
  if (text === '') return '';
  const { edits, bad } = parseEdits(text);
  if (text.length > EDIT_LIMITS.maxChars) notices.push(`The edited numbers were cut to their first ${EDIT_LIMITS.maxChars} characters.`);
  if (bad.length > 0)
    notices.push(
      `${bad.length === 1 ? 'An edited number' : `${bad.length} edited numbers`} could not be read and ${bad.length === 1 ? 'was' : 'were'} dropped (${listed(bad)}); each should look like X.3.2:0.5 (matrix, row, column, value).`,
    );
  if (edits.length === 0) return '';
  if (!editsAllowed(tokens, dModel)) {
    notices.push(
      `Your ${edits.length === 1 ? 'edited number was' : `${edits.length} edited numbers were`} set aside: editing works on small examples of up to ${EDIT_LIMITS.maxTokens} tokens and d_model ${EDIT_LIMITS.maxDModel}, and this one has ${tokens} token${tokens === 1 ? '' : 's'} and d_model ${dModel}.`,
    );
    return '';
  }
  const outside: string[] = [];
  const clamped: string[] = [];
  const kept: Edit[] = [];
  for (const edit of edits) {
    const { rows, cols } = editShape(edit.matrix, tokens, dModel);
    if (edit.row >= rows || edit.col >= cols) {
      outside.push(`${edit.matrix}.${edit.row + 1}.${edit.col + 1}`);
      continue;
    }
    let value = roundEdit(edit.value);
    if (Math.abs(value) > EDIT_LIMITS.maxValue) {
      value = Math.sign(value) * EDIT_LIMITS.maxValue;
      clamped.push(`${edit.matrix}.${edit.row + 1}.${edit.col + 1}`);
    }
    kept.push({ ...edit, value });
  }
  if (outside.length > 0)
    notices.push(
      `${outside.length === 1 ? 'An edited number lies' : `${outside.length} edited numbers lie`} outside the matrices at these sizes (${listed(outside)}: X is ${tokens} × ${dModel}, each W is ${dModel} × ${dModel}) and ${outside.length === 1 ? 'was' : 'were'} dropped.`,
    );
  if (clamped.length > 0)
    notices.push(
      `Edited numbers are kept between −${EDIT_LIMITS.maxValue} and ${EDIT_LIMITS.maxValue}; ${listed(clamped)} ${clamped.length === 1 ? 'was' : 'were'} brought back into that range.`,
    );
  return formatEdits(kept);
}

/** The edits text with one cell set (value rounded) or, with value null, removed. */
export function withEdit(text: string, matrix: EditMatrix, row: number, col: number, value: number | null): string {
  const edits = parseEdits(text).edits.filter((e) => !(e.matrix === matrix && e.row === row && e.col === col));
  if (value !== null && Number.isFinite(value)) edits.push({ matrix, row, col, value: roundEdit(value) });
  return formatEdits(edits);
}

// ---------------------------------------------------------------------------------------------------
// Masks

export type MaskKind = 'none' | 'causal' | 'pad' | 'window' | 'prefix' | 'paint';

export const MASK_PRESETS: readonly { kind: Exclude<MaskKind, 'paint'>; label: string; param?: string }[] = [
  { kind: 'none', label: 'No mask' },
  { kind: 'causal', label: 'Causal' },
  { kind: 'pad', label: 'Padding', param: 'padded tokens at the end, k' },
  { kind: 'window', label: 'Sliding window', param: 'window width, w' },
  { kind: 'prefix', label: 'Prefix-LM', param: 'prefix length, p' },
];

export interface MaskSpec {
  kind: MaskKind;
  /** k, w or p for pad, window and prefix. */
  param: number;
  /** (n × n) 0/1 entries for paint. */
  bits: Uint8Array | null;
}

/** A custom mask (anything but none and causal) replaces the causal checkbox. */
export function isCustomMask(mask: string): boolean {
  return mask !== 'none' && mask !== 'causal' && mask !== '';
}

/** 1 = query row i may look at key column j, for a preset at n tokens. */
export function presetAllows(kind: Exclude<MaskKind, 'paint'>, param: number, n: number, i: number, j: number): boolean {
  switch (kind) {
    case 'none':
      return true;
    case 'causal':
      return j <= i;
    case 'pad':
      return j < n - param;
    case 'window':
      return j <= i && i - j < param;
    case 'prefix':
      return j < param || j <= i;
  }
}

/** The (n × n) 0/1 mask of a canonical mask text; null for none (and for causal, which the engine's flag does). */
export function maskBits(mask: string, n: number): Uint8Array | null {
  const spec = parseMask(mask, n);
  if (!spec || spec.kind === 'none') return null;
  if (spec.kind === 'paint') return spec.bits;
  const bits = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) bits[i * n + j] = presetAllows(spec.kind, spec.param, n, i, j) ? 1 : 0;
  return bits;
}

/** Same as maskBits, but causal too, and all-ones for none: what the reader sees painted. */
export function maskBitsOrFull(mask: string, causal: boolean, n: number): Uint8Array {
  const custom = isCustomMask(mask) ? maskBits(mask, n) : null;
  if (custom) return custom;
  const bits = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) bits[i * n + j] = !causal && mask !== 'causal' ? 1 : j <= i ? 1 : 0;
  return bits;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function toBase64Url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = i + 2 < bytes.length ? 4 : i + 1 < bytes.length ? 3 : 2;
    for (let k = 0; k < chars; k++) out += B64[(chunk >> (18 - 6 * k)) & 63];
  }
  return out;
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 4) {
    const group = text.slice(i, i + 4);
    let chunk = 0;
    for (let k = 0; k < 4; k++) chunk = (chunk << 6) | (k < group.length ? B64.indexOf(group[k]) : 0);
    const count = group.length - 1;
    for (let k = 0; k < count; k++) bytes.push((chunk >> (16 - 8 * k)) & 255);
  }
  return new Uint8Array(bytes);
}

/** "paint:" + base64url of the bits packed row by row, first cell in the highest bit. */
export function encodePaint(bits: Uint8Array): string {
  const bytes = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => {
    if (bit) bytes[i >> 3] |= 0x80 >> (i & 7);
  });
  return `paint:${toBase64Url(bytes)}`;
}

/** The n × n bits of a paint code, or null when it does not hold exactly n × n cells. */
export function decodePaint(code: string, n: number): Uint8Array | null {
  const bytes = fromBase64Url(code);
  const cells = n * n;
  if (!bytes || bytes.length !== Math.ceil(cells / 8) || toBase64Url(bytes) !== code) return null;
  // Canonical only: the spare bits of the last byte are 0, and re-encoding gives the same text.
  const spare = bytes.length * 8 - cells;
  if (spare > 0 && (bytes[bytes.length - 1] & ((1 << spare) - 1)) !== 0) return null;
  const bits = new Uint8Array(cells);
  for (let i = 0; i < cells; i++) bits[i] = (bytes[i >> 3] >> (7 - (i & 7))) & 1;
  return bits;
}

/** Syntax and size: the mask's meaning at n tokens, or null when it cannot be read. */
export function parseMask(mask: string, n: number): MaskSpec | null {
  const text = mask.trim();
  const lower = text.toLowerCase();
  if (lower === '' || lower === 'none') return { kind: 'none', param: 0, bits: null };
  if (lower === 'causal') return { kind: 'causal', param: 0, bits: null };
  const preset = /^(pad|window|prefix):(\d{1,6})$/.exec(lower);
  if (preset) return { kind: preset[1] as MaskKind, param: Number(preset[2]), bits: null };
  if (lower.startsWith('paint:')) {
    const bits = decodePaint(text.slice(6), n);
    return bits ? { kind: 'paint', param: 0, bits } : null;
  }
  return null;
}

const KIND_WORDS: Record<string, string> = { pad: 'The padding length k', window: 'The window width w', prefix: 'The prefix length p' };

/**
 * The validation boundary for `mask` at n tokens: canonical text ("none", "causal", "pad:2", …,
 * "paint:…"); anything unreadable becomes "none" and a preset's number is brought into 1..n, with a notice.
 */
export function validateMask(raw: unknown, n: number, notices: string[]): string {
  if (raw === null || raw === undefined) return 'none';
  const text = String(raw);
  const spec = parseMask(text, n);
  if (!spec) {
    const paint = text.trim().toLowerCase().startsWith('paint:');
    notices.push(
      paint
        ? `The painted mask does not fit this sentence: ${n} token${n === 1 ? '' : 's'} need ${n} × ${n} = ${n * n} cells (${Math.ceil((n * n) / 8)} bytes of base64url), so no mask is used.`
        : `mask must be none, causal, pad:k, window:w, prefix:p or paint:…; “${shortText(text)}” was not understood, so no mask is used.`,
    );
    return 'none';
  }
  if (spec.kind === 'none' || spec.kind === 'causal') return spec.kind;
  if (spec.kind === 'paint') return encodePaint(spec.bits!);
  let param = spec.param;
  if (param < 1 || param > n) {
    const fixed = Math.max(1, Math.min(n, param));
    notices.push(`${KIND_WORDS[spec.kind]} must be from 1 to ${n} (the number of tokens); ${param} was changed to ${fixed}.`);
    param = fixed;
  }
  return `${spec.kind}:${param}`;
}

/** A mask in words, for the page: "a sliding window of 3 tokens". */
export function describeMask(mask: string, causal: boolean): string {
  const spec = parseMask(mask, 0) ?? parseMask('none', 0)!;
  const kind = mask.startsWith('paint:') ? 'paint' : spec.kind;
  switch (kind) {
    case 'pad':
      return `padding of the last ${spec.param} token${spec.param === 1 ? '' : 's'} (no token may look at ${spec.param === 1 ? 'it' : 'them'})`;
    case 'window':
      return `a sliding window of ${spec.param} (each token sees ${spec.param === 1 ? 'only itself' : `itself and the ${spec.param - 1} token${spec.param === 2 ? '' : 's'} before it`})`;
    case 'prefix':
      return `a prefix-LM mask with a prefix of ${spec.param} (the first ${spec.param === 1 ? 'token sees itself' : `${spec.param} tokens see each other`}; the rest is causal)`;
    case 'paint':
      return 'your painted mask';
    default:
      return causal || kind === 'causal' ? 'the causal mask' : 'no mask';
  }
}
