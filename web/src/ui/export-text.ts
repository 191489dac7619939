// Taking a matrix home as text: CSV, or a NumPy array literal with the float32 values written out in
// full, so a reader's own Python reproduces the page's numbers bit for bit. Also the file names the
// saved files get.
import type { ColourScale } from './palette';

/** Shortest decimal text that reads back as the same float32 (at most 9 significant digits). */
export function f32(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  const target = Math.fround(value);
  if (target === 0) return '0.0';
  for (let digits = 1; digits <= 9; digits++) {
    const text = target.toPrecision(digits);
    if (Math.fround(Number(text)) === target) return normalise(text);
  }
  return normalise(target.toPrecision(9));
}

/** "1.50" -> "1.5", "2" -> "2.0", "1.2e-7" stays: every number reads as a float in Python. */
function normalise(text: string): string {
  const [mantissa, exponent] = text.toLowerCase().split('e');
  let m = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '.0') : `${mantissa}.0`;
  if (m === '-0.0') m = '0.0';
  if (exponent === undefined) return m;
  return `${m}e${Number(exponent) < 0 ? '-' : '+'}${String(Math.abs(Number(exponent))).padStart(2, '0')}`;
}

/** A NumPy literal of one float: -np.inf for a blocked score. */
function pyNumber(value: number): string {
  if (value === -Infinity) return '-np.inf';
  if (value === Infinity) return 'np.inf';
  if (Number.isNaN(value)) return 'np.nan';
  return f32(value);
}

/** What a table export needs: the shown matrix, its labels, and each cell's shown text and colour. */
export interface TableData {
  caption: string;
  corner: string;
  rows: number;
  cols: number;
  rowLabels: string[];
  colLabels: string[];
  /** Row-major numbers; −Infinity where a blocked score shows −∞. */
  values: number[];
  /** Row-major text as shown in the cells. */
  texts: string[];
  blocked: boolean[];
  /** Row-major colour positions (ui/palette.ts colourPosition). */
  positions: number[];
  scale: ColourScale;
  showNumbers: boolean;
  totals?: { label: string; texts: string[] };
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Header row of column labels, then one row per matrix row with its label first. */
export function tableCsv(t: TableData): string {
  const lines = [[t.corner, ...t.colLabels].map(csvField).join(',')];
  for (let r = 0; r < t.rows; r++) {
    const cells = Array.from({ length: t.cols }, (_, c) => f32(t.values[r * t.cols + c]));
    lines.push([csvField(t.rowLabels[r] ?? String(r + 1)), ...cells].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** A comment naming the matrix and its rows and columns, then np.array([...]). */
export function tableNumpy(t: TableData): string {
  const comment = (text: string) => `# ${text.replace(/[\r\n]+/g, ' ')}`;
  const rows = Array.from(
    { length: t.rows },
    (_, r) => `    [${Array.from({ length: t.cols }, (_, c) => pyNumber(t.values[r * t.cols + c])).join(', ')}],`,
  );
  return (
    [
      comment(t.caption),
      comment(`rows: ${t.rowLabels.join(', ')}`),
      comment(`columns: ${t.colLabels.join(', ')}`),
      'np.array([',
      ...rows,
      '])',
    ].join('\n') + '\n'
  );
}

/** A file name from a caption: "weights = softmax(…), head 1" -> "weights-softmax-head-1". */
export function fileStem(caption: string): string {
  const stem = caption
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
  return stem.slice(0, 60).replace(/-+$/, '') || 'figure';
}
