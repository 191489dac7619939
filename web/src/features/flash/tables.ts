// The step-through's two plain tables: the map of tiles (done, current, skipped, to do) and the running
// numbers of the rows on chip after the current tile (m before and after, the rescale factor, l).
import type { FlashTrace, FlashTraceStep } from '../../engine/types';
import { columnHeads } from '../../ui/data-table';
import { el, showChildren } from '../../ui/dom';
import { fmt } from '../../ui/format';

/** Fills `tileMap` with one cell per (query block, key block) tile, marked by where `position` stands. */
export function drawTileMap(tileMap: HTMLTableElement, trace: FlashTrace, position: number): void {
  const stateOf = (qb: number, kb: number) => {
    const index = qb * trace.keyBlocks + kb;
    if (index === position) return 'current';
    if (trace.steps[index].skipped) return 'skipped';
    return index < position ? 'done' : 'pending';
  };
  const WORDS: Record<string, [string, string]> = {
    current: ['●', 'now'],
    done: ['✓', 'done'],
    skipped: ['⨯', 'skipped'],
    pending: ['', 'to do'],
  };
  const blockRange = (blockIndex: number, size: number, limit: number) => {
    const start = blockIndex * size;
    const end = Math.min(limit, start + size);
    return end - start === 1 ? `${start + 1}` : `${start + 1}–${end}`;
  };
  showChildren(
    tileMap,
    el('caption', {}, `${trace.queryBlocks} × ${trace.keyBlocks} tiles of ${trace.blockQ} × ${trace.blockK}`),
    columnHeads([
      { content: 'queries ↓ keys →', className: 'corner' },
      ...Array.from({ length: trace.keyBlocks }, (_, kb) => blockRange(kb, trace.blockK, trace.nK)),
    ]),
    el(
      'tbody',
      {},
      ...Array.from({ length: trace.queryBlocks }, (_, qb) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, blockRange(qb, trace.blockQ, trace.nQ)),
          ...Array.from({ length: trace.keyBlocks }, (_, kb) => {
            const state = stateOf(qb, kb);
            const cellState = state === 'current' && trace.steps[qb * trace.keyBlocks + kb].skipped ? 'current skipped' : state;
            return el(
              'td',
              { class: `flash-tile-cell ${cellState}`, 'data-state': state },
              el('span', { 'aria-hidden': 'true' }, WORDS[state][0]),
              el('span', { class: 'visually-hidden' }, WORDS[state][1]),
            );
          }),
        ),
      ),
    ),
  );
}

/** Fills `stateTable` with the running numbers of `step`'s rows, `before` being their state before it. */
export function drawRunningState(
  stateTable: HTMLTableElement,
  step: FlashTraceStep,
  before: { m: Float32Array; l: Float32Array },
  rescaled: ReadonlySet<number>,
  rowLabels: readonly string[],
  qRange: string,
): void {
  const rows = step.queryEnd - step.queryStart;
  const cols = step.keyEnd - step.keyStart;
  showChildren(
    stateTable,
    el('caption', {}, `Running numbers of ${qRange}, after this tile`),
    columnHeads(['row', 'm before', 'tile max', 'm after', 'rescale exp(m_old − m_new)', 'l after']),
    el(
      'tbody',
      {},
      ...Array.from({ length: rows }, (_, r) => {
        let tileMax = -Infinity;
        for (let c = 0; c < cols; c++) tileMax = Math.max(tileMax, step.scores.data[r * cols + c]);
        const grew = rescaled.has(r);
        const first = !Number.isFinite(before.m[r]) && Number.isFinite(step.m[r]);
        const factor = grew
          ? `exp(${fmt(before.m[r])} − ${fmt(step.m[r])}) = ${fmt(step.rescale[r], 3)}`
          : step.skipped
            ? '— (skipped)'
            : first
              ? '— (first keys)'
              : '1 (max unchanged)';
        return el(
          'tr',
          { class: grew ? 'flash-rescaled' : null, 'data-row': step.queryStart + r },
          el('th', { scope: 'row' }, rowLabels[r]),
          el('td', {}, fmt(before.m[r])),
          el('td', {}, step.skipped ? '—' : fmt(tileMax)),
          el('td', {}, fmt(step.m[r])),
          el('td', { class: 'flash-factor', 'data-rescale': step.rescale[r] }, factor),
          el('td', {}, fmt(step.l[r], 3)),
        );
      }),
    ),
  );
}
