// embed.html?step=scores&tokens=...: one step in an iframe, for hosts that strip scripts. The URL's
// settings become the element's attributes (validated there, like any attribute), and the frame
// tells its parent its height whenever it changes.
import './styles/page.css';
import './elements/index';
import { SETTING_ATTRIBUTES } from './elements/attributes';
import { FRAME_RESIZE_MESSAGE } from './elements/embed-code';
import { embedStep, embedStepNames } from './embed-step';
import { el } from './ui/dom';
import { STEP_ELEMENTS } from './elements/registry';
import { TRAIN_ATTRIBUTES, TRAIN_PARAMS } from './features/training/train-settings';

const params = new URLSearchParams(location.search);
const root = document.getElementById('embed')!;
const requested = params.get('step');
const { tag, known } = embedStep(requested);

if (!known && requested !== null) {
  const shown = [...requested.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/gu, '')];
  root.appendChild(
    el(
      'p',
      { class: 'embed-notice', role: 'status' },
      `There is no step called “${shown.slice(0, 40).join('')}${shown.length > 40 ? '…' : ''}”; showing the scores step. Steps: ${embedStepNames()}.`,
    ),
  );
}
const element = document.createElement(tag);
// <attention-train> takes the run's settings (the link's train_* parameters); every other element the walkthrough's.
const names: [string, string][] =
  tag === STEP_ELEMENTS.train
    ? (Object.keys(TRAIN_PARAMS) as (keyof typeof TRAIN_PARAMS)[]).map((key) => [TRAIN_ATTRIBUTES[key], TRAIN_PARAMS[key]])
    : Object.entries(SETTING_ATTRIBUTES);
for (const [attribute, param] of names) {
  const value = params.get(param);
  if (value !== null) element.setAttribute(attribute, value);
}
for (const attribute of ['controls', 'theme']) {
  const value = params.get(attribute);
  if (value !== null) element.setAttribute(attribute, value);
}
root.appendChild(element);

// Height messages in two common conventions: our own type, and the { context: 'iframe.resize' }
// message that embed.ly-style hosts listen for. Hosts filter by event.origin.
let lastHeight = 0;
function postHeight(): void {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === lastHeight || window.parent === window) return;
  lastHeight = height;
  window.parent.postMessage({ type: FRAME_RESIZE_MESSAGE, height, step: requested ?? 'scores' }, '*');
  window.parent.postMessage(JSON.stringify({ src: location.href, context: 'iframe.resize', height }), '*');
}
new ResizeObserver(postHeight).observe(document.documentElement);
window.addEventListener('message', (event) => {
  if (event.source === window.parent && event.data?.type === 'attention-by-hand:request-size') {
    lastHeight = 0;
    postHeight();
  }
});
