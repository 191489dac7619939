// Shared by every browser test: a static file server for dist/ on loopback (with the headers a
// test asks for, e.g. a strict CSP) and Debian's Chromium (launchBrowser says which build) driven by
// playwright-core.
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { AxeResults } from 'axe-core';
import { chromium, type Browser, type Frame, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** The built site: dist/, or DIST_DIR when a build lives elsewhere (as for the screenshots script). */
export const distDir = process.env.DIST_DIR ? resolve(process.env.DIST_DIR) : resolve(import.meta.dirname, '..', '..', 'dist');

/**
 * The built walkthrough page's inline <style>s, in order: the page's own stylesheet in the head
 * (web/tooling/inline-page-css.ts), then the prerendered shadow root's (web/tooling/prerender-walkthrough.ts).
 */
export function builtInlineStyles(): { page: string; walkthrough: string } {
  const html = readFileSync(join(distDir, 'index.html'), 'utf8');
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(([, css]) => css);
  const walkthrough = /<template shadowrootmode="open"><style>([\s\S]*?)<\/style>/.exec(html)?.[1];
  if (styles.length !== 2 || walkthrough === undefined || styles[1] !== walkthrough)
    throw new Error('dist/index.html lacks the inlined page style or the prerendered walkthrough: build it from this tree');
  return { page: styles[0], walkthrough };
}

const mimeTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};

export interface StaticServer {
  url: string;
  close(): Promise<void>;
  /** Every path requested, in order. */
  requests: string[];
}

export interface ServeOptions {
  root?: string;
  headers?: (path: string) => Record<string, string>;
  /** Extra routes answered before the file system (host pages written by a test; a 404 or damaged file). */
  routes?: Record<string, { body: string | Uint8Array; type?: string; status?: number }>;
}

/** An author's page embedding the bundle: `main` is the <main>'s content, then the bundle's script. */
export function hostPage(main: string, { title = 'Host', script = './embed/attention-by-hand.js' } = {}): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>
${main}
</main><script type="module" src="${script}"></script></body></html>`;
}

export async function serve(options: ServeOptions = {}): Promise<StaticServer> {
  const root = options.root ?? distDir;
  if (!existsSync(join(root, 'index.html')) && !options.routes) throw new Error(`${root} has no index.html: run \`npm run build\` first`);
  const requests: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const extra = options.headers?.(path) ?? {};
    if (path === '/favicon.ico') {
      res.writeHead(204).end(); // browsers ask every origin for one; not a page error
      return;
    }
    const route = options.routes?.[path];
    if (route) {
      res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/html; charset=utf-8', ...extra });
      res.end(route.body);
      return;
    }
    let file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': mimeTypes[extname(file)] ?? 'application/octet-stream', ...extra });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/**
 * In the test suites only (Vitest sets VITEST; the benches, run with tsx, measure the optimized code
 * readers run): the .wasm runs as V8's baseline (Liftoff) code. Tier-up recompiles it with the optimizing
 * compiler on a background thread at every page load, about 0.65 s of CPU a load (3.5 s → 2.85 s of
 * renderer CPU per load of the walkthrough) for code a test's few computations barely run. Both tiers
 * compute the same results by the wasm spec, and the unit suite runs the same .wasm in Node, optimized.
 * (A later --js-flags, as memory.test.ts passes, replaces this one.)
 */
const TEST_ONLY_ARGS = ['--js-flags=--no-wasm-tier-up'];

/**
 * The test suites run Debian's chromium-headless-shell, the headless build of the same Chromium release
 * (its Blink and V8, no browser UI), as Playwright itself does for headless tests. The full browser in
 * headless mode opens a window for each context, and for each window loads the omnibox popup's WebUI
 * in a renderer of its own: about 3 s of CPU per page load on top of the walkthrough's 2 (5.2 → 1.9 s
 * of CPU per load measured; the browser suite took 914 s on the full browser, 654 s on the shell, same
 * results). The benches run the full browser readers run (/usr/bin/chromium).
 */
const EXECUTABLE = process.env.VITEST ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium';

/** @param extraArgs e.g. ['--js-flags=--expose-gc', '--enable-precise-memory-info'] for the memory test. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: EXECUTABLE,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      ...(process.env.VITEST ? TEST_ONLY_ARGS : []),
      ...extraArgs,
    ],
  });
}

export interface SuiteSetUp {
  /**
   * What the suite's static server serves (serve's options), or a function called in beforeAll that
   * returns them (for pages built from dist/ at set-up time); false: the suite starts its own servers.
   */
  serve?: ServeOptions | (() => ServeOptions) | false;
  /** Chromium flags beyond launchBrowser's, e.g. the memory test's. */
  launchArgs?: string[];
}

export interface Suite {
  readonly server: StaticServer;
  readonly browser: Browser;
}

