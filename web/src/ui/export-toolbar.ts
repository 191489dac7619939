// The small menu under every table and chart, with the author tools for that figure: copying text to
// the clipboard (with a select-the-text fallback where the clipboard is blocked), saving files through
// <a download> with a blob: URL and, where the page offers it, "Embed this step" (the snippets that
// show the figure's section on another page). What is copied or saved comes from the figure
// (export-text.ts, export-svg.ts, a chart's svgFile); the embed panel comes from the page (the element
// layer makes it and hands it to the step through its context, steps/types.ts).
import { el, setText } from './dom';
import { fileStem } from './export-text';
import { rasterize, type SvgFile } from './export-svg';
import { readPalette, type Palette } from './palette';

/** Starts a download of the blob; false when the browser refused. */
function download(blob: Blob, name: string, host: Element | ShadowRoot | null = null): boolean {
  let url = '';
  try {
    url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: name, hidden: true });
    (host ?? document.body).appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30_000);
    return true;
  } catch {
    if (url) URL.revokeObjectURL(url);
    return false;
  }
}

/** The clipboard; false when there is none or it is blocked (the caller then offers the text to copy by hand). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (typeof navigator !== 'undefined' && navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Blocked (an iframe without clipboard-write, no focus, no permission): the caller falls back.
  }
  return false;
}

/** One figure menu's "Embed this step" panel: the snippets and their Copy buttons. */
export interface EmbedPanel {
  /** Hidden until shown; the menu places it under its actions. */
  readonly element: HTMLElement;
  /** Writes the snippets for the current settings, shows them and copies the element snippet. */
  show(): void;
}

/** "Embed this step" for every figure menu of one step (made by the page; absent where it offers none). */
export interface EmbedCode {
  /** A panel for one menu (made when the reader first asks for it). */
  panel(): EmbedPanel;
}

export interface ExportSource {
  /** What the files and copies are of, for labels and file names. */
  label: () => string;
  csv?: () => string;
  numpy?: () => string;
  svg?: () => SvgFile;
  /** The step's embed code: the menu then offers "Embed this step". */
  embed?: EmbedCode;
}

