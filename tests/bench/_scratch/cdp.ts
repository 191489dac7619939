import { launchBrowser } from '../../browser/harness';
const b = await launchBrowser();
const page = await b.newPage();
const cdp = await page.context().newCDPSession(page);
await cdp.send('Performance.enable');
await page.exposeFunction('__threadTime', async () => {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'ThreadTime')!.value * 1000;
});
await page.setContent('<p>x</p>');
const r = await page.evaluate(async () => {
  const tt = (window as any).__threadTime as () => Promise<number>;
  const out = [];
  for (let k = 0; k < 5; k++) {
    const c0 = await tt(); const t0 = performance.now();
    let x = 0; for (let i = 0; i < 2e7 * (k + 1); i++) x += Math.sqrt(i);
    const t1 = performance.now(); const c1 = await tt();
    out.push([t1 - t0, c1 - c0, x > 0]);
  }
  const empties = []; for (let k = 0; k < 20; k++) { const e0 = await tt(); const e1 = await tt(); empties.push(+(e1 - e0).toFixed(3)); }
  return { out, empties };
});
console.log(JSON.stringify(r));
const { metrics } = await cdp.send('Performance.getMetrics'); console.log(metrics.map((m) => m.name).join(','));
await b.close();
