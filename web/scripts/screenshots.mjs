// Takes full-page screenshots of the built site at desktop and phone widths, light and dark,
// into /tmp/shots (or the folder given), for looking at the page as a reader does.
// Usage: npm run build && node web/scripts/screenshots.mjs [outDir] [path?query]
//        DIST_DIR=/tmp/my-dist node web/scripts/screenshots.mjs /tmp/my-shots '/?heads=4'
import { createServer } from 'node:http';
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

// DIST_DIR lets several people build and look at once (vite build --outDir elsewhere).
const dist = process.env.DIST_DIR ? `${process.env.DIST_DIR.replace(/\/$/, '')}/` : fileURLToPath(new URL('../../dist/', import.meta.url));
const outDir = process.argv[2] ?? '/tmp/shots';
const target = process.argv[3] ?? '/';
mkdirSync(outDir, { recursive: true });
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml' };
const server = createServer((req, res) => {
  let file = normalize(join(dist, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
  if (!file.startsWith(dist) || !existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
}).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
for (const [name, width, scheme] of [
  ['desktop', 1280, 'light'],
  ['phone', 360, 'light'],
  ['desktop-dark', 1280, 'dark'],
  ['phone-dark', 360, 'dark'],
]) {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
  page.on('console', (m) => m.type() === 'error' && console.log(`[${name}] console error: ${m.text()}`));
  page.on('pageerror', (e) => console.log(`[${name}] page error: ${e}`));
  await page.goto(base + target);
  // The walkthrough goes live at the reader's first reach (web/src/main.ts): a scroll event is that reader.
  await page.evaluate(() => window.dispatchEvent(new Event('scroll')));
  await page.waitForFunction(() => document.documentElement.dataset.ready, null, { timeout: 20000 });
  // Off-screen sections skip painting (content-visibility: auto) and a full-page screenshot does not
  // scroll to them: show every section, as a reader scrolling down sees it.
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        for (const host of document.querySelectorAll('attention-walkthrough'))
          for (const section of host.shadowRoot?.querySelectorAll('.step') ?? []) section.style.contentVisibility = 'visible';
        requestAnimationFrame(() => requestAnimationFrame(resolve));
      }),
  );
  await page.screenshot({ path: join(outDir, `${name}.png`), fullPage: true });
  console.log(join(outDir, `${name}.png`));
  await page.close();
}
await browser.close();
server.close();
