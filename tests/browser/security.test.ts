// Security of the built site and the embed bundle: no eval, no new Function, no string timers in any
// shipped script; nothing fetched from anywhere but the page's own origin (no CDN, no font or analytics
// host), checked twice — statically in every built file, and by recording every request Chromium makes
// on index.html, docs.html, embed.html and an author's host page while the elements start and change.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from '../../web/src/elements/registry';
import { collectErrors, distDir, goLive, hostPage, useServerAndBrowser } from './harness';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const files = filesUnder(distDir);
const scripts = files.filter((f) => ['.js', '.mjs'].includes(extname(f)));
const pages = files.filter((f) => extname(f) === '.html');
const styles = files.filter((f) => extname(f) === '.css');
const rel = (f: string) => relative(distDir, f);

/** XML namespace names: identifiers that look like URLs, never fetched. */
const NAMESPACES = new Set([
  'http://www.w3.org/2000/svg',
  'http://www.w3.org/1998/Math/MathML',
  'http://www.w3.org/1999/xhtml',
  'http://www.w3.org/1999/xlink',
  'http://www.w3.org/2000/xmlns/',
]);

describe('the built bundles', () => {
  test('dist/embed/*.js and dist/assets/*.js exist (the checks below would be vacuous without them)', () => {
    expect(scripts.some((f) => rel(f).startsWith('embed/'))).toBe(true);
    expect(scripts.some((f) => rel(f).startsWith('assets/'))).toBe(true);
  });

  test('no eval, no new Function / Function(), no setTimeout or setInterval with a string', () => {
    const patterns: [string, RegExp][] = [
      ['eval(', /(?<![\w$.])eval\s*\(/],
      ['new Function', /new\s+Function\b/],
      ['Function(', /(?<![\w$.])Function\s*\(/],
      ['setTimeout/setInterval with a string', /set(?:Timeout|Interval)\s*\(\s*["'`]/],
      ['document.write', /document\.write(?:ln)?\s*\(/],
      ['javascript: URL', /["'`]javascript:/i],
    ];
    const found: string[] = [];
    for (const file of scripts) {
      const text = readFileSync(file, 'utf8');
      for (const [name, pattern] of patterns) {
        const match = pattern.exec(text);
        if (match) found.push(`${rel(file)}: ${name} at …${text.slice(Math.max(0, match.index - 60), match.index + 40)}…`);
      }
    }
    expect(found).toEqual([]);
  });

  test('no absolute URL that a browser would fetch, in any script, page or stylesheet', () => {
    const found: string[] = [];
    for (const file of scripts) {
      for (const [url] of readFileSync(file, 'utf8').matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)<>]*/gi)) {
        if (!NAMESPACES.has(url)) found.push(`${rel(file)}: ${url}`);
      }
    }
    for (const file of pages) {
      const html = readFileSync(file, 'utf8');
      // Only real attributes fetch: code samples in the docs are escaped text (&lt;script src=…).
      for (const [, attribute, url] of html.matchAll(
        /<[a-z][^>]*?\s(src|href|srcset|poster|data|action|manifest)\s*=\s*["']?([^"'\s>]+)/gi,
      )) {
        if (/^(https?:)?\/\//i.test(url)) found.push(`${rel(file)}: ${attribute}=${url}`);
      }
      for (const [, url] of html.matchAll(/url\(\s*["']?((?:https?:)?\/\/[^"')]+)/gi)) found.push(`${rel(file)}: url(${url})`);
    }
    for (const file of styles) {
      const css = readFileSync(file, 'utf8');
      for (const [, url] of css.matchAll(/(?:url\(|@import\s+)\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi)) found.push(`${rel(file)}: ${url}`);
    }
    expect(found).toEqual([]);
  });

  test('no inline script in the built pages (a strict CSP has no unsafe-inline)', () => {
    for (const file of pages) {
      const html = readFileSync(file, 'utf8');
      for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) expect(tag, rel(file)).toMatch(/\ssrc=/);
      expect(html, rel(file)).not.toMatch(/\son[a-z]+\s*=/i);
      expect(html, rel(file)).not.toMatch(/<[a-z][^>]*\sstyle\s*=/i);
    }
  });
});

const HOST = hostPage(
  `<h1>Host</h1>
<attention-scores tokens="a b c"></attention-scores><attention-cost></attention-cost><attention-faq></attention-faq>`,
);

const site = useServerAndBrowser({ serve: { routes: { '/host.html': { body: HOST } } } });

/** Every request the page makes (documents, scripts, the wasm, workers, images, fonts, fetches). */
async function recorded(path: string, act: (page: Page) => Promise<void>): Promise<string[]> {
  const context = await site.browser.newContext();
  const urls: string[] = [];
  context.on('request', (request) => urls.push(request.url()));
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}${path}`);
  await act(page);
  await page.waitForTimeout(300);
  expect(errors).toEqual([]);
  await context.close();
  return urls;
}

/** Scrolls through the page so every lazily started element starts, and waits until each has drawn. */
async function startAll(page: Page): Promise<void> {
  const elements = page.locator(`main :is(${[...Object.values(STEP_ELEMENTS), WALKTHROUGH_ELEMENT].join(', ')})`);
  const count = await elements.count();
  for (let i = 0; i < count; i++) {
    await elements.nth(i).scrollIntoViewIfNeeded();
    await expect.poll(() => elements.nth(i).getAttribute('data-ready'), { timeout: 30_000 }).toBe('true');
  }
}

describe('network: only the page’s own origin', () => {
  const cases: [string, (page: Page) => Promise<void>][] = [
    [
      '/index.html',
      async (page) => {
        await goLive(page);
        await page.locator('select[name="weights"]').selectOption('random');
        await page.locator('#multi-head button[data-heads="4"]').click();
        await page.locator('input[name="causal"]').check();
        await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      },
    ],
    ['/docs.html', startAll],
    ['/embed.html?step=all&tokens=a+b+c', startAll],
    ['/embed.html?step=cost', startAll],
    ['/host.html', startAll],
  ];
  for (const [path, act] of cases) {
    test(path, async () => {
      const urls = await recorded(path, act);
      expect(urls.some((url) => url.endsWith('.wasm'))).toBe(true);
      const foreign = urls.filter((url) => !url.startsWith(`${site.server.url}/`));
      expect(foreign).toEqual([]);
    });
  }
});