/**
 * The set-up of a browser test file: beforeAll starts the static server and the browser, afterAll
 * closes both (the browser first, so no open connection holds the server). Read `server` and
 * `browser` inside tests and hooks: they exist once beforeAll has run, and reading one earlier, or the
 * server of a suite that has none, throws.
 */
export function useServerAndBrowser({ serve: serveOptions = {}, launchArgs = [] }: SuiteSetUp = {}): Suite {
  let server: StaticServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (serveOptions !== false) server = await serve(typeof serveOptions === 'function' ? serveOptions() : serveOptions);
    browser = await launchBrowser(launchArgs);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error(serveOptions === false ? 'this suite serves no site of its own' : 'the server starts in beforeAll');
      return server;
    },
    get browser() {
      if (!browser) throw new Error('the browser starts in beforeAll');
      return browser;
    },
  };
}

/** Collects console errors and uncaught page errors; tests assert the list is empty. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  return errors;
}

// ---- Waiting without polling ----------------------------------------------------------------------
// The page tells when it is done: an element's updateComplete (web/src/elements/attention-element.ts)
// resolves once its settings are computed and every step is drawn, including the steps the walkthrough
// draws in idle time; attention-change and attention-error say that a lazily started element has
// started. What finishes outside the elements (a clipboard write, a worker, an image load) is awaited
// with a MutationObserver on what it changes. None of these waits has a timeout of its own: a state
// that never comes fails the test at its timeout, and nothing passes by waiting long enough.

type Drawn = HTMLElement & { updateComplete: Promise<void> };

/**
 * The walkthrough page loads its live part when the reader first reaches for the page (web/src/main.ts);
 * a link without settings shows the prerendered copy until then. A scroll event stands in for that
 * reader: it moves nothing, and unlike a key or a click it is no input that would exempt the layout
 * shifts after it from CLS. (no-js.test.ts reaches with a real key.) Pages without the wait are left alone.
 */
function reachForPage(): void {
  if (document.documentElement.dataset.live === 'waiting') window.dispatchEvent(new Event('scroll'));
}

/** Reaches for the page as a reader would, once: the walkthrough starts loading its live part. */
export async function reach(page: Page | Frame): Promise<void> {
  await page.evaluate(reachForPage);
}

/** The walkthrough page, reached for, has drawn every step (data-ready). */
export async function goLive(page: Page, timeout?: number): Promise<void> {
  await reach(page);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, timeout ? { timeout } : {});
}

/** After a change: the element (by default the page's walkthrough) shows its current settings everywhere. */
export async function settled(page: Page | Frame, selector = 'attention-walkthrough'): Promise<void> {
  await reach(page);
  return page.evaluate(async (s) => {
    const element = document.querySelector(s);
    if (!element) throw new Error(`the page has no ${s}`);
    // The walkthrough page defines its elements once it has painted (web/src/main.ts).
    await customElements.whenDefined(element.localName);
    const promise = (element as Drawn).updateComplete;
    if (!(promise instanceof Promise)) throw new Error(`${s} has no updateComplete: is dist/ built from this tree?`);
    return promise;
  }, selector);
}

/**
 * A lazily started element (scroll it near the viewport first) has started and drawn: its data-ready
 * then, 'true' or 'error'.
 */
export function started(element: Locator): Promise<string | undefined> {
  return element.evaluate(async (el) => {
    const drawn = el as Drawn;
    if (!drawn.dataset.ready) {
      await new Promise<void>((resolve) => {
        drawn.addEventListener('attention-change', () => resolve(), { once: true });
        drawn.addEventListener('attention-error', () => resolve(), { once: true });
      });
    }
    if (!(drawn.updateComplete instanceof Promise))
      throw new Error(`${drawn.localName} has no updateComplete: is dist/ built from this tree?`);
    await drawn.updateComplete;
    return drawn.dataset.ready;
  });
}

/** The element's attribute once it matches `pattern` (now, or at the change that makes it match). */
export function attributeMatching(element: Locator, name: string, pattern: RegExp): Promise<string> {
  return element.evaluate(
    (el, { name, source, flags }) =>
      new Promise<string>((resolve) => {
        const test = () => {
          const value = el.getAttribute(name);
          if (value === null || !new RegExp(source, flags).test(value)) return false;
          observer.disconnect();
          resolve(value);
          return true;
        };
        const observer = new MutationObserver(test);
        if (!test()) observer.observe(el, { attributes: true, attributeFilter: [name] });
      }),
    { name, source: pattern.source, flags: pattern.flags },
  );
}

/** The element's textContent once it matches `pattern` (now, or at the change that makes it match). */
export function textMatching(element: Locator, pattern: RegExp): Promise<string> {
  return element.evaluate(
    (el, { source, flags }) =>
      new Promise<string>((resolve) => {
        const test = () => {
          const text = el.textContent ?? '';
          if (!new RegExp(source, flags).test(text)) return false;
          observer.disconnect();
          resolve(text);
          return true;
        };
        const observer = new MutationObserver(test);
        if (!test()) observer.observe(el, { childList: true, subtree: true, characterData: true });
      }),
    { source: pattern.source, flags: pattern.flags },
  );
}

