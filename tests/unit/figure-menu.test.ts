// @vitest-environment happy-dom
// The figure menu (ui/export-toolbar.ts) with "Embed this step": its name says what it offers, the
// embed action opens its panel under the menu (made once, on the first press), closing the menu or
// Escape hides it and gives the focus back to the menu's button; a menu with only embedding is one
// button. And the element layer's panel (elements/embed-code.ts) writes the snippets of the settings
// current when it is shown.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { elementSnippet, embedCode, iframeSnippet } from '../../web/src/elements/embed-code';
import { exportToolbar, menuLabel, type EmbedCode } from '../../web/src/ui/export-toolbar';
import { DEFAULT_SETTINGS, type Settings } from '../../web/src/settings';
import { softmaxStep } from '../../web/src/steps/05-softmax/step';
import { trainDefaultsFor } from '../../web/src/features/training/train-settings';

const escape = (target: Element) => target.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }));
const names = (root: Element) => [...root.querySelectorAll('.export-menu button')].map((b) => b.textContent);

function fakeEmbed() {
  const panels: { element: HTMLElement; shown: number }[] = [];
  const embed: EmbedCode = {
    panel: () => {
      const panel = { element: document.createElement('div'), shown: 0 };
      panel.element.hidden = true;
      panels.push(panel);
      return {
        element: panel.element,
        show: () => {
          panel.shown++;
          panel.element.hidden = false;
        },
      };
    },
  };
  return { embed, panels };
}

afterEach(() => document.body.replaceChildren());

describe('the figure menu', () => {
  test('its name says what it offers', () => {
    const f = () => '';
    const embed = fakeEmbed().embed;
    expect(menuLabel({ csv: f, numpy: f, svg: () => ({ svg: '', width: 1, height: 1 }), embed })).toBe('Copy, save or embed');
    expect(menuLabel({ svg: () => ({ svg: '', width: 1, height: 1 }), embed })).toBe('Save or embed');
    expect(menuLabel({ csv: f, svg: () => ({ svg: '', width: 1, height: 1 }) })).toBe('Copy or save');
    expect(menuLabel({ svg: () => ({ svg: '', width: 1, height: 1 }) })).toBe('Save');
    expect(menuLabel({ embed })).toBe('Embed this step');
  });

  test('"Embed this step" opens its panel under the menu; closing the menu or Escape hides it, focus back on the button', () => {
    const { embed, panels } = fakeEmbed();
    const tools = exportToolbar({ label: () => 'weights', csv: () => 'a,b', svg: () => ({ svg: '<svg/>', width: 1, height: 1 }), embed });
    document.body.append(tools);
    const toggle = tools.querySelector<HTMLButtonElement>('.export-toggle')!;
    const menu = tools.querySelector<HTMLElement>('.export-menu')!;
    expect(toggle.textContent).toBe('Copy, save or embed');
    expect(toggle.getAttribute('aria-controls')).toBe(menu.id);
    expect(menu.hidden).toBe(true);
    expect(names(tools)).toEqual(['Copy CSV', 'Save PNG', 'Save SVG', 'Embed this step']);
    expect(panels).toHaveLength(0); // nothing made until asked for

    toggle.click();
    expect(menu.hidden).toBe(false);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(menu.getAttribute('aria-label')).toBe('Copy, save or embed: weights');
    const action = [...menu.querySelectorAll('button')].find((b) => b.textContent === 'Embed this step')!;
    expect(action.getAttribute('aria-expanded')).toBe('false');
    action.click();
    expect(panels).toHaveLength(1);
    const panel = panels[0];
    expect(panel.shown).toBe(1);
    expect(panel.element.hidden).toBe(false);
    expect(panel.element.parentElement).toBe(tools);
    expect(action.getAttribute('aria-expanded')).toBe('true');
    expect(action.getAttribute('aria-controls')).toBe(panel.element.id);
    expect(tools.querySelector(`#${panel.element.id}`)).toBe(panel.element);
    action.click(); // again: hidden
    expect(panel.element.hidden).toBe(true);
    expect(action.getAttribute('aria-expanded')).toBe('false');
    action.click();
    expect(panel.shown).toBe(2);

    // Closing the menu hides the panel too; opening it again and embedding reuses the same panel.
    toggle.click();
    expect(menu.hidden).toBe(true);
    expect(panel.element.hidden).toBe(true);
    expect(action.getAttribute('aria-expanded')).toBe('false');
    toggle.click();
    action.click();
    expect(panels).toHaveLength(1);
    expect(panel.shown).toBe(3);

    // Escape from anywhere in it (here the panel) closes menu and panel and focuses the button.
    const inside = panel.element.appendChild(document.createElement('textarea'));
    inside.focus();
    escape(inside);
    expect(menu.hidden).toBe(true);
    expect(panel.element.hidden).toBe(true);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(toggle);
  });

  test('without embed code there is no "Embed this step"; with nothing else to offer it is one button', () => {
    const plain = exportToolbar({ label: () => 'chart', svg: () => ({ svg: '<svg/>', width: 1, height: 1 }) });
    expect(plain.querySelector('.export-toggle')!.textContent).toBe('Save');
    expect(names(plain)).toEqual(['Save PNG', 'Save SVG']);

    const { embed, panels } = fakeEmbed();
    const tools = exportToolbar({ label: () => 'Train it yourself', embed });
    document.body.append(tools);
    const toggle = tools.querySelector<HTMLButtonElement>('.export-toggle')!;
    expect(toggle.textContent).toBe('Embed this step');
    expect(tools.querySelector('.export-menu')).toBeNull();
    expect(toggle.hasAttribute('aria-controls')).toBe(false); // no panel to point at yet
    toggle.click();
    expect(panels).toHaveLength(1);
    expect(panels[0].element.hidden).toBe(false);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(toggle.getAttribute('aria-controls')).toBe(panels[0].element.id);
    toggle.click();
    expect(panels[0].element.hidden).toBe(true);
    toggle.click();
    escape(panels[0].element);
    expect(panels[0].element.hidden).toBe(true);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(toggle);
  });
});

