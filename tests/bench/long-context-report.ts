// The long-context suite's tables (long-context.ts): ours against each onnxruntime-web participant
// at the compared n, with issue 40's targets (each of ours ≤ 0.8× theirs at n = 4,096; window and
// linear attention with a slope ≤ 1.15 from 4,096 to 65,536), and ours alone at every n with the
// fitted slopes.
import { D_K } from './data';
import type { KernelId, LongContextResult } from './long-context';

const ms = (x: number | undefined) =>
  x === undefined || !Number.isFinite(x) ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(3);

/** Ours at `compareN` over each peer's time there, as "ours ÷ theirs" (below 1: ours is faster). */
export function comparisons(result: LongContextResult) {
  return result.kernels.flatMap(({ kernel, cases }) => {
    const at = cases.find((c) => c.shape.n === result.compareN);
    const ours = at?.peers.find((p) => p.kind === 'ours');
    return (at?.peers ?? [])
      .filter((p) => p.kind === 'peer')
      .map((p) => ({
        kernel,
        peer: p,
        oursMs: ours?.cpuMedianMs,
        ratio: ours?.cpuMedianMs !== undefined && p.cpuMedianMs !== undefined ? ours.cpuMedianMs / p.cpuMedianMs : NaN,
      }));
  });
}

export const LONG_CONTEXT_TARGETS = { ratio: 0.8, slope: 1.15, slopeKernels: ['window', 'linear'] as KernelId[] };

export function longContextText(result: LongContextResult): string {
  const lines = [
    `### Long-context kernels against onnxruntime-web ${result.ort} (Node, wasm, 1 thread): median CPU ms, d_k = ${D_K}, one head unless stated`,
    '',
  ];
  if (result.unavailable) lines.push(`onnxruntime-web unavailable: ${result.unavailable}`, '');
  lines.push(
    `| kernel at n = ${result.compareN.toLocaleString('en')} | ours | theirs | ours ÷ theirs | max rel err | target ≤ ${LONG_CONTEXT_TARGETS.ratio}× |`,
  );
  lines.push('| --- | --- | --- | --- | --- | --- |');
  for (const c of comparisons(result)) {
    const status = c.peer.status === 'ok' ? ms(c.peer.cpuMedianMs) : `${c.peer.status}: ${c.peer.reason ?? ''}`;
    const verdict = Number.isFinite(c.ratio) ? (c.ratio <= LONG_CONTEXT_TARGETS.ratio ? 'met' : 'not met') : '—';
    lines.push(
      `| ${c.kernel.label} | ${ms(c.oursMs)} | ${c.peer.label}: ${status} | ${Number.isFinite(c.ratio) ? `${c.ratio.toFixed(2)}×` : '—'} | ${c.peer.maxRelError?.toExponential(1) ?? '—'} | ${verdict} |`,
    );
  }
  lines.push('', `| ours alone | ${result.slopeN.map((n) => `ms at ${n.toLocaleString('en')}`).join(' | ')} | slope |`);
  lines.push(`| --- | ${result.slopeN.map(() => '---').join(' | ')} | --- |`);
  for (const { kernel, cases, slope } of result.kernels) {
    const at = (n: number) => cases.find((c) => c.shape.n === n)?.peers.find((p) => p.kind === 'ours')?.cpuMedianMs;
    const target = LONG_CONTEXT_TARGETS.slopeKernels.includes(kernel.id)
      ? ` (target ≤ ${LONG_CONTEXT_TARGETS.slope}: ${slope <= LONG_CONTEXT_TARGETS.slope ? 'met' : 'not met'})`
      : '';
    lines.push(`| ${kernel.label} | ${result.slopeN.map((n) => ms(at(n))).join(' | ')} | ${slope.toFixed(2)}${target} |`);
  }
  return lines.join('\n');
}
