// The npm package (issue #4): what `npm pack` puts in the tarball, that package.json's entry points are in
// it, and that the hand-written declarations (web/src/elements/attention-by-hand.d.ts) type-check for a
// consumer and say the same as the code. The browser half, the packed bundle installed and running in
// Chromium, is tests/browser/package.test.ts.
//
// Two kinds of check: the compile-time assertions just below are checked by `tsc -p .` (npm test's
// typecheck), where the declarations sit next to the code they describe; the tests pack the package for
// real and compile a consumer against the tarball's contents with the consumer's strictest settings.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from '../../web/src/elements/registry';
import type * as Pkg from '../../web/src/elements/attention-by-hand';
import type * as Entry from '../../web/src/elements/index';
import type { AttentionElement as SourceElement, AttentionChangeDetail as SourceChangeDetail } from '../../web/src/elements/attention-element';
import type * as Engine from '../../web/src/engine/types';
import type { Settings } from '../../web/src/settings';
import type { FlashSnapshot, Snapshot } from '../../web/src/snapshot';
import type { TrainedSnapshot } from '../../web/src/trained';

// ---------------------------------------------------------------------------------------------------
// Compile time: every public type is identical to the code's (a mismatch fails `tsc -p .`).

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
type Assert<T extends true> = T;

export type DeclarationsMatchTheCode = [
  Assert<Equal<Pkg.AttentionConfig, Settings>>,
  Assert<Equal<Pkg.AttentionSnapshot, Snapshot>>,
  Assert<Equal<Pkg.FlashSnapshot, FlashSnapshot>>,
  Assert<Equal<Pkg.TrainedSnapshot, TrainedSnapshot>>,
  Assert<Equal<Pkg.AttentionChangeDetail, SourceChangeDetail>>,
  Assert<Equal<Pkg.Matrix, Engine.Matrix>>,
  Assert<Equal<Pkg.Tensor3, Engine.Tensor3>>,
  Assert<Equal<Pkg.MaskMatrix, Engine.MaskMatrix>>,
  Assert<Equal<Pkg.PipelineSnapshot, Engine.PipelineSnapshot>>,
  Assert<Equal<Pkg.DotProductSamples, Engine.DotProductSamples>>,
  Assert<Equal<Pkg.SoftmaxSaturation, Engine.SoftmaxSaturation>>,
  Assert<Equal<Pkg.FlashTrace, Engine.FlashTrace>>,
  Assert<Equal<Pkg.FlashTraceStep, Engine.FlashTraceStep>>,
  // The elements' read-only properties.
  Assert<Equal<Pkg.AttentionElement['config'], SourceElement['config']>>,
  Assert<Equal<Pkg.AttentionElement['result'], SourceElement['result']>>,
  Assert<Equal<Pkg.AttentionElement['scrollToStep'], SourceElement['scrollToStep']>>,
  // Every public member of the code's element is declared, and nothing more; testHooks is for tests only.
  Assert<Equal<Exclude<keyof SourceElement, keyof Pkg.AttentionElement>, 'testHooks'>>,
  Assert<Equal<Exclude<keyof Pkg.AttentionElement, keyof SourceElement>, never>>,
  // The bundle's exports (web/src/elements/index.ts) are exactly the declared values.
  Assert<Equal<keyof typeof Entry, keyof typeof Pkg>>,
  Assert<Equal<typeof Pkg.defineElements, typeof Entry.defineElements>>,
];

// ---------------------------------------------------------------------------------------------------

const root = resolve(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

interface PackedFile { path: string; size: number }
interface PackResult { filename: string; size: number; unpackedSize: number; files: PackedFile[] }

let work: string;
let packed: PackResult;
let consumer: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'abh-package-'));
  // A fresh bundle, as `prepack` makes it (its build:wasm step is left out: the unit tests use the
  // generated .wasm that is already there), then the real tarball.
  execFileSync('npm', ['run', '--silent', 'build:embed', '--', '--logLevel', 'error'], { cwd: root, stdio: 'pipe' });
  const json = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: root, encoding: 'utf8' });
  [packed] = JSON.parse(json) as PackResult[];
  consumer = join(work, 'consumer');
  const installed = join(consumer, 'node_modules', 'attention-by-hand');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', installed, '--strip-components=1']);
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const paths = () => packed.files.map((file) => file.path).sort();
const target = (path: string) => path.replace(/^\.\//, '');

describe('package.json', () => {
  test('is publishable: no private flag, no runtime dependencies, an ES module with side effects', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.name).toBe('attention-by-hand');
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.license).toBe('MIT');
    expect(manifest.type).toBe('module');
    // The bundle is self-contained; everything else (KaTeX included: formulas are rendered at build time) is a devDependency.
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toBeUndefined();
    // Importing the bundle defines the elements: a bundler must never drop `import 'attention-by-hand'`.
    expect(manifest.sideEffects).toBe(true);
  });

  test('prepack builds the bundle (wasm and embed build) and nothing else: no tests, no site', () => {
    expect(manifest.scripts.prepack).toBe('npm run build:wasm && npm run build:embed');
    expect(manifest.scripts['build:embed']).toBe('vite build --config vite.embed.config.ts');
  });
});

