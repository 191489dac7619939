// @vitest-environment happy-dom
// The KV cache part of the long-context step on real snapshots: the engine's cache scores h·t cells for
// token t and ends where recomputing everything ends; fewer KV heads shrink the cache and move the
// output (by exactly 0 at multi-head); public models' sizes are 2 · layers · kv heads · d_k · 2 bytes;
// the stepper, the KV-heads control and the table print the snapshot's numbers.
import { describe, expect, test } from 'vitest';
import { kvHeadChoices, PUBLIC_MODELS } from '../../web/src/features/long-context/kv-cache';
import { kvHeadsLabel, recomputeScores } from '../../web/src/features/long-context/kv-figure';
import { longContextStep } from '../../web/src/features/long-context/step';
import { bytes, count, fmt } from '../../web/src/ui/format';
import type { Settings } from '../../web/src/settings';
import { snapshotFor, trainedSnapshotFor } from './fixtures';

describe('KV cache snapshot', () => {
  test('with the cache token t scores h·t cells; recomputing, h·t(t+1)/2, ending at the same output', async () => {
    const snapshot = await snapshotFor({ dModel: 16, heads: 4, lcKvHeads: 64 });
    const kv = snapshot.kvCache!;
    expect([kv.heads, kv.kvHeads, kv.dK, kv.tokens]).toEqual([4, 4, 4, 9]);
    expect(kv.cachedCells).toEqual(Array.from({ length: 9 }, (_, i) => 4 * (i + 1)));
    expect(kv.recomputeCells).toEqual(Array.from({ length: 9 }, (_, i): [number, number] => [i + 1, recomputeScores(4, i + 1)]));
    expect(kv.comparedToken).toBe(9);
    expect(kv.recomputeDifference).toBeLessThan(1e-5);
    expect(kv.fromMultiHead).toEqual({ max: 0, mean: 0 });
    expect(kv.bytesPerToken).toBe(2 * 4 * 4 * 4);
    expect(kv.kvChoices).toEqual([4, 2, 1]);
  });

  test('fewer KV heads: lowered to a divisor of h, a smaller cache, an output that moves', async () => {
    const kv = (await snapshotFor({ dModel: 16, heads: 4, lcKvHeads: 3 })).kvCache!;
    expect(kv.kvHeads).toBe(2);
    expect(kv.bytesPerToken).toBe(kv.multiHeadBytesPerToken / 2);
    expect(kv.cachedCells[8]).toBe(4 * 9);
    expect(kv.fromMultiHead.max).toBeGreaterThan(0);
    expect(kv.fromMultiHead.mean).toBeLessThanOrEqual(kv.fromMultiHead.max);
    expect(kv.recomputeDifference).toBeLessThan(1e-5);
    expect((await snapshotFor({ dModel: 16, heads: 4, lcKvHeads: 1 })).kvCache!.kvHeads).toBe(1);
    expect(kvHeadChoices(12)).toEqual([12, 6, 4, 3, 2, 1]);
  });

  test('public models: 2 · layers · KV heads · d_k · 2 bytes per token', async () => {
    const kv = (await snapshotFor()).kvCache!;
    expect(kv.models.map(({ model, bytesPerToken }) => [model.name, bytesPerToken])).toEqual(
      PUBLIC_MODELS.map((m) => [m.name, 2 * m.layers * m.kvHeads * m.dK * 2]),
    );
    // Llama-2-7B: 512 KiB per token, 64 GiB at 128k tokens.
    expect(kv.models[0].bytesPerToken).toBe(512 * 1024);
  });
});

describe('KV cache figure', () => {
  test('the stepper, the reading, the control and the models table print the snapshot', async () => {
    const snapshot = await trainedSnapshotFor({ lcKvHeads: 1 });
    const kv = snapshot.kvCache!;
    const body = document.createElement('div');
    document.body.replaceChildren(body);
    const changes: Partial<Settings>[] = [];
    longContextStep.mount(body, { update: (change) => changes.push(change) }).render(snapshot);
    const t = kv.tokens;
    expect(body.querySelectorAll('.kv-tokens li').length).toBe(t);
    expect(body.querySelectorAll('.kv-tokens li.kv-new').length).toBe(1);
    const reading = body.querySelector('.kv-step-reading')!.textContent!;
    expect(reading).toContain(`each query row is scored against the ${t} keys: ${count(kv.cachedCells[t - 1])} scores`);
    expect(reading).toContain(`all ${t} tokens: ${count(recomputeScores(kv.heads, t))} scores`);
    const slider = body.querySelector('input[name="kv-token"]') as HTMLInputElement;
    slider.value = '3';
    slider.dispatchEvent(new Event('input'));
    expect(body.querySelectorAll('.kv-tokens li').length).toBe(3);
    expect(body.querySelector('.kv-step-reading')!.textContent).toContain(`${count(kv.cachedCells[2])} scores`);

    const select = body.querySelector('select[name="kv-heads"]') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(kv.kvChoices.map((g) => kvHeadsLabel(g, kv.heads)));
    expect(select.value).toBe(String(kv.kvHeads));
    const kvReading = body.querySelector('.kv-heads-reading')!.textContent!;
    expect(kvReading).toContain(`the cache holds ${bytes(kv.bytesPerToken)} per token and layer`);
    expect(kvReading).toContain(`by at most ${fmt(kv.fromMultiHead.max, 3)} (mean ${fmt(kv.fromMultiHead.mean, 3)})`);
    select.value = String(kv.heads);
    select.dispatchEvent(new Event('change'));
    expect(changes).toEqual([{ lcKvHeads: kv.heads }]);

    for (const { model, bytesPerToken } of kv.models) {
      const row = body.querySelector(`.kv-models tr[data-model="${model.name}"]`)!;
      expect(row.querySelector('cite')!.textContent).toBe(`(${model.source})`);
      expect(row.querySelector('a')).toBeNull();
      expect(row.querySelector('[data-key="perToken"]')!.textContent).toBe(bytes(bytesPerToken));
      expect(row.querySelector('[data-key="at-131072"]')!.textContent).toBe(bytes(bytesPerToken * 131072));
    }
    expect(body.querySelector('.kv-models tr[data-model="Llama-2-7B"] [data-key="at-131072"]')!.textContent).toBe('64.0 GiB');
  });
});
