// The npm package in a real browser: the tarball `npm pack` makes from dist/embed (built by `npm run build`),
// installed with `npm install <tarball>` into a fresh project, then (1) loaded as it is through the package's
// own `exports` entry (an import map stands in for a bundler's resolution) and (2) bundled by Vite from
// `import 'attention-by-hand'`. Either way an element must draw its numbers. What the tarball holds and
// the declarations are tests/unit/package.test.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { collectErrors, distDir, serve, useServerAndBrowser } from './harness';

const root = resolve(import.meta.dirname, '..', '..');
const ELEMENTS = `<attention-scores tokens="the cat sat on the mat" d-model="16" heads="4"></attention-scores>
<attention-softmax tokens="x y z" controls="none"></attention-softmax>`;

let work: string;
let project: string;
// Each test serves its own author's site (the installed package, the Vite build).
const site = useServerAndBrowser({ serve: false });

beforeAll(async () => {
  if (!existsSync(join(distDir, 'embed', 'attention-by-hand.js')))
    throw new Error(`${distDir}/embed has no bundle: run \`npm run build\` first`);
  work = mkdtempSync(join(tmpdir(), 'abh-package-browser-'));
  // The bundle was just built by `npm run build`; --ignore-scripts skips prepack's rebuild of it.
  const [{ filename }] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: root, encoding: 'utf8' }),
  ) as { filename: string }[];
  project = join(work, 'project');
  execFileSync('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'author-site', private: true, type: 'module' }));
  // No runtime dependencies, so this needs no registry.
  execFileSync('npm', ['install', join(work, filename), '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: project,
    stdio: 'pipe',
  });
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Waits for every element to draw, then reads what a reader sees and what `result` holds. */
async function readElements(page: Page) {
  for (const tag of ['attention-scores', 'attention-softmax']) {
    const element = page.locator(tag);
    await element.scrollIntoViewIfNeeded();
    await expect.poll(() => element.getAttribute('data-ready'), { timeout: 30_000 }).toBe('true');
  }
  return page.evaluate(() => {
    const scores = document.querySelector('attention-scores')!;
    const { pipeline } = scores.result!;
    const rowSums = Array.from({ length: pipeline.n }, (_, r) =>
      pipeline.weights.data.subarray(r * pipeline.n, (r + 1) * pipeline.n).reduce((a, b) => a + b, 0),
    );
    return {
      config: scores.config!,
      n: pipeline.n,
      heads: pipeline.heads,
      rowSums,
      text: scores.shadowRoot!.textContent ?? '',
      softmaxText: document.querySelector('attention-softmax')!.shadowRoot!.textContent ?? '',
    };
  });
}

function expectNumbers(shown: Awaited<ReturnType<typeof readElements>>): void {
  expect(shown.config).toMatchObject({ sentence: 'the cat sat on the mat', dModel: 16, heads: 4 });
  expect(shown.n).toBe(6);
  expect(shown.heads).toBe(4);
  for (const sum of shown.rowSums) expect(sum).toBeCloseTo(1, 5);
  // Numbers on screen (two decimals, as the figures print them), and no NaN.
  expect(shown.text.match(/−?\d\.\d\d/g)?.length ?? 0).toBeGreaterThan(20);
  expect(shown.softmaxText).toMatch(/\d\.\d\d/);
  expect(`${shown.text} ${shown.softmaxText}`).not.toMatch(/\bNaN\b/);
}

describe('the packed package', () => {
  test('installed from the tarball and imported through its `exports`, the elements draw their numbers', async () => {
    const installed = join(project, 'node_modules', 'attention-by-hand');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    const entry = `/node_modules/attention-by-hand/${manifest.exports['.'].default.replace(/^\.\//, '')}`;
    const server = await serve({
      root: project,
      routes: {
        '/index.html': {
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Author site</title>
<script type="importmap">${JSON.stringify({ imports: { 'attention-by-hand': entry } })}</script></head>
<body><main>${ELEMENTS}</main><script type="module">import 'attention-by-hand';</script></body></html>`,
        },
      },
    });
    const page = await site.browser.newPage();
    const errors = collectErrors(page);
    await page.goto(`${server.url}/index.html`);
    expectNumbers(await readElements(page));
    // The .wasm came from the installed package, next to the bundle, once for both elements.
    expect(server.requests.filter((path) => path.endsWith('.wasm'))).toEqual([
      '/node_modules/attention-by-hand/dist/embed/attention-by-hand.wasm',
    ]);
    expect(errors).toEqual([]);
    await page.close();
    await server.close();
  });

  test("bundled by Vite from `import 'attention-by-hand'`, the elements draw their numbers", async () => {
    writeFileSync(
      join(project, 'index.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Author site</title></head>
<body><main>${ELEMENTS}<attention-flash></attention-flash></main><script type="module" src="./main.js"></script></body></html>`,
    );
    writeFileSync(join(project, 'main.js'), `import 'attention-by-hand';\n`);
    const outDir = join(project, 'out');
    await build({ root: project, configFile: false, logLevel: 'error', build: { outDir, emptyOutDir: true } });
    // Vite copied the .wasm the bundle points at into the site, under its own hashed name.
    const server = await serve({ root: outDir });
    const page = await site.browser.newPage();
    const errors = collectErrors(page);
    await page.goto(`${server.url}/index.html`);
    expectNumbers(await readElements(page));
    // The timing worker is copied as it is, but the page sends it the renamed .wasm's URL: the run
    // (capped at small n through the figure's test hook) measures instead of failing to download.
    const run = page.locator('attention-flash .flash-run');
    await run.scrollIntoViewIfNeeded();
    await run.evaluate((el) => {
      (el as HTMLElement).dataset.maxN = '256';
    });
    await run.locator('.flash-run-start').click();
    await expect.poll(() => run.getAttribute('data-phase'), { timeout: 90_000, interval: 250 }).toMatch(/done|failed|cancelled/);
    expect(await run.getAttribute('data-phase')).toBe('done');
    expect(await run.locator('table.flash-run-table td[data-ms]').count()).toBeGreaterThan(0);
    const wasmRequests = server.requests.filter((path) => path.endsWith('.wasm'));
    // The page and the worker load the same two renamed files: the engine's core and its later module
    // (which <attention-flash> needs for its tiles, and the worker for the tiled kernel).
    expect(new Set(wasmRequests).size).toBe(2);
    expect(errors).toEqual([]);
    await page.close();
    await server.close();
  });
});
