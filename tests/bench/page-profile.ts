// Where a settings change spends its time in the walkthrough: real input events (a mouse click on the
// causal or scale checkbox, or ArrowDown/ArrowUp on the heads, d_model, head or seed control) on a built
// site, the time from the input event to the paint of the frame that shows the change (latency.ts), the
// renderer's script/style/layout split (CDP Performance metrics) and the functions with the most self
// time (CDP Profiler).
//
//   npx tsx tests/bench/page-profile.ts [--dist=dist] [--changes=100] [--control=causal|scale|heads|d_model|head|seed]
//        [--query='?heads=8'] [--words=256 --heads=8 --d_model=64] [--profile] [--load=7] [--floor]
//
// Prints numbers only; nothing here asserts a time (the machines are noisy).
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { goLive, launchBrowser, serve } from '../browser/harness';
import { median, quantile } from './data';
import { CONTROLS, measureChanges, measureFirstLoad, type ControlName } from './latency';
import { flagTable } from './options';

const args = flagTable(process.argv.slice(2));
const dist = resolve(args.dist ?? 'dist');
const changes = Number(args.changes ?? 100);
const control = (args.control ?? 'causal') as ControlName;
if (!(control in CONTROLS)) throw new Error(`--control: one of ${Object.keys(CONTROLS).join(', ')}`);
let query = args.query ?? '';
if (args.words) {
  const words: string[] = [];
  for (let i = 0; words.length < Number(args.words); ++i) words.push(`w${i.toString(36)}`);
  query = `?tokens=${encodeURIComponent(words.join(' '))}&heads=${args.heads ?? 8}&d_model=${args.d_model ?? 64}`;
}
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');

/**
 * --floor: the same measurement on a page that does nothing but flip one word of text, the least any
 * page can take from an input to its painted frame on this machine and browser.
 */
const FLOOR_PAGE = `<html data-ready="true"><body><attention-walkthrough>
<label><input type="checkbox" name="causal"> Causal mask</label>
<label><input type="checkbox" name="scale" checked> Scale</label>
<select name="heads"><option>1</option><option selected>2</option><option>4</option><option>8</option></select>
<select name="d_model"><option>4</option><option selected>8</option><option>16</option></select>
<select name="head"><option selected>head 1</option><option>head 2</option></select>
<input type="number" name="seed" value="1">
<p id="shown">off</p></attention-walkthrough>
<script>
  const host = document.querySelector('attention-walkthrough');
  host.addEventListener('change', (event) => {
    document.getElementById('shown').textContent = event.target.name + ' ' + (event.target.type === 'checkbox' ? event.target.checked : event.target.value);
    host.dispatchEvent(new CustomEvent('attention-change', { detail: { config: { heads: 0, dModel: 0 }, result: { pipeline: { n: 0 } } } }));
  });
</script></body></html>`;

const stats = (values: number[]) =>
  `median ${median(values).toFixed(1)} ms, p95 ${quantile(values, 0.95).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;

const browser = await launchBrowser();
const server = await serve({ root: dist });
try {
  console.log(`dist=${dist} control=${control} query=${query.slice(0, 40)}${query.length > 40 ? '…' : ''} load avg before: ${load()}`);
  const context = await browser.newContext({ viewport: { width: Number(args.width ?? 1280), height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`[page error] ${e}`));
  const t0 = performance.now();
  if (args.floor) await page.setContent(FLOOR_PAGE);
  else await page.goto(`${server.url}/index.html${query}`);
  await goLive(page, 120_000);
  console.log(`${args.floor ? 'floor page' : 'walkthrough'} ready after ${(performance.now() - t0).toFixed(0)} ms (incl. navigation)`);
  if (args.scroll) {
    await page.evaluate((y) => window.scrollTo(0, Number(y)), args.scroll);
    await page.waitForTimeout(500);
  }
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  if (args.profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  const before = await metrics();
  const r = changes > 0 ? await measureChanges(page, { control, changes, gapMs: Number(args.gap ?? 50) }) : null;
  const after = await metrics();
  const count = Math.max(1, r?.painted.length ?? 0);
  const per = (k: string) => ((((after[k] ?? 0) - (before[k] ?? 0)) * 1000) / count).toFixed(1);
  if (r) {
    const next = r.frames.filter((f) => f <= 1).length;
    console.log(`n=${r.n} h=${r.heads} changes=${r.painted.length}`);
    console.log(`  input -> painted frame: ${stats(r.painted)}`);
    console.log(`  input -> figures drawn (before paint): ${stats(r.drawn)}`);
    console.log(
      `  painted in the next frame: ${next}/${r.frames.length} (${((100 * next) / r.frames.length).toFixed(0)}%); frames to paint: ${[1, 2, 3].map((k) => `${k}: ${r.frames.filter((f) => (k === 3 ? f >= 3 : f === k)).length}`).join(', ')}`,
    );
    console.log(`  Event Timing ≥16 ms: ${r.events.length} entries, median ${r.events.length ? median(r.events).toFixed(0) : '-'} ms`);
    console.log(
      `  main thread per change (incl. idle drawing): script ${per('ScriptDuration')} ms, style ${per('RecalcStyleDuration')} ms, layout ${per('LayoutDuration')} ms, task ${per('TaskDuration')} ms; nodes ${after.Nodes}`,
    );
  }
  if (args.profile) {
    const { profile } = await cdp.send('Profiler.stop');
    const self = new Map<string, number>();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const dt = profile.timeDeltas ?? [];
    (profile.samples ?? []).forEach((id, i) => {
      const node = byId.get(id)!;
      const f = node.callFrame;
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
    });
    const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top ?? 25));
    for (const [k, v] of top) console.log(`  ${(v / count).toFixed(2).padStart(8)} ms/change  ${k}`);
  }
  if (args.load) {
    await context.close(); // a page left open would share the two cores with the loads
    const drawn: number[] = [];
    const ready: number[] = [];
    let upperBounds = 0;
    for (let i = 0; i < Number(args.load); ++i) {
      const c = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const p = await c.newPage();
      const t = await measureFirstLoad(p, `${server.url}/index.html`);
      if (!t.paintedExact) ++upperBounds;
      drawn.push(t.painted);
      ready.push(t.ready);
      await c.close();
    }
    const row = (label: string, t: number[]) =>
      console.log(
        `first load, ${label}: median ${median(t).toFixed(0)} ms, p95 ${quantile(t, 0.95).toFixed(0)} ms over ${t.length}: ${t.map((v) => v.toFixed(0)).join(' ')}`,
      );
    row('data-ready (every section drawn)', ready);
    row(`painted${upperBounds ? ` (${upperBounds} from the message after the paint: an upper bound)` : ''}`, drawn);
  }
  console.log(`load avg after: ${load()}`);
} finally {
  await server.close();
  await browser.close();
}
