// A short listing from the article as a numbered, scrollable code block. The source is our own
// constant text, but it still goes in as text nodes. Line numbers are separate aria-hidden spans,
// so prose can say "line 2" and a screen reader reads only the code; comments are dimmed.
import { el, setText } from './dom';
import { scrollRegion } from './scroll-region';

export interface CodeBlockOptions {
  /** Accessible name of the scrollable region, e.g. "The article’s attention() in NumPy". */
  label: string;
  /** Visible caption under the code. */
  caption?: string;
  /** 1-based lines to emphasise. */
  highlight?: number[];
}

function codeLine(text: string): (Node | string)[] {
  const hash = text.indexOf('#');
  if (hash < 0) return [text];
  return [text.slice(0, hash), el('span', { class: 'code-comment' }, text.slice(hash))];
}

export function codeBlock(source: string, options: CodeBlockOptions): HTMLElement {
  const lines = source.replace(/\n+$/, '').split('\n');
  const width = String(lines.length).length;
  const code = el('code');
  lines.forEach((line, i) => {
    code.append(
      el(
        'span',
        { class: `code-line${options.highlight?.includes(i + 1) ? ' code-line-hl' : ''}`, 'data-line': i + 1 },
        el('span', { class: 'code-ln', 'aria-hidden': 'true' }, String(i + 1).padStart(width, ' ')),
        ...codeLine(line),
      ),
      '\n',
    );
  });
  return el(
    'figure',
    { class: 'code-figure' },
    scrollRegion({ label: options.label, className: 'code-scroll' }, el('pre', { class: 'code' }, code)),
    options.caption ? el('figcaption', {}, options.caption) : null,
  );
}

/** A block of program output (e.g. a live print() of this page's numbers). */
export function outputBlock(label: string): { element: HTMLElement; set(text: string): void } {
  const pre = el('pre', { class: 'code code-output' });
  const element = scrollRegion({ label, className: 'code-scroll' }, pre);
  return {
    element,
    set(text) {
      setText(pre, text);
    },
  };
}
