// Command-line choices shared by run.ts, the Node process and the bench page.
//   --quick        n in {64, 512} only (a minute instead of several)
//   --n=512,1024   these sequence lengths only
import { allShapes, SEQUENCE_LENGTHS, type Shape } from './data';

export function selectedLengths(args: readonly string[]): number[] {
  const only = args.find((a) => a.startsWith('--n='));
  if (only)
    return only
      .slice(4)
      .split(',')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0);
  if (args.includes('--quick')) return [64, 512];
  return [...SEQUENCE_LENGTHS];
}

export function selectedShapes(args: readonly string[]): Shape[] {
  return allShapes(selectedLengths(args));
}

/** `--key=value` flags as a table; a bare `--key` reads 'true' (the standalone scripts' options). */
export function flagTable(args: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    args.map((a) => {
      const [k, v] = a.replace(/^--/, '').split('=');
      return [k, v ?? 'true'];
    }),
  );
}