describe('npm pack', () => {
  test('packs the bundle, its .wasm, its worker, the declarations, README and package.json, and nothing else', () => {
    const files = paths();
    expect(files).toEqual(expect.arrayContaining([
      'README.md', 'package.json',
      'dist/embed/attention-by-hand.js', 'dist/embed/attention-by-hand.wasm', 'dist/embed/attention-by-hand.d.ts',
    ]));
    const allowed = /^(README\.md|package\.json|LICENSE(\.md)?|dist\/embed\/(attention-by-hand\.(js|wasm|d\.ts)|cost-worker-[\w-]+\.js))$/;
    expect(files.filter((path) => !allowed.test(path))).toEqual([]);
    // One worker, one .wasm (the worker reuses the elements' file), no source maps, nothing from the repository.
    expect(files.filter((path) => path.endsWith('.wasm'))).toHaveLength(1);
    expect(files.filter((path) => /cost-worker/.test(path))).toHaveLength(1);
    expect(files.filter((path) => /\.map$|node_modules|^(web|cpp|tests|build)\//.test(path))).toEqual([]);
    // A size budget, so a stray file shows up: today about 150 kB packed, 470 kB unpacked.
    expect(packed.size).toBeLessThan(400_000);
    expect(packed.unpackedSize).toBeLessThan(1_000_000);
  });

  test('every entry point in package.json (exports, main, types) is in the tarball', () => {
    const files = new Set(paths());
    const exported = manifest.exports as Record<string, string | Record<string, string>>;
    expect(Object.keys(exported).sort()).toEqual(['.', './attention-by-hand.wasm', './package.json']);
    expect(exported['.']).toEqual({ types: './dist/embed/attention-by-hand.d.ts', default: './dist/embed/attention-by-hand.js' });
    // "types" must come first in a conditional export, or TypeScript never sees it.
    expect(Object.keys(exported['.'])[0]).toBe('types');
    const targets = Object.values(exported).flatMap((value) => (typeof value === 'string' ? [value] : Object.values(value)));
    for (const path of [...targets, manifest.main, manifest.types]) expect(files, path).toContain(target(path));
    // Every file list entry is one the package.json `files` field allows.
    expect(manifest.files).toEqual(['dist/embed/']);
  });

  test('the bundle finds its .wasm and worker next to itself, and both are packed', () => {
    const files = new Set(paths());
    for (const script of ['attention-by-hand.js', ...[...files].filter((p) => p.includes('cost-worker')).map((p) => p.split('/').pop()!)]) {
      const code = readFileSync(join(consumer, 'node_modules', 'attention-by-hand', 'dist', 'embed', script), 'utf8');
      const urls = [...code.matchAll(/new URL\(`([^`]+)`/g)].map((match) => match[1]).filter((url) => url !== './');
      expect(urls.length, script).toBeGreaterThan(0);
      for (const url of urls) expect(files, `${script} refers to ${url}`).toContain(`dist/embed/${url}`);
    }
  });

  test('the packed declarations are the hand-written file', () => {
    const packedTypes = readFileSync(join(consumer, 'node_modules', 'attention-by-hand', 'dist', 'embed', 'attention-by-hand.d.ts'), 'utf8');
    expect(packedTypes).toBe(readFileSync(join(root, 'web', 'src', 'elements', 'attention-by-hand.d.ts'), 'utf8'));
  });
});

// A consumer project: its own tsconfig (strict, no skipLibCheck, so the .d.ts itself is checked), the
// tarball extracted into node_modules, and code an author would write. `@ts-expect-error` lines are
// mistakes the types must catch (an unused one is an error), so the checks cannot pass vacuously.
const CONSUMER_TS = `import 'attention-by-hand';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT, defineElements, type AttentionChangeDetail, type AttentionConfig, type AttentionElement } from 'attention-by-hand';

const scores = document.createElement('attention-scores');
scores.setAttribute('tokens', 'the cat sat on the mat');
const n: number | undefined = scores.result?.pipeline.n;
const weights: Float32Array | undefined = scores.result?.pipeline.weights.data;
const dK: number | undefined = scores.result?.pipeline.dK;
const config: AttentionConfig | null = scores.config;
const heads: number | undefined = config?.heads;
const trace = scores.result?.flash.trace?.steps[0]?.m;
// @ts-expect-error config is read-only
scores.config = null;
// @ts-expect-error result is read-only
scores.result = null;
// @ts-expect-error not part of the API
scores.testHooks;

scores.addEventListener('attention-change', (event) => {
  const detail: AttentionChangeDetail = event.detail;
  const output: Float32Array = event.detail.result.pipeline.output.data;
  const sentence: string = detail.config.sentence;
  // @ts-expect-error no such field
  detail.result.nonsense;
  void output; void sentence;
});
scores.addEventListener('attention-error', (event) => console.log(event.detail.message.length));
document.addEventListener('attention-change', (event) => event.detail.result.simd);
document.body.addEventListener('attention-change', (event) => event.detail.config.dModel);

const walkthrough = document.querySelector('attention-walkthrough');
walkthrough?.scrollToStep('softmax');
const any: AttentionElement | null = document.querySelector('attention-flash');
const tag: 'attention-walkthrough' = WALKTHROUGH_ELEMENT;
const stepTag: 'attention-scaling' = STEP_ELEMENTS.scale;
defineElements();
defineElements(customElements);

// Every tag the bundle defines (from web/src/elements/registry.ts) is typed as an attention element.
const everyTag: AttentionElement[] = [
  __TAGS__
];
// The step table is declared exactly as registry.ts has it.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const registry = __STEP_ELEMENTS__ as const;
const sameSteps: Equal<typeof STEP_ELEMENTS, Readonly<typeof registry>> = true;

export { n, weights, dK, heads, trace, any, tag, stepTag, everyTag, sameSteps };
`;

const CONSUMER_TSX = `import type { AttentionScoresElement } from 'attention-by-hand';

declare global { namespace JSX { interface Element {} } }

let element: AttentionScoresElement | null = null;
export const page = [
  <attention-scores tokens="the cat sat on the mat" d-model={16} heads="4" causal controls="none" theme="dark"
    ref={(e) => { element = e; }} data-id="x" aria-label="Scores" />,
  <attention-walkthrough sync-url embed-code />,
  <attention-flash block={8} mask="window:3" causal={false} />,
  // @ts-expect-error heads is a number or a string
  <attention-heads heads={[4]} />,
  // @ts-expect-error no such theme
  <attention-softmax theme="blue" />,
  // @ts-expect-error dModel is spelled d-model (a misspelling with a dash is not caught: TypeScript lets any
  // hyphenated JSX attribute through)
  <attention-heads dModel={16} />,
];
export const n = (element as AttentionScoresElement | null)?.result?.pipeline.n;
`;

function compile(options: Record<string, unknown>, files: string[]): string {
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [], strict: true, noEmit: true,
      skipLibCheck: false, noUnusedLocals: false, ...options,
    },
    files,
  }));
  try {
    execFileSync(process.execPath, [tsc, '-p', join(consumer, 'tsconfig.json')], { cwd: consumer, encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    return `${stdout}${stderr}`;
  }
}

describe('the declarations, for a consumer of the packed package', () => {
  beforeAll(() => {
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const tags = [WALKTHROUGH_ELEMENT, ...Object.values(STEP_ELEMENTS)].map((tag) => `document.createElement('${tag}'),`).join('\n  ');
    writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_TS.replace('__TAGS__', tags).replace('__STEP_ELEMENTS__', JSON.stringify(STEP_ELEMENTS)));
    writeFileSync(join(consumer, 'consumer-jsx.tsx'), CONSUMER_TSX);
  });

  test('type-check with a bundler\'s resolution (exports → types), JSX included', () => {
    expect(existsSync(join(consumer, 'node_modules', 'attention-by-hand', 'dist', 'embed', 'attention-by-hand.d.ts'))).toBe(true);
    expect(compile({ module: 'ESNext', moduleResolution: 'bundler', jsx: 'preserve' }, ['consumer.ts', 'consumer-jsx.tsx'])).toBe('');
  }, 180_000);

  test('type-check with Node\'s ESM resolution (module nodenext)', () => {
    expect(compile({ module: 'NodeNext', moduleResolution: 'NodeNext' }, ['consumer.ts'])).toBe('');
  }, 180_000);

});
