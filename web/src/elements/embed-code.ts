// "Embed this step", in every figure's menu: the snippets that reproduce a section, with the reader's
// current settings, on another page: the custom element (one script tag) or an iframe for hosts that
// strip scripts. Part of the element layer (it writes element attributes); the walkthrough element hands
// it down to the steps through their context (steps/types.ts), and the steps give it to their figures'
// menus (ui/export-toolbar.ts), so nothing below imports this file.
import { el } from '../ui/dom';
import { settingsToParams, type Settings } from '../settings';
import { TRAIN_ATTRIBUTES, TRAIN_PARAMS, trainSettingsTo, type TrainSettings } from '../features/training/train-settings';
import type { EmbedCode, EmbedPanel, StepDefinition } from '../steps/types';
import { settingsToAttributes } from './attributes';
import { stepElementTag } from './registry';

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Where the site (and its embed bundle) is served from: the page's own folder. */
function siteBase(): string {
  return new URL('./', document.baseURI).href;
}

/** What a snippet reproduces: the walkthrough's settings, and the training run's for "Train it yourself". */
export interface SnippetSettings {
  settings: Settings;
  training: TrainSettings;
}

/** The train step's element and frame take the run's settings; every other step the walkthrough's. */
const trainsOwnModel = (stepId: string) => stepId === 'train';

export function elementSnippet(stepId: string, { settings, training }: SnippetSettings, base = siteBase()): string {
  const tag = stepElementTag(stepId);
  const attributes = (trainsOwnModel(stepId) ? trainSettingsTo(training, TRAIN_ATTRIBUTES) : settingsToAttributes(settings))
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join('');
  return `<script type="module" src="${base}embed/attention-by-hand.js"></script>\n<${tag}${attributes}></${tag}>`;
}

/** The message the embed page (embed-frame.ts) posts to its parent with its height, and the snippet listens for. */
export const FRAME_RESIZE_MESSAGE = 'attention-by-hand:resize';

/** Height of a pasted iframe until its page reports its own, or for good where the host strips scripts. */
export const FALLBACK_FRAME_HEIGHT = 640;

/**
 * The iframe snippet's listener: sets each of the snippet's iframes to the height its embed page posts.
 * Only messages from the site's origin and from that very iframe count, so another frame on the host
 * cannot resize it; several pasted snippets each add one listener, and they agree.
 */
export function frameResizeListener(origin: string): string {
  return (
    `addEventListener("message",function(e){var d=e.data;if(e.origin!==${JSON.stringify(origin).replace(/</g, '\\u003c')}||!d||d.type!=="${FRAME_RESIZE_MESSAGE}"||!(d.height>0))return;` +
    'document.querySelectorAll("iframe[data-attention-by-hand]").forEach(function(f){if(f.contentWindow===e.source)f.height=String(Math.ceil(d.height))})})'
  );
}

/**
 * An iframe of embed.html for this step and settings, with a tiny listener that sizes it to its content
 * (the embed page posts its height whenever it changes; embed.ly-style hosts get their own message). Where
 * the host strips the script, the iframe keeps `height` (the section's height here, when known) and scrolls.
 */
export function iframeSnippet(
  step: StepDefinition,
  { settings, training }: SnippetSettings,
  base = siteBase(),
  height = FALLBACK_FRAME_HEIGHT,
): string {
  const params = trainsOwnModel(step.id) ? new URLSearchParams(trainSettingsTo(training, TRAIN_PARAMS)) : settingsToParams(settings);
  params.set('step', step.id);
  const src = `${base}embed.html?${params.toString()}`;
  return (
    `<iframe src="${escapeAttribute(src)}" title="${escapeAttribute(step.title)}" width="100%" height="${Math.round(height)}" loading="lazy" style="border:0" data-attention-by-hand></iframe>\n` +
    `<script>${frameResizeListener(new URL(base).origin)}</script>`
  );
}

/** The section's drawn height as a starting height for its iframe (clamped; the fallback when not laid out). */
function sectionHeight(panel: HTMLElement): number {
  const height = panel.closest('section')?.getBoundingClientRect().height ?? 0;
  return height > 0 ? Math.min(Math.max(height, 200), 6000) : FALLBACK_FRAME_HEIGHT;
}

async function copy(what: string, text: string, source: HTMLTextAreaElement, status: HTMLElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = `Copied the ${what} snippet.`;
  } catch {
    // No clipboard permission (e.g. an insecure origin): select it so Ctrl+C works.
    source.focus();
    source.select();
    status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
  }
}

/** One figure menu's "Embed this step" panel: the element and iframe snippets, each with its Copy button. */
function embedPanel(step: StepDefinition, settings: () => SnippetSettings): EmbedPanel {
  const element = el('div', { class: 'embed-code', hidden: true });
  // The snippets' text fields are made when the panel is first shown: Chromium's autofill walks every
  // text field on the page after each settings change, and there is a menu per figure.
  let fields: { elementCode: HTMLTextAreaElement; iframeCode: HTMLTextAreaElement; status: HTMLElement } | null = null;

  const build = () => {
    const elementCode = el('textarea', { rows: 3, readonly: true, 'aria-label': 'Custom element snippet', spellcheck: 'false' });
    const iframeCode = el('textarea', { rows: 3, readonly: true, 'aria-label': 'Iframe snippet', spellcheck: 'false' });
    const status = el('span', { class: 'hint', role: 'status' });
    const copyElement = el('button', { type: 'button', class: 'export-action' }, 'Copy element');
    const copyIframe = el('button', { type: 'button', class: 'export-action' }, 'Copy iframe');
    element.append(
      el(
        'p',
        { class: 'hint' },
        'Paste into your page to show this step with the current settings. The element needs one script tag; the iframe works where scripts are stripped (it then keeps its starting height and scrolls).',
      ),
      elementCode,
      el('div', { class: 'row' }, copyElement),
      iframeCode,
      el('div', { class: 'row' }, copyIframe, status),
    );
    copyElement.addEventListener('click', () => {
      refresh();
      void copy('element', elementCode.value, elementCode, status);
    });
    copyIframe.addEventListener('click', () => {
      refresh();
      void copy('iframe', iframeCode.value, iframeCode, status);
    });
    return { elementCode, iframeCode, status };
  };
  // Written while the panel is still hidden the first time, so the iframe's height is the section's own.
  const refresh = () => {
    fields ??= build();
    fields.elementCode.value = elementSnippet(step.id, settings());
    fields.iframeCode.value = iframeSnippet(step, settings(), siteBase(), sectionHeight(element));
    return fields;
  };
  return {
    element,
    show() {
      const { elementCode, status } = refresh();
      element.hidden = false;
      status.textContent = '';
      void copy('element', elementCode.value, elementCode, status);
    },
  };
}

/** "Embed this step" for every figure menu of one step: each menu gets a panel of its own. */
export function embedCode(step: StepDefinition, settings: () => SnippetSettings): EmbedCode {
  return { panel: () => embedPanel(step, settings) };
}
