// The walkthrough page's live part, loaded by main.ts when the reader first reaches for the page (or at
// once for a link with settings): the elements and the engine. The element adopts
// the prerendered shadow root and replaces it with the live figures.
import './elements/index';
import type { AttentionChangeDetail } from './elements/attention-element';
import { loadEngine } from './engine/engine';

declare global {
  interface Window {
    /** For browser tests and curious readers: the latest settings and snapshot. */
    attentionWalkthrough?: AttentionChangeDetail;
  }
}

// The walkthrough is at the top of this page: start compiling the engine now rather than when the
// element's viewport observer first reports (a frame or more later). The element shares this load and
// reports a failure itself. The small trained model's weights are not fetched here: step 1 shows the
// reader model, and the steps that show the small one fetch it at their first drawing
// (features/trained-model/trained.ts needsTrainedWeights, walkthrough.ts).
loadEngine().catch(() => {});

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
