// Step 1's figure: the sentence as chips (a radio group: the token to follow), the question asked of
// that token and its mixture as bars (the chips shaded by the same shares), from the reader model's
// resolving head (or, with random weights, the shown head). While the reader model loads the figure
// keeps its shape with empty bars; if it failed, a line in place says so. Choosing a chip tells the step, which reads the new mixture.
import { BarChart } from '../../ui/bars';
import { el, setText } from '../../ui/dom';
import { chartTools } from '../../ui/export-toolbar';
import { percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import { readerStatus, readerViewSummary } from '../../features/reader/figure';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { numbersLine, type Figure } from '../shared/figure';
import { modelSummary } from '../shared/which-model';
import { defaultFocus, loadingBars, mixtureBars, shownReader, shownRow, shownWords } from './mixture';
import { barsCaption, figureIntro, focusQuestion } from './prose';

export class MixtureFigure implements Figure {
  readonly element: HTMLElement;
  private readonly line = numbersLine();
  /** Why there is nothing to draw yet: the reader model is loading, or could not load. */
  private readonly status = el('p', { class: 'problem-status', role: 'status', hidden: true });
  /** Everything drawn from the model's numbers, hidden while there are none. */
  private readonly drawn: HTMLElement;
  private readonly chips = el('div', {
    class: 'problem-tokens',
    role: 'radiogroup',
    'aria-label': 'The sentence, one token per word: choose the token to follow',
  });
  private readonly question = el('p', { class: 'problem-question' });
  private readonly intro = el('p', { class: 'problem-intro' });
  private readonly bars = new BarChart({
    caption: '',
    labelHeader: 'token',
    valueHeader: 'share of the mixture',
    className: 'problem-bars',
  });
  private snapshot: Snapshot | null = null;
  /** The token the reader picked, or null to follow the default (“it”, else the last token). */
  private picked: number | null = null;
  private sentenceKey = '';

  constructor(
    embed: EmbedCode | undefined,
    private readonly onChoose: () => void,
  ) {
    const bars = this.bars;
    this.drawn = el(
      'div',
      { class: 'problem-drawn' },
      this.intro,
      this.chips,
      this.question,
      el('div', { class: 'problem-chart' }, bars.element),
      chartTools(bars, 'The mixture of one token', embed),
    );
    this.element = el('figure', { class: 'figure problem-figure' }, this.line.element, this.status, this.drawn);
    this.chips.addEventListener('click', (event) => {
      const chip = (event.target as HTMLElement).closest<HTMLElement>('.problem-chip');
      if (chip) this.choose(Number(chip.dataset.index), false);
    });
    // A radio group: arrow keys move and choose, Home/End jump to the ends.
    this.chips.addEventListener('keydown', (event) => {
      const chip = (event.target as HTMLElement).closest<HTMLElement>('.problem-chip');
      if (!chip || !this.snapshot) return;
      const last = shownWords(this.snapshot).length - 1;
      const at = Number(chip.dataset.index);
      const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: last }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      this.choose(Math.max(0, Math.min(last, next)), true);
    });
  }

  /** The token followed: the reader's pick, or the default. */
  get focus(): number {
    if (!this.snapshot) return 0;
    return this.picked !== null && this.picked < shownWords(this.snapshot).length ? this.picked : defaultFocus(this.snapshot);
  }

  render(next: Snapshot): void {
    this.snapshot = next;
    const { reader } = next;
    this.line.show(reader ? readerViewSummary(reader) : modelSummary(next));
    const waiting = reader !== null && reader.status !== 'ready' ? reader : null;
    // Failed: a line says why in place of the figure. Loading: the figure keeps its shape (the sentence's
    // chips, one empty bar per token, the loading line as the bars' caption), so that nothing on screen
    // moves when the model arrives.
    const failed = waiting?.status === 'failed';
    if (this.status.hidden !== !failed) this.status.hidden = !failed;
    if (this.drawn.hidden !== failed) this.drawn.hidden = failed;
    if (failed) {
      setText(this.status, readerStatus(waiting));
      return;
    }
    const words = shownWords(next);
    const unknown = shownReader(next)?.unknown ?? [];
    const key = `${words.join('\u0001')}|${unknown.join()}`;
    if (key !== this.sentenceKey) {
      // A new sentence (or the same one read by the other model): follow the default token again and rebuild the chips.
      this.sentenceKey = key;
      this.picked = null;
      this.buildChips(words, unknown);
    }
    if (waiting) this.showLoading(next, readerStatus(waiting));
    else this.show(next);
  }

  /** While the reader model loads: the sentence and its question, and as many bars as the figure will have, empty. */
  private showLoading(next: Snapshot, status: string): void {
    const focus = this.focus;
    setText(this.intro, figureIntro(next));
    setText(this.question, focusQuestion(next, focus));
    this.bars.update(loadingBars(shownWords(next)), status);
  }

  private choose(index: number, moveFocus: boolean): void {
    this.picked = index;
    if (!this.snapshot) return;
    this.show(this.snapshot);
    this.onChoose();
    if (moveFocus) (this.chips.children[index] as HTMLElement | undefined)?.focus();
  }

  private buildChips(tokens: string[], unknown: readonly boolean[]): void {
    this.chips.replaceChildren(
      ...tokens.map((token, i) =>
        el(
          'button',
          {
            type: 'button',
            class: `problem-chip${unknown[i] ? ' problem-chip-unknown' : ''}`,
            role: 'radio',
            'data-index': i,
            'aria-checked': 'false',
            tabindex: -1,
            'aria-description': unknown[i] ? 'not in the model’s vocabulary' : null,
          },
          token,
          unknown[i] ? el('span', { class: 'problem-chip-mark', 'aria-hidden': 'true' }, '?') : null,
        ),
      ),
    );
  }

  private show(next: Snapshot): void {
    const focus = this.focus;
    const row = shownRow(next, focus);
    const labels = tokenLabels(shownWords(next));
    let peak = 0;
    for (const w of row) peak = Math.max(peak, w);

    // Only what changed is written: a chip left as it was is not restyled or repainted.
    Array.from(this.chips.children).forEach((node, j) => {
      const chip = node as HTMLElement;
      const chosen = j === focus;
      const shade = String(Math.round((peak > 0 ? row[j] / peak : 0) * 10));
      const title = `${quoted(labels[focus])} draws ${percent(row[j])} from ${quoted(labels[j])}`;
      if (chip.getAttribute('aria-checked') !== String(chosen)) chip.setAttribute('aria-checked', String(chosen));
      if (chip.tabIndex !== (chosen ? 0 : -1)) chip.tabIndex = chosen ? 0 : -1;
      chip.classList.toggle('chosen', chosen);
      if (chip.dataset.shade !== shade) chip.dataset.shade = shade;
      if (chip.title !== title) chip.title = title;
    });
    setText(this.intro, figureIntro(next));
    setText(this.question, focusQuestion(next, focus));
    this.bars.update(mixtureBars(next, focus), barsCaption(next, focus));
  }
}
