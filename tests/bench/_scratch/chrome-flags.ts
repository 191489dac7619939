import { chromium } from 'playwright-core';
import { runBenchPage } from '../browser';
const flags = process.argv[2] ?? '';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...(flags ? [`--js-flags=${flags}`] : [])] });
const r = await runBenchPage(b, ['--n=512'], (l) => { if (l.includes('n=512 h=1 ') || l.includes('n=512 h=1  ')) console.log(flags, l); });
void r; await b.close();