describe('the embed panel of a step', () => {
  test('shown, it writes the element and iframe snippets of the settings current then, and copies the element one', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    let settings: Settings = { ...DEFAULT_SETTINGS, weights: 'random', sentence: 'fish swim in water', heads: 2, seed: 99 };
    const training = trainDefaultsFor('induction');
    const code = embedCode(softmaxStep, () => ({ settings, training }));
    const section = document.body.appendChild(document.createElement('section'));
    const tools = section.appendChild(exportToolbar({ label: () => 'weights', csv: () => '', embed: code }));
    tools.querySelector<HTMLButtonElement>('.export-toggle')!.click();
    const action = [...tools.querySelectorAll('button')].find((b) => b.textContent === 'Embed this step')!;
    action.click();
    const [elementCode, iframeCode] = [...tools.querySelectorAll('textarea')];
    expect(elementCode.getAttribute('aria-label')).toBe('Custom element snippet');
    const base = new URL('./', document.baseURI).href;
    expect(elementCode.value).toBe(elementSnippet('softmax', { settings, training }, base));
    expect(elementCode.value).toMatch(/<attention-softmax [^>]*tokens="fish swim in water"/);
    for (const attribute of ['heads="2"', 'seed="99"', 'weights="random"']) expect(elementCode.value).toContain(attribute);
    expect(iframeCode.value).toBe(iframeSnippet(softmaxStep, { settings, training }, base));
    await vi.waitFor(() => expect(writeText).toHaveBeenCalledWith(elementCode.value));
    expect(tools.querySelector('[role="status"].hint')!.textContent).toBe('Copied the element snippet.');

    // New settings, shown again: the new snippets.
    settings = { ...settings, sentence: 'birds fly' };
    action.click(); // hide
    action.click();
    expect(elementCode.value).toContain('tokens="birds fly"');
    expect(iframeCode.value).toContain('tokens=birds+fly');
    vi.unstubAllGlobals();
  });
});
