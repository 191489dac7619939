// "Copy embed code": the snippets that reproduce a section, with the reader's current settings,
// on another page: the custom element (one script tag) or an iframe for hosts that strip scripts.
import { settingsToAttributes } from './elements/attributes';
import { STEP_ELEMENTS } from './elements/registry';
import { el } from './figures/dom';
import { settingsToParams, type Settings } from './settings';
import type { StepDefinition } from './steps/types';

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Where the site (and its embed bundle) is served from: the page's own folder. */
function siteBase(): string {
  return new URL('./', document.baseURI).href;
}

export function elementSnippet(stepId: string, settings: Settings, base = siteBase()): string {
  const tag = STEP_ELEMENTS[stepId];
  const attributes = settingsToAttributes(settings).map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');
  return `<script type="module" src="${base}embed/attention-by-hand.js"></script>\n<${tag}${attributes}></${tag}>`;
}

export function iframeSnippet(step: StepDefinition, settings: Settings, base = siteBase()): string {
  const params = settingsToParams(settings);
  params.set('step', step.id);
  const src = `${base}embed.html?${params.toString()}`;
  return `<iframe src="${escapeAttribute(src)}" title="${escapeAttribute(step.title)}" width="100%" height="640" loading="lazy" style="border:0"></iframe>`;
}

async function copy(text: string, source: HTMLTextAreaElement, status: HTMLElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = 'Copied.';
  } catch {
    // No clipboard permission (e.g. an insecure origin): select it so Ctrl+C works.
    source.focus();
    source.select();
    status.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
  }
}

export function embedCodePanel(step: StepDefinition, settings: () => Settings): { button: HTMLElement; element: HTMLElement } {
  const panelId = `embed-${step.id}`;
  const button = el('button', { type: 'button', class: 'button quiet embed-toggle', 'aria-expanded': 'false', 'aria-controls': panelId }, 'Copy embed code');
  const element = el('div', { class: 'embed-code', id: panelId, hidden: true });
  // The snippets' text fields are made when the panel first opens: Chromium's autofill walks every
  // text field on the page after each settings change, and there is a panel per section.
  let fields: { elementCode: HTMLTextAreaElement; iframeCode: HTMLTextAreaElement; status: HTMLElement } | null = null;

  const build = () => {
    const elementCode = el('textarea', { rows: 3, readonly: true, 'aria-label': 'Custom element snippet', spellcheck: 'false' });
    const iframeCode = el('textarea', { rows: 3, readonly: true, 'aria-label': 'Iframe snippet', spellcheck: 'false' });
    const status = el('span', { class: 'hint', role: 'status' });
    const copyElement = el('button', { type: 'button', class: 'button' }, 'Copy element');
    const copyIframe = el('button', { type: 'button', class: 'button' }, 'Copy iframe');
    element.append(
      el('p', { class: 'hint' }, 'Paste into your page to show this section with the current settings. The element needs one script tag; the iframe works where scripts are stripped.'),
      elementCode, el('div', { class: 'row' }, copyElement),
      iframeCode, el('div', { class: 'row' }, copyIframe, status));
    copyElement.addEventListener('click', () => {
      refresh();
      void copy(elementCode.value, elementCode, status);
    });
    copyIframe.addEventListener('click', () => {
      refresh();
      void copy(iframeCode.value, iframeCode, status);
    });
    return { elementCode, iframeCode, status };
  };
  const refresh = () => {
    fields ??= build();
    fields.elementCode.value = elementSnippet(step.id, settings());
    fields.iframeCode.value = iframeSnippet(step, settings());
    return fields;
  };
  button.addEventListener('click', () => {
    const { elementCode, status } = refresh();
    const open = element.hidden;
    element.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (open) {
      status.textContent = '';
      void copy(elementCode.value, elementCode, status);
    }
  });
  return { button, element };
}
