// The walkthrough page. Prose and formulas are in the HTML/steps and read without the engine; the
// live figures appear once the wasm has loaded.
import './styles/page.css';
import { loadEngine } from './engine/engine';
import { WalkthroughState } from './state';
import { mountWalkthrough } from './walkthrough';

declare global {
  interface Window {
    /** For browser tests and curious readers: the current snapshot and state. */
    attentionWalkthrough?: ReturnType<typeof mountWalkthrough>;
  }
}

const root = document.getElementById('walkthrough')!;
const status = document.getElementById('engine-status')!;

loadEngine()
  .then((engine) => {
    status.textContent = engine.info().simd ? 'Computed live by C++ compiled to WebAssembly (SIMD).' : 'Computed live by C++ compiled to WebAssembly.';
    const walkthrough = mountWalkthrough({ root, engine, state: new WalkthroughState(true) });
    window.attentionWalkthrough = walkthrough;
    document.documentElement.dataset.ready = 'true';
  })
  .catch((error: unknown) => {
    status.textContent = `The live figures could not start: ${error instanceof Error ? error.message : String(error)}. ` +
      'The text still reads; the numbers need WebAssembly with SIMD (any current browser).';
    status.classList.add('error');
    document.documentElement.dataset.ready = 'error';
  });
