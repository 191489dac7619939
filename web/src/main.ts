// The walkthrough page: one <attention-walkthrough sync-url embed-code>, the same element authors
// embed. The build prerenders it into the HTML at the default settings (web/tooling/prerender-walkthrough.ts),
// so the whole explanation reads before the engine has loaded, or without JavaScript; the element then
// replaces that copy with the live figures.
import './styles/page.css';
import './elements/index';
import type { AttentionChangeDetail } from './elements/attention-element';
import { loadEngine } from './engine/engine';
import { loadShippedWeights } from './model/shipped';

declare global {
  interface Window {
    /** For browser tests and curious readers: the latest settings and snapshot. */
    attentionWalkthrough?: AttentionChangeDetail;
  }
}

// The walkthrough is at the top of this page: start compiling the engine now rather than when the
// element's viewport observer first reports (a frame or more later). The element shares this load and
// reports a failure itself.
loadEngine().catch(() => {});
loadShippedWeights().catch(() => {});

const walkthrough = document.querySelector('attention-walkthrough')!;
const status = document.getElementById('engine-status')!;

walkthrough.addEventListener('attention-change', (event) => {
  const detail = (event as CustomEvent<AttentionChangeDetail>).detail;
  window.attentionWalkthrough = detail;
  if (document.documentElement.dataset.ready !== 'true') {
    status.textContent = detail.result.simd
      ? 'Computed live by C++ compiled to WebAssembly (SIMD).'
      : 'Computed live by C++ compiled to WebAssembly.';
    document.documentElement.dataset.ready = 'true';
  }
});
walkthrough.addEventListener('attention-error', (event) => {
  status.textContent = `The live figures could not start: ${(event as CustomEvent<{ message: string }>).detail.message}. The text still reads.`;
  status.classList.add('error');
  document.documentElement.dataset.ready = 'error';
});
