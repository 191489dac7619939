// Robust loading: a missing .wasm (404), a damaged one (garbage bytes, a truncated file), a browser
// without WebAssembly SIMD, and a page whose CSP blocks WebAssembly. In every case each element shows a
// clear message naming the cause instead of an empty box, the prose and formulas still read, and the
// page throws nothing.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { collectErrors, distDir, goLive, hostPage, reach, serve, started, type StaticServer, useServerAndBrowser } from './harness';

// The engine's core (the later module, `*later*.wasm`, only comes for the steps that draw its kernels).
const isCore = (f: string) => f.endsWith('.wasm') && !f.includes('later');
const wasmName = readdirSync(join(distDir, 'assets')).find(isCore)!;
const embedWasmName = readdirSync(join(distDir, 'embed')).find(isCore)!;
const wasmPaths = [`/assets/${wasmName}`, `/embed/${embedWasmName}`];
const realWasm = readFileSync(join(distDir, 'assets', wasmName));

const ELEMENTS = ['attention-scores', 'attention-softmax', 'attention-mask', 'attention-heads'];
const HOST = hostPage(
  `<h1>An article</h1><p id="prose">The author's own prose.</p>
${ELEMENTS.map((tag) => `<${tag} tokens="a b c"></${tag}>`).join('\n')}`,
);

type Route = { body: string | Uint8Array; type?: string; status?: number };

/** Serves dist/ with the .wasm answered by `wasm` (both copies), plus the host page. */
function serveWith(wasm: Route | null, headers?: (path: string) => Record<string, string>): Promise<StaticServer> {
  const routes: Record<string, Route> = { '/host.html': { body: HOST } };
  if (wasm) for (const path of wasmPaths) routes[path] = wasm;
  return serve({ routes, headers });
}

// Each test serves the site its own way (a missing, damaged or blocked .wasm).
const site = useServerAndBrowser({ serve: false });

/** An init script: keeps the message of every attention-error event the page's elements fire, for attentionErrors(). */
function recordAttentionErrors(): void {
  const events: string[] = [];
  (window as unknown as { attentionErrors: string[] }).attentionErrors = events;
  document.addEventListener('attention-error', (e) => events.push((e as CustomEvent<{ message: string }>).detail.message));
}

const attentionErrors = (page: Page) => page.evaluate(() => (window as unknown as { attentionErrors: string[] }).attentionErrors);

/** Errors that are not the failure under test (the browser logs a failed resource load itself). */
function unexpected(errors: string[]): string[] {
  return errors.filter((e) => !/Failed to load resource|Content Security Policy|wasm-unsafe-eval|WebAssembly/.test(e));
}

async function hostShowsErrors(page: Page, message: RegExp): Promise<void> {
  for (const tag of ELEMENTS) {
    const element = page.locator(tag);
    await element.scrollIntoViewIfNeeded();
    expect(await started(element)).toBe('error');
    const error = element.locator('.load-error');
    expect(await error.isVisible()).toBe(true);
    expect(await error.innerText()).toMatch(message);
    // Not an empty box: the step's title, summary and formula are there to read.
    expect(await element.locator('h2').innerText()).not.toBe('');
    // One formula, as one <math> per clause (web/tooling/katex-formulas.ts).
    expect(await element.locator('.formula').count()).toBe(1);
    expect(await element.locator('.formula math').count()).toBeGreaterThanOrEqual(1);
    const box = await element.boundingBox();
    expect(box!.height).toBeGreaterThan(100);
  }
  expect(await page.locator('#prose').isVisible()).toBe(true);
}

async function indexShowsError(page: Page, message: RegExp): Promise<void> {
  await reach(page);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'error', undefined, { timeout: 20_000 });
  expect(await page.locator('#engine-status').innerText()).toMatch(message);
  const walkthrough = page.locator('attention-walkthrough');
  expect(await walkthrough.locator('.load-error').innerText()).toMatch(message);
  // Every step's title, summary and formula still read.
  expect(await walkthrough.locator('section.step h3').count()).toBeGreaterThanOrEqual(10);
  expect(await walkthrough.locator('.formula math').count()).toBeGreaterThanOrEqual(8);
  expect(await page.locator('h1').innerText()).toBe('Attention, worked out by hand');
  const text = await walkthrough.evaluate((el) => el.shadowRoot!.textContent);
  expect(text).toContain('Softmax');
  expect(text).not.toMatch(/\bNaN\b|undefined/);
}