/** The menu's visible name, from what it offers: "Copy, save or embed", "Save or embed", "Copy or save"… */
export function menuLabel(source: Pick<ExportSource, 'csv' | 'numpy' | 'svg' | 'embed'>): string {
  const verbs = [source.csv || source.numpy ? 'copy' : '', source.svg ? 'save' : '', source.embed ? 'embed' : ''].filter(Boolean);
  if (verbs.length === 1 && source.embed) return 'Embed this step';
  const text = verbs.length > 1 ? `${verbs.slice(0, -1).join(', ')} or ${verbs.at(-1)}` : (verbs[0] ?? '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

let uid = 0;

/**
 * The menu under a figure: a quiet button ("Copy, save or embed") that opens Copy CSV, Copy NumPy, Save
 * PNG, Save SVG and Embed this step. Enter or Space opens it, Tab moves through the actions, Escape
 * closes it and gives the focus back to the button. Status in a polite live region; when the clipboard
 * is blocked, the text appears selected in a box to copy by hand.
 */
export function exportToolbar(source: ExportSource): HTMLElement {
  const id = `export-${++uid}`;
  const menu = el('div', { class: 'export-menu', id: `${id}-menu`, role: 'group', hidden: true });
  const toggle = el(
    'button',
    { type: 'button', class: 'export-toggle', 'aria-expanded': 'false', 'aria-controls': `${id}-menu` },
    menuLabel(source),
  );
  const status = el('p', { class: 'export-status', role: 'status' });
  const element = el('div', { class: 'export-tools' }, toggle, menu, status);
  // Made on the first blocked copy: Chromium's autofill walks every text field on the page after each
  // settings change (forcing a style and layout pass per field), and the page has one toolbar per figure.
  let fallback: HTMLTextAreaElement | null = null;

  const say = (text: string) => {
    setText(status, text);
  };
  const copy = async (what: string, text: string) => {
    if (fallback) fallback.hidden = true;
    if (await copyText(text)) {
      say(`Copied ${what} of ${source.label()}.`);
      return;
    }
    fallback ??= element.appendChild(el('textarea', { class: 'export-fallback', readonly: true, rows: 6, spellcheck: 'false' }));
    fallback.value = text;
    fallback.setAttribute('aria-label', `${what} of ${source.label()}`);
    fallback.hidden = false;
    fallback.focus();
    fallback.select();
    say('The clipboard is blocked here, so the text is selected in the box below: press Ctrl+C (⌘C on a Mac) to copy it.');
  };
  const save = async (kind: 'png' | 'svg') => {
    if (!source.svg) return;
    const name = `${fileStem(source.label())}.${kind}`;
    const host = element.getRootNode() as ShadowRoot | Document;
    const parent = host instanceof Document ? null : host;
    try {
      const file = source.svg();
      const blob = kind === 'svg' ? new Blob([file.svg], { type: 'image/svg+xml' }) : await rasterize(file);
      say(
        download(blob, name, parent)
          ? `Saved ${name} (look in your downloads; if nothing arrived, this page does not allow downloads).`
          : `The browser refused to save ${name}: this page does not allow downloads.`,
      );
    } catch (error) {
      say(`Could not save ${name}: ${error instanceof Error ? error.message : String(error)}.`);
    }
  };
  const button = (text: string, run: () => void) => {
    const b = el('button', { type: 'button', class: 'export-action' }, text);
    b.addEventListener('click', run);
    return b;
  };
  if (source.csv) menu.append(button('Copy CSV', () => void copy('CSV', source.csv!())));
  if (source.numpy) menu.append(button('Copy NumPy', () => void copy('a NumPy array', source.numpy!())));
  if (source.svg)
    menu.append(
      button('Save PNG', () => void save('png')),
      button('Save SVG', () => void save('svg')),
    );
  // "Embed this step": its panel opens under the menu (made on the first press: see the fallback above).
  // A menu with nothing else to offer is that one button: it opens the panel itself.
  const embedOnly = Boolean(source.embed) && menu.childElementCount === 0;
  let embedPanel: EmbedPanel | null = null;
  const embedButton = !source.embed
    ? null
    : embedOnly
      ? toggle
      : el('button', { type: 'button', class: 'export-action', 'aria-expanded': 'false' }, 'Embed this step');
  const embedOpen = () => embedButton?.getAttribute('aria-expanded') === 'true';
  const showEmbed = (open: boolean) => {
    if (!embedButton || !source.embed) return;
    if (open) {
      if (!embedPanel) {
        embedPanel = source.embed.panel();
        embedPanel.element.id = `${id}-embed`;
        embedButton.setAttribute('aria-controls', embedPanel.element.id);
        element.insertBefore(embedPanel.element, status);
      }
      say('');
      embedPanel.show();
    } else if (embedPanel) embedPanel.element.hidden = true;
    embedButton.setAttribute('aria-expanded', String(open));
  };
  if (embedOnly) {
    menu.remove();
    toggle.removeAttribute('aria-controls'); // until the panel is made
  } else if (embedButton) {
    embedButton.addEventListener('click', () => showEmbed(!embedOpen()));
    menu.append(embedButton);
  }

  const setOpen = (open: boolean) => {
    menu.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) menu.setAttribute('aria-label', `${menuLabel(source)}: ${source.label()}`);
    else showEmbed(false);
  };
  toggle.addEventListener('click', () => (embedOnly ? showEmbed(!embedOpen()) : setOpen(menu.hidden)));
  element.addEventListener('keydown', (event) => {
    // Arrow keys stay here (a figure around the table may use them to step).
    if (event.key.startsWith('Arrow')) event.stopPropagation();
    if (event.key === 'Escape' && (embedOnly ? embedOpen() : !menu.hidden)) {
      if (embedOnly) showEmbed(false);
      else setOpen(false);
      toggle.focus();
      event.stopPropagation();
    }
  });
  return element;
}

/** The menu (Save PNG, Save SVG, Embed this step) for a chart: the builder makes the file from its data. */
export function figureTools(
  anchor: () => Element,
  label: () => string,
  build: (palette: Palette) => SvgFile,
  embed?: EmbedCode,
): HTMLElement {
  return el('div', { class: 'chart-tools' }, exportToolbar({ label, svg: () => build(readPalette(anchor())), embed }));
}

/** What a chart is to its menu: its element (whose theme the file takes) and its picture as a file. */
export interface ExportableChart {
  readonly element: Element;
  svgFile(palette: Palette): SvgFile;
}

/** figureTools for a chart that draws its own file, under a fixed name. */
export function chartTools(chart: ExportableChart, label: string, embed?: EmbedCode): HTMLElement {
  return figureTools(
    () => chart.element,
    () => label,
    (palette) => chart.svgFile(palette),
    embed,
  );
}

/** A menu with only "Embed this step", for a section without a figure menu of its own (placed at its end). */
export function embedTools(label: () => string, embed: EmbedCode): HTMLElement {
  return el('div', { class: 'chart-tools step-tools' }, exportToolbar({ label, embed }));
}
