// Step 7's arithmetic on the weights: each row's sum, and the array as NumPy prints it.

/** Largest n whose weights are printed the way NumPy would. */
export const PRINT_MAX_TOKENS = 12;

/** (rows, cols) row sums of one head of a row-major (h, n, n) tensor. */
export function rowSums(data: Float32Array, head: number, n: number): number[] {
  return Array.from({ length: n }, (_, r) => {
    let sum = 0;
    for (let c = 0; c < n; c++) sum += data[(head * n + r) * n + c];
    return sum;
  });
}

/** NumPy's print of a rounded float array: "[[1.   0.  ]\n [0.51 0.49]]". */
export function numpyPrint(data: ArrayLike<number>, offset: number, rows: number, cols: number): string {
  const texts: string[] = [];
  for (let i = 0; i < rows * cols; i++) {
    const rounded = Number(Number(data[offset + i]).toFixed(2));
    let text = String(Object.is(rounded, -0) ? 0 : rounded);
    if (!text.includes('.')) text += '.';
    texts.push(text);
  }
  const intWidth = Math.max(...texts.map((t) => t.indexOf('.')));
  const fracWidth = Math.max(...texts.map((t) => t.length - t.indexOf('.') - 1));
  const cell = (t: string) => t.padStart(intWidth + (t.length - t.indexOf('.')), ' ').padEnd(intWidth + 1 + fracWidth, ' ');
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    const row = texts
      .slice(r * cols, (r + 1) * cols)
      .map(cell)
      .join(' ');
    lines.push(`${r === 0 ? '[[' : ' ['}${row}]${r === rows - 1 ? ']' : ''}`);
  }
  return lines.join('\n');
}
