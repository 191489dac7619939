// The FAQ's fifth answer, why long context is expensive: n² against (4n)², drawn as squares, and what
// the naive and the tiled method hold in memory at 4n (step 10's meter, in small). Counted from n
// and the block size, not from a model's numbers.
import { ratioLabel, scoreEntries } from '../../features/cost/cost-model';
import { el, setText, showChildren, svg } from '../../ui/dom';
import { BarChart } from '../../ui/bars';
import { count } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import { link } from '../shared/prose';
import { question } from './prose';

export class CostAnswer {
  readonly element: HTMLDetailsElement;
  private readonly squares = svg('svg', { class: 'faq-squares', viewBox: '0 0 170 170', role: 'img', width: 170, height: 170 });
  private readonly growth = el('p', { class: 'faq-live faq-growth' });
  private readonly held = new BarChart({
    caption: 'held in memory',
    labelHeader: 'method',
    valueHeader: 'floats per head',
    className: 'faq-held-bars',
    format: (v) => count(v),
  });
  private readonly flashRef = el('span', { class: 'faq-flash-ref' });
  private readonly longContextRef = el('span', { class: 'faq-long-context-ref' });
  private readonly measured = el('p', { class: 'faq-live faq-measured' });

  constructor() {
    this.element = question(
      'Why is long context expensive?',
      el(
        'p',
        {},
        'The score matrix grows with n²: four times the context, sixteen times the work. FlashAttention saves memory, not multiplications (',
        link('#cost', 'step 9'),
        '; ',
        this.flashRef,
        ').',
        this.longContextRef,
      ),
      el('div', { class: 'faq-growth-figure' }, this.squares, this.growth),
      el('figure', { class: 'figure faq-held' }, this.held.element),
      this.measured,
    );
  }

  render({ pipeline: p, settings }: Snapshot): void {
    const n = p.n;
    const now = scoreEntries(n);
    const later = scoreEntries(4 * n);
    const lines: SVGElement[] = [svg('rect', { class: 'faq-square-big', x: 5, y: 5, width: 160, height: 160 })];
    for (let i = 1; i < 4; i++) {
      lines.push(svg('line', { class: 'faq-square-grid', x1: 5 + 40 * i, x2: 5 + 40 * i, y1: 5, y2: 165 }));
      lines.push(svg('line', { class: 'faq-square-grid', x1: 5, x2: 165, y1: 5 + 40 * i, y2: 5 + 40 * i }));
    }
    lines.push(svg('rect', { class: 'faq-square-small', x: 5, y: 5, width: 40, height: 40 }));
    const words = `${n} tokens: ${count(now)} scores per head; ${4 * n} tokens: ${count(later)}, ${ratioLabel(later / now).slice(1)} times as many.`;
    this.squares.setAttribute(
      'aria-label',
      `Two squares: the score matrix for ${n} tokens fits ${later / now} times into the one for ${4 * n} tokens.`,
    );
    showChildren(this.squares, svg('title', {}, words), ...lines);
    setText(this.growth, words);

    // What each method holds at 4n: the whole matrix against one tile.
    const b = Math.min(settings.block, 4 * n);
    const tile = b * b + 3 * b;
    this.held.update(
      [
        { label: 'naive: n × n matrix', value: later, text: `${count(later)} floats` },
        { label: `tiled: ${b} × ${b} + 3 × ${b}`, value: tile, text: `${count(tile)} floats`, emphasis: true },
      ],
      `Held in memory for ${4 * n} tokens, one head`,
    );
    // Links only where the walkthrough has the sections; a single-step embed names them instead.
    const root = this.squares.getRootNode() as Document | ShadowRoot;
    const has = (id: string) => Boolean(root.getElementById?.(id));
    showChildren(this.flashRef, has('flash') ? link('#flash', 'step 10') : 'step 10');
    // The long-context step's two parts, where that step is on the page.
    if (has('long-context'))
      showChildren(
        this.longContextRef,
        ' Computing fewer scores: ',
        link('#long-context', 'windows, sparse patterns and linear attention'),
        '; what generating text keeps in memory: ',
        link('#kv-cache', 'the KV cache'),
        '.',
      );
    else showChildren(this.longContextRef);
    showChildren(
      this.measured,
      `Tiled: ${count(tile)} floats of memory, yet all ${count(later)} scores for ${4 * n} tokens computed. `,
      has('flash-run') ? link('#flash-run', 'Time both methods in your browser') : 'Step 10 times both methods in your browser',
      '.',
    );
  }
}
