// The docs page: its live examples are the elements themselves.
import './styles/page.css';
import './elements/index';

// The sizes the page states are measured here, from the files this site serves, so they cannot drift
// from the build the way a typed-in number does. Each [data-size-of] names a file relative to the page
// and the content type it must have (a dev server answers a missing file with its HTML page).
const KILO = 1000; // kB, as Vite's build report prints them

async function gzippedBytes(bytes: ArrayBuffer): Promise<number> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

async function showSize(span: HTMLElement): Promise<void> {
  const { sizeOf, sizeType } = span.dataset;
  if (!sizeOf || !sizeType) return;
  const response = await fetch(new URL(sizeOf, location.href), { cache: 'force-cache' });
  if (!response.ok || !(response.headers.get('content-type') ?? '').includes(sizeType)) return;
  const bytes = await response.arrayBuffer(); // decoded: the same whether or not the server compresses
  const kB = (count: number) => `${Math.round(count / KILO)} kB`;
  span.textContent = ` (${kB(bytes.byteLength)}, ${kB(await gzippedBytes(bytes))} gzipped)`;
}

function showSizes(): void {
  if (typeof CompressionStream !== 'function') return; // the sentence reads without the numbers
  for (const span of document.querySelectorAll<HTMLElement>('[data-size-of]')) showSize(span).catch(() => {}); // offline or blocked: the sentence reads without the number
}

// After the live examples have started: measuring is the least urgent thing on the page.
const idle = (run: () => void) =>
  typeof requestIdleCallback === 'function' ? requestIdleCallback(run, { timeout: 2000 }) : setTimeout(run, 500);
if (document.readyState === 'complete') idle(showSizes);
else addEventListener('load', () => idle(showSizes), { once: true });
