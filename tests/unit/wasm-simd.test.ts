// The hot kernels really are SIMD: disassemble the shipped .wasm with wasm-objdump, find the kernels
// through Emscripten's symbol map, and look for f32x4 / v128 instructions in their bodies. The scalar
// build of the same code must have none.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatedDir } from './load-engine';

// Step 1's arithmetic is scores_transposed_block, which scores_qkt and scores_qkt_transposed call. Names
// are within namespace abh. The long-context kernels' row loops (cpp/long_context.cpp) inline their dot
// products and multiply-adds, so their own bodies must be SIMD too, and so does decode_step, into which
// its score kernel over the cached keys (cpp/long_context_decode.cpp) is inlined. Each is looked for in
// the module whose bindings reach it: the core, or the later module (CMakeLists.txt).
const KERNELS = [
  ['kernels::scores_transposed_block', 'core'],
  ['kernels::scale_mask_softmax', 'core'],
  ['kernels::weighted_sum', 'core'],
  ['kernels::matmul', 'core'],
  ['sparse_attention', 'later'],
  ['linear_attention', 'later'],
  ['decode_step', 'later'],
] as const;
const SIMD_OP = /\b(f32x4\.[a-z_]+|v128\.(load|store)\b)/g;

/** "index:name" lines, names escaped like \28 for '(' -> Map(demangled name -> function index). */
function parseSymbolMap(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const index = Number(line.slice(0, colon));
    if (!Number.isInteger(index)) continue;
    const name = line.slice(colon + 1).replace(/\\([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    out.set(name, index);
  }
  return out;
}

/** Splits `wasm-objdump -d` output into function bodies by index ("00e6b0 func[119] <name>:" headers). */
function parseDisassembly(text: string): Map<number, string[]> {
  const out = new Map<number, string[]>();
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    const header = /^[0-9a-f]+ func\[(\d+)\](?: <[^>]*>)?:$/.exec(line);
    if (header) {
      current = [];
      out.set(Number(header[1]), current);
    } else if (current && line.startsWith(' ')) current.push(line);
  }
  return out;
}

interface Build {
  symbols: Map<string, number>;
  bodies: Map<number, string[]>;
}

function load(name: string): Build {
  const wasm = resolve(generatedDir, `${name}.wasm`);
  let disassembly: string;
  try {
    disassembly = execFileSync('wasm-objdump', ['-d', wasm], { encoding: 'utf8', maxBuffer: 256 << 20 });
  } catch (error) {
    throw new Error(`wasm-objdump -d ${wasm} failed (install wabt): ${(error as Error).message}`);
  }
  return { symbols: parseSymbolMap(readFileSync(resolve(generatedDir, `${name}.symbols`), 'utf8')), bodies: parseDisassembly(disassembly) };
}

/** The function index of abh::<kernel>(...), or of the internal one of that name: exactly one overload. */
function kernelIndex(build: Build, kernel: string): number {
  const split = kernel.lastIndexOf('::') + 2; // 0 without a namespace
  const [scope, name] = [kernel.slice(0, split), kernel.slice(split)];
  const matches = [...build.symbols].filter(([symbol]) =>
    [`abh::${scope}${name}(`, `abh::${scope}(anonymous namespace)::${name}(`].some((p) => symbol.startsWith(p)),
  );
  expect(
    matches.map(([name]) => name),
    `symbol map entries for ${kernel}`,
  ).toHaveLength(1);
  return matches[0]![1];
}

function simdOps(body: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of body) {
    const instruction = line.split('|')[1] ?? ''; // "offset: bytes | instruction"
    for (const m of instruction.matchAll(SIMD_OP)) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  }
  return counts;
}

/** A build's two modules. */
type Modules = Record<'core' | 'later', Build>;
let simd: Modules;
let scalar: Modules;
beforeAll(() => {
  simd = { core: load('attention_engine'), later: load('attention_engine_later') };
  scalar = { core: load('attention_engine_scalar'), later: load('attention_engine_scalar_later') };
}, 60_000);

describe('the kernels are compiled to wasm SIMD128', () => {
  it('parses the symbol map and the disassembly consistently', () => {
    const { core } = simd;
    expect(core.symbols.size).toBeGreaterThan(50);
    expect(core.bodies.size).toBeGreaterThan(50);
    // Every defined function in the symbol map has a body in the disassembly (imports have none).
    const defined = [...core.symbols.values()].filter((i) => core.bodies.has(i));
    expect(defined.length).toBeGreaterThan(core.symbols.size / 2);
    expect(parseSymbolMap('7:a\\28b\\2c\\20c\\29').get('a(b, c)')).toBe(7);
  });

  for (const [kernel, module] of KERNELS) {
    it(`abh::${kernel} uses f32x4 arithmetic and v128 loads in the SIMD build, none in the scalar build (${module} module)`, () => {
      const body = simd[module].bodies.get(kernelIndex(simd[module], kernel));
      expect(body, `disassembly of ${kernel}`).toBeDefined();
      expect(body!.length).toBeGreaterThan(20);
      const ops = simdOps(body!);
      expect(ops.get('v128.load') ?? 0, `${kernel}: ${JSON.stringify([...ops])}`).toBeGreaterThan(0);
      const f32x4 = [...ops].filter(([op]) => op.startsWith('f32x4.'));
      expect(f32x4.length, `${kernel} f32x4 ops: ${JSON.stringify([...ops])}`).toBeGreaterThan(0);
      // Arithmetic, not just data movement: at least one f32x4 add/mul/sub.
      expect(f32x4.some(([op]) => /^f32x4\.(add|mul|sub)$/.test(op))).toBe(true);

      const scalarBody = scalar[module].bodies.get(kernelIndex(scalar[module], kernel));
      expect(scalarBody, `scalar disassembly of ${kernel}`).toBeDefined();
      expect(scalarBody!.length).toBeGreaterThan(10);
      expect([...simdOps(scalarBody!)]).toEqual([]);
      expect(scalarBody!.some((line) => /\bf32\.(mul|add)\b/.test(line))).toBe(true);
    });
  }

  it('the whole scalar build has no v128 instruction at all', () => {
    for (const module of ['core', 'later'] as const)
      for (const [index, body] of scalar[module].bodies)
        for (const line of body) {
          const instruction = line.split('|')[1] ?? '';
          if (/\b(v128|f32x4|i32x4)\./.test(instruction)) throw new Error(`scalar ${module} func[${index}]: ${line.trim()}`);
        }
  });
});
