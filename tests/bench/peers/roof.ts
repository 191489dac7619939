// The SIMD128 multiply-add probe (roof/roof_probe.cpp), instantiated from its bytes: no imports.
import type { Roof } from '../suite';

export async function loadRoof(bytes: BufferSource): Promise<Roof> {
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const exports = instance.exports as { roof_init(): void; roof_run(passes: number): number };
  exports.roof_init();
  exports.roof_run(1000); // tier up before the first sample
  return { run: (passes) => void exports.roof_run(passes), flopsPerPass: 64 * 8 * 4 * 2 };
}
