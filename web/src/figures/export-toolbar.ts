// "Copy or save" under every table and chart: copying text to the clipboard (with a select-the-text
// fallback where the clipboard is blocked) and saving files through <a download> with a blob: URL.
// What is copied or saved comes from the figure (export-text.ts, export-svg.ts, a chart's svgFile).
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

export interface ExportSource {
  /** What the files and copies are of, for labels and file names. */
  label: () => string;
  csv?: () => string;
  numpy?: () => string;
  svg?: () => SvgFile;
}

let uid = 0;

/**
 * "Copy or save" under a figure: a button that opens Copy CSV, Copy NumPy, Save PNG, Save SVG. Status in
 * a polite live region; when the clipboard is blocked, the text appears selected in a box to copy by hand.
 */
export function exportToolbar(source: ExportSource): HTMLElement {
  const id = `export-${++uid}`;
  const menu = el('div', { class: 'export-menu', id: `${id}-menu`, role: 'group', hidden: true });
  const toggle = el(
    'button',
    { type: 'button', class: 'export-toggle', 'aria-expanded': 'false', 'aria-controls': `${id}-menu` },
    'Copy or save',
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

  const setOpen = (open: boolean) => {
    menu.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) menu.setAttribute('aria-label', `Copy or save ${source.label()}`);
  };
  toggle.addEventListener('click', () => setOpen(menu.hidden));
  element.addEventListener('keydown', (event) => {
    // Arrow keys stay here (a figure around the table may use them to step).
    if (event.key.startsWith('Arrow')) event.stopPropagation();
    if (event.key === 'Escape' && !menu.hidden) {
      setOpen(false);
      toggle.focus();
      event.stopPropagation();
    }
  });
  return element;
}

/** "Copy or save" (Save PNG, Save SVG) for a figure the page draws without SVG: the builder makes the file. */
export function figureTools(anchor: () => Element, label: () => string, build: (palette: Palette) => SvgFile): HTMLElement {
  return el('div', { class: 'chart-tools' }, exportToolbar({ label, svg: () => build(readPalette(anchor())) }));
}
