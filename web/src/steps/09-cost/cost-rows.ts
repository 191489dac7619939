// Step 9's numbers: what the (n, n) score matrix costs at each length, for this page's d_model and h,
// from the shapes alone (features/cost/cost-model.ts).
import { attentionMultiplyAdds, FLOAT32_BYTES, scoreEntries } from '../../features/cost/cost-model';
import { bytes, count } from '../../ui/format';

/** Context lengths every reader sees, whatever the sentence: 1k ... 128k tokens. */
export const REFERENCE_LENGTHS = [1024, 2048, 4096, 8192, 16384, 32768, 131072];
/** Depth of the model the "whole model" column imagines. */
export const LAYERS = 32;

export interface CostRow {
  n: number;
  entries: number;
  bytesPerHead: number;
  bytesPerLayer: number;
  bytesModel: number;
  multiplyAdds: number;
}

export function costRow(n: number, dModel: number, heads: number): CostRow {
  const entries = scoreEntries(n);
  return {
    n,
    entries,
    bytesPerHead: FLOAT32_BYTES * entries,
    bytesPerLayer: FLOAT32_BYTES * entries * heads,
    bytesModel: FLOAT32_BYTES * entries * heads * LAYERS,
    multiplyAdds: attentionMultiplyAdds(n, dModel),
  };
}

/** This page's n, 2n, 4n, 8n, then the reference lengths, without repeats, shortest first. */
export function costLengths(n: number): number[] {
  return [...new Set([n, 2 * n, 4 * n, 8 * n, ...REFERENCE_LENGTHS])].sort((a, b) => a - b);
}

export function columns(heads: number): { key: keyof CostRow; header: string; format: (v: number) => string }[] {
  return [
    { key: 'entries', header: 'scores per head (n²)', format: count },
    { key: 'bytesPerHead', header: 'float32 memory, one head (4n² bytes)', format: bytes },
    { key: 'bytesPerLayer', header: `one layer, ${heads} head${heads === 1 ? '' : 's'}`, format: bytes },
    { key: 'bytesModel', header: `${LAYERS} layers of ${heads} head${heads === 1 ? '' : 's'}`, format: bytes },
    { key: 'multiplyAdds', header: 'multiply-adds per layer (2·n²·d_model)', format: count },
  ];
}
