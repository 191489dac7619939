// The walkthrough page: one <attention-walkthrough sync-url embed-code>, the same element authors
// embed. The build prerenders it into the HTML at the default settings (web/tooling/prerender-walkthrough.ts),
// so the whole explanation, with the article's example worked out, reads before the engine has loaded,
// or without JavaScript.
//
// This first script is tiny on purpose, and it loads the live part (page.ts: the elements' bundle and
// the engine's .wasm, ~220 KB gzipped) only when the reader first reaches for
// the page: a pointer, a key, a touch, a wheel or a scroll. A reader who only looks has everything the
// prerendered copy shows and downloads ~65 KB; starting the live part at load instead cost a phone
// (Lighthouse's mobile profile) ~1.3 s of blocked main thread right as the text appeared. A link that
// carries settings or a step (`?tokens=…`, `#causal`) asks for the live page itself: it starts at once.
import './styles/page.css';
import { engineWasmUrl } from './engine/wasm-url';

/** What counts as reaching for the page. Passive listeners: none of them delays a scroll. */
const INTENT_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'touchstart', 'wheel', 'scroll'] as const;

const root = document.documentElement;
const status = document.getElementById('engine-status');

function preload(href: string, type: string): void {
  const link = document.createElement('link');
  link.rel = 'preload';
  link.as = 'fetch';
  link.type = type;
  // The engine is fetched in cors mode; the preload must match to be reused.
  link.crossOrigin = '';
  link.href = href;
  document.head.append(link);
}

/**
 * A pointer resting over the page is not a reach: when the layout changes under it (the load, a font),
 * Chromium sends a pointermove that did not move (movement 0, 0), which alone started the live part for
 * a reader who only looks.
 */
function onIntent(event: Event): void {
  if (event instanceof PointerEvent && event.type === 'pointermove' && event.movementX === 0 && event.movementY === 0) return;
  startLivePart();
}

function startLivePart(): void {
  for (const type of INTENT_EVENTS) window.removeEventListener(type, onIntent, true);
  if (root.dataset.live !== 'waiting') return;
  root.dataset.live = 'loading';
  if (status) status.textContent = 'Loading the engine…';
  preload(engineWasmUrl(), 'application/wasm');
  // Not the small trained model's weights: step 1 shows the reader model, which its figure fetches
  // when near, and the steps that show the small one fetch its weights at their first drawing.
  import('./page').catch((error: unknown) => {
    if (status) {
      status.textContent = `The live figures could not load (${error instanceof Error ? error.message : String(error)}). The text still reads.`;
      status.classList.add('error');
    }
    root.dataset.ready = 'error';
  });
}

root.dataset.live = 'waiting';
if (location.search || location.hash) {
  // After the first frame has painted, so the prerendered copy shows first: a frame callback runs
  // before that paint, a task queued from it after. A tab opened in the background paints no frames:
  // the timer starts the live part there too.
  requestAnimationFrame(() => setTimeout(startLivePart, 0));
  setTimeout(startLivePart, 1000);
} else {
  for (const type of INTENT_EVENTS) window.addEventListener(type, onIntent, { capture: true, passive: true });
}