/**
 * Lays out every section of every walkthrough on the page, as a reader scrolling through sees them. An
 * off-screen section skips layout (content-visibility: auto) and keeps its placeholder height while a
 * script reads the boxes inside it, so a section taller than that seems to overlap the next one: axe
 * then takes a button of the next section for the background of a table's text.
 */
export function showAllSections(page: Page): Promise<void> {
  return page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        for (const host of document.querySelectorAll('attention-walkthrough'))
          for (const section of host.shadowRoot?.querySelectorAll<HTMLElement>('.step') ?? []) section.style.contentVisibility = 'visible';
        requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
      }),
  );
}

/**
 * Two animation frames: pointer moves (which Chromium delivers with the next frame) have been handled,
 * and what a handler scheduled for the frame after has run. Not for pages under page.clock (it fakes
 * requestAnimationFrame).
 */
export function nextFrames(page: Page): Promise<void> {
  return page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/** The element's viewport top once it has stayed within 1 px for `frames` animation frames in a row. */
export function stillTop(element: Locator, frames: number): Promise<number> {
  return element.evaluate(
    (target, frames) =>
      new Promise<number>((resolve) => {
        let last = target.getBoundingClientRect().top;
        let still = 0;
        const frame = () => {
          const now = target.getBoundingClientRect().top;
          still = Math.abs(now - last) < 1 ? still + 1 : 0;
          last = now;
          if (still >= frames) resolve(now);
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
    frames,
  );
}

/** The page's layout shifts since it started (watchLayoutShifts). */
export interface LayoutShifts {
  /** CLS: the sum of the shifts not within 500 ms of the reader's input. */
  cls: number;
  /** The sum of every shift, input or not. */
  all: number;
  /** Each shift CLS counts, one line: its value, when, and what moved. */
  entries: string[];
}

/** An init script (page.addInitScript): records every layout shift from the page's start, for layoutShifts(). */
export function watchLayoutShifts(): void {
  const shifts = { cls: 0, all: 0, entries: [] as string[] };
  (window as unknown as { layoutShifts: typeof shifts }).layoutShifts = shifts;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & {
      value: number;
      hadRecentInput: boolean;
      sources?: { node?: Node }[];
    })[]) {
      shifts.all += entry.value;
      if (entry.hadRecentInput) continue;
      shifts.cls += entry.value;
      const moved = (entry.sources ?? []).map((s) =>
        s.node instanceof Element ? `${s.node.localName}.${s.node.className}#${s.node.id}` : String(s.node?.nodeName),
      );
      shifts.entries.push(`${entry.value.toFixed(4)} at ${entry.startTime.toFixed(0)} ms: ${moved.join(', ')}`);
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

/** What watchLayoutShifts has recorded on `page` so far. */
export function layoutShifts(page: Page): Promise<LayoutShifts> {
  return page.evaluate(() => (window as unknown as { layoutShifts: LayoutShifts }).layoutShifts);
}

// ---- axe-core ---------------------------------------------------------------------------------------

/** axe's rules whose outcome depends on colours. */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * axe on `page` as it is, reporting each violation's every node and, for the rules that passed or could
 * not decide, only that they ran. It runs axe.run in the page itself (legacy mode) instead of a partial
 * run per frame whose results are gathered in a new blank page: with every node of every result kept,
 * that path computed and shipped a selector for each of ~1,300 nodes the contrast rule leaves
 * undecided on the walkthrough. Both give the same violations on the same page. Measured on the live
 * walkthrough (1280 px, all sections laid out): every rule but contrast 13.0–14.3 s → 1.6–1.7 s,
 * contrast 8.8–13.3 s → 3.9–4.1 s. The test pages are same-origin, which legacy mode needs for iframes.
 */
export function axe(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).setLegacyMode(true).options({ resultTypes: ['violations'] });
}

/**
 * axe on `page` as it is, in one colour scheme. Between the light and the dark theme only colours
 * change (the markup, its names, roles and ARIA are the same), so a dark run checks the colour rules
 * alone and the light run of the same state checks every rule. axe takes tens of seconds on the
 * walkthrough, most of it in rules that would only repeat the light run's answer.
 */
export function axeFor(page: Page, colorScheme: 'light' | 'dark'): AxeBuilder {
  const builder = axe(page);
  return colorScheme === 'dark' ? builder.withRules(COLOUR_RULES) : builder;
}

/** The serious and critical violations of axe's results, one line each, prefixed with `label`. */
export function seriousViolations(results: AxeResults, label: string): string[] {
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${label} ${v.id} (${v.impact}): ${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target.join(' ')} — ${v.nodes[0]?.failureSummary?.replace(/\s+/g, ' ')}`,
    );
}
