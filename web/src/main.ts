// The walkthrough page: one <attention-walkthrough sync-url embed-code>, the same element authors
// embed. The build prerenders it into the HTML at the default settings (web/tooling/prerender-walkthrough.ts),
// so the whole explanation reads before the engine has loaded, or without JavaScript.
//
// This first script is tiny on purpose. Parsing and running the elements' bundle (~120 KB gzipped)
// and downloading the engine before the first paint delayed the prerendered text by more than a second
// on a phone (Lighthouse's mobile profile: largest contentful paint 2.55 s, against 1.39 s this way).
// So the page paints the prerendered copy first; then the engine and the weights start downloading and
// the live part (page.ts) loads and takes over.
import './styles/page.css';
import { engineWasmUrl } from './engine/wasm-url';
import { shippedWeightsUrl } from './model/shipped';

function preload(href: string, type: string): void {
  const link = document.createElement('link');
  link.rel = 'preload';
  link.as = 'fetch';
  link.type = type;
  // The engine and the weights are fetched in cors mode; the preload must match to be reused.
  link.crossOrigin = '';
  link.href = href;
  document.head.append(link);
}

function startLivePart(): void {
  preload(engineWasmUrl(), 'application/wasm');
  preload(shippedWeightsUrl(), 'application/octet-stream');
  import('./page').catch((error: unknown) => {
    const status = document.getElementById('engine-status');
    if (status) {
      status.textContent = `The live figures could not load (${error instanceof Error ? error.message : String(error)}). The text still reads.`;
      status.classList.add('error');
    }
    document.documentElement.dataset.ready = 'error';
  });
}

let started = false;
function startOnce(): void {
  if (started) return;
  started = true;
  startLivePart();
}
// After the first frame has painted: a frame callback runs before that paint, a task queued from it
// after. A tab opened in the background paints no frames: the timer starts the live part there too.
requestAnimationFrame(() => setTimeout(startOnce, 0));
setTimeout(startOnce, 1000);