const cases: {
  name: string;
  wasm: Route | null;
  init?: () => void;
  headers?: (path: string) => Record<string, string>;
  message: RegExp;
  /** What the host must do, where the element says it (beside the cause). */
  advice?: RegExp;
  fetchesWasm: boolean;
}[] = [
  {
    name: 'a missing .wasm (404)',
    wasm: { status: 404, body: 'not found', type: 'text/plain' },
    message: /could not be downloaded: the server answered 404/,
    advice: /The host must serve the files that come with the script \(its \.wasm, workers and trained weights: the whole embed\/ folder\)/,
    fetchesWasm: true,
  },
  {
    name: 'garbage bytes instead of the .wasm',
    wasm: { body: new TextEncoder().encode('<!doctype html><title>Oops</title>'), type: 'application/wasm' },
    message: /is not WebAssembly: the server sent something else/,
    fetchesWasm: true,
  },
  {
    name: 'a truncated .wasm',
    wasm: { body: realWasm.subarray(0, 4000), type: 'application/wasm' },
    message: /is damaged/,
    fetchesWasm: true,
  },
  {
    name: 'a browser without WebAssembly SIMD',
    wasm: null,
    init: () => {
      // Stands in for a browser whose WebAssembly lacks SIMD128: its validate() rejects the probe.
      WebAssembly.validate = () => false;
    },
    message: /no SIMD support/,
    fetchesWasm: false,
  },
  {
    name: 'a Content-Security-Policy without wasm-unsafe-eval',
    wasm: null,
    headers: (path): Record<string, string> =>
      path.endsWith('.html') ? { 'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'" } : {},
    message: /Content-Security-Policy does not allow WebAssembly: add 'wasm-unsafe-eval'/,
    fetchesWasm: true,
  },
];

describe('when the engine cannot load', () => {
  for (const c of cases) {
    test(`${c.name}: every element on a host page says why, and the prose still reads`, async () => {
      const server = await serveWith(c.wasm, c.headers);
      const page = await site.browser.newPage();
      if (c.init) await page.addInitScript(c.init);
      const errors = collectErrors(page);
      await page.addInitScript(recordAttentionErrors);
      await page.goto(`${server.url}/host.html`);
      await hostShowsErrors(page, c.message);
      if (c.advice) expect(await page.locator(`${ELEMENTS[0]} .load-error`).innerText()).toMatch(c.advice);
      // Every element has shown its error (above), and each one's event came with it.
      const events = await attentionErrors(page);
      expect(events).toHaveLength(ELEMENTS.length);
      for (const message of events) expect(message).toMatch(c.message);
      expect(server.requests.some((path) => path.endsWith('.wasm'))).toBe(c.fetchesWasm);
      expect(unexpected(errors)).toEqual([]);
      await page.close();
      await server.close();
    });

    test(`${c.name}: the walkthrough page says why and lists every step with its formula`, async () => {
      const server = await serveWith(c.wasm, c.headers);
      const page = await site.browser.newPage();
      if (c.init) await page.addInitScript(c.init);
      const errors = collectErrors(page);
      await page.goto(`${server.url}/index.html`);
      await indexShowsError(page, c.message);
      expect(unexpected(errors)).toEqual([]);
      await page.close();
      await server.close();
    });
  }

  test('the iframe embed with a missing .wasm shows the message inside the frame', async () => {
    const server = await serveWith({ status: 404, body: 'not found', type: 'text/plain' });
    const page = await site.browser.newPage();
    const errors = collectErrors(page);
    await page.goto(`${server.url}/embed.html?step=softmax`);
    const element = page.locator('attention-softmax');
    expect(await started(element)).toBe('error');
    expect(await element.locator('.load-error').innerText()).toMatch(/could not be downloaded: the server answered 404/);
    expect(unexpected(errors)).toEqual([]);
    await page.close();
    await server.close();
  });

  test('from another origin whose .wasm has no CORS header: the element says so, what the host must do, and fires attention-error', async () => {
    // The bundle's origin answers its scripts with CORS (a module script needs it) but not its .wasm.
    const files = await serve({
      headers: (path): Record<string, string> => (path.endsWith('.js') ? { 'access-control-allow-origin': '*' } : {}),
    });
    const host = await serve({
      routes: {
        '/host.html': {
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body><main><attention-scores tokens="a b c"></attention-scores></main><script type="module" src="${files.url}/embed/attention-by-hand.js"></script></body></html>`,
        },
      },
    });
    const page = await site.browser.newPage();
    const errors = collectErrors(page);
    await page.addInitScript(recordAttentionErrors);
    await page.goto(`${host.url}/host.html`);
    const element = page.locator('attention-scores');
    expect(await started(element)).toBe('error');
    const message = await element.locator('.load-error').innerText();
    expect(message).toMatch(/could not be downloaded \(.+\): .*without CORS headers/);
    expect(message).toMatch(/the host must serve the embed\/ files with an Access-Control-Allow-Origin header/);
    const events = await attentionErrors(page);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatch(/without CORS headers/);
    expect(files.requests.some((path) => path.endsWith('.wasm'))).toBe(true);
    expect(unexpected(errors.filter((e) => !/CORS|Access-Control-Allow-Origin|Failed to fetch/.test(e)))).toEqual([]);
    await page.close();
    await host.close();
    await files.close();
  });

  test('after a failed load the engine is fetched again by an element added later (a retry, not a cached failure)', async () => {
    let fail = true;
    const server = await serve({
      routes: { '/host.html': { body: HOST } },
    });
    const page = await site.browser.newPage();
    await page.route('**/*.wasm', (route) => (fail ? route.fulfill({ status: 503, body: 'busy' }) : route.continue()));
    await page.goto(`${server.url}/host.html`);
    expect(await started(page.locator('attention-scores'))).toBe('error');
    expect(await page.locator('attention-scores .load-error').innerText()).toMatch(/503/);
    fail = false;
    await page.evaluate(() => {
      const late = document.createElement('attention-scaling');
      document.querySelector('main')!.prepend(late);
    });
    expect(await started(page.locator('attention-scaling'))).toBe('true');
    await page.close();
    await server.close();
  });
});

describe('when a step’s own code cannot load', () => {
  test('the step keeps its prerendered copy and says why in place; the other steps go live', async () => {
    const server = await serve();
    const page = await site.browser.newPage();
    const errors = collectErrors(page);
    // FlashAttention's code is a chunk of its own (elements/lazy-step.ts; named by vite.config.ts).
    await page.route('**/assets/step-flash-*.js', (route) => route.fulfill({ status: 404, body: 'not found', contentType: 'text/plain' }));
    await page.goto(`${server.url}/index.html`);
    await goLive(page);
    const read = (id: string) =>
      page.locator('attention-walkthrough').evaluate((host, stepId) => {
        const section = host.shadowRoot!.querySelector<HTMLElement>(`section#${stepId}`)!;
        return {
          status: section.querySelector('.step-loading')?.textContent ?? null,
          prose: section.querySelector('.step-body > p')?.textContent ?? '',
          enabledButtons: section.querySelectorAll('button:not([disabled])').length,
        };
      }, id);
    const flash = await read('flash');
    expect(flash.status).toMatch(/^Step 10’s live figures could not load \(.+\)\. What you see here was computed when the page was built/);
    expect(flash.prose.length).toBeGreaterThan(40);
    expect(flash.enabledButtons).toBe(0); // still the copy, whose controls wait for a live page
    // The other lazy steps go live when their code (and long-context's, the engine's later module)
    // has come, each drawn in a task of its own: possibly after data-ready.
    for (const id of ['cost', 'long-context']) {
      await expect.poll(async () => (await read(id)).enabledButtons, { message: id, timeout: 30_000 }).toBeGreaterThan(0);
      expect((await read(id)).status, id).toBeNull();
    }
    expect(unexpected(errors)).toEqual([]);
    await page.close();
    await server.close();
  });
});
