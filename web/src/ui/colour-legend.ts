// The key to a heatmap's colours: a gradient bar with the values at its ends (−max, 0, +max on a
// diverging scale; 0 and max on a sequential one), the hues named in words, and the whole scale as one
// sentence for screen readers. The bar's colours are mixed by palette.ts from the theme's colours
// (colourStops), the very function the pictures and saved files use for cells, so the bar shows what
// the cells show; the ticks are colourSpan() of the extent the table colours its cells by, written in
// the table's own number format.
//
// About eight elements per legend: one gradient (a custom property, so no inline style attribute)
// instead of an element per step. The gradient is mixed in an animation frame, once per theme and cap:
// reading the theme's colours there costs no extra style recalculation.
import { el, paintInNextFrame, setText, setVar } from './dom';
import {
  colourGradient,
  colourStops,
  HUES,
  prefersDark,
  readPalette,
  watchColourScheme,
  type ColourSchemeWatcher,
  type ColourSpan,
  type Palette,
} from './palette';

/** How a legend writes a value: the table's cell format. */
export type LegendFormat = (value: number) => string;

export class ColourLegend implements ColourSchemeWatcher {
  readonly element: HTMLElement;
  private readonly words: HTMLElement;
  private readonly bar: HTMLElement;
  private readonly ticks: HTMLElement;
  private scale: ColourSpan['scale'] | null = null;
  private colourOnly = false;
  /** Scale, cap and theme the bar was last mixed for: a new one mixes it again. */
  private paintedKey = '';

  /**
   * @param meaning What a stronger colour means on a sequential scale, e.g. "a larger share"
   *   (default "a larger value"); a diverging scale names its two hues instead.
   */
  constructor(private readonly meaning = 'a larger value') {
    this.words = el('span', { class: 'colour-legend-words' });
    this.bar = el('span', { class: 'colour-legend-bar' });
    this.ticks = el('span', { class: 'colour-legend-ticks' });
    // role="img": the parts are one picture whose name is the whole scale in a sentence.
    this.element = el(
      'div',
      { class: 'colour-legend', role: 'img', hidden: true },
      this.words,
      el('span', { class: 'colour-legend-scale' }, this.bar, this.ticks),
    );
    watchColourScheme(this);
  }

  /** The reader's light/dark setting changed: mix the bar again with the theme's colours. */
  colourSchemeChanged(): void {
    this.schedulePaint();
  }

  /** The scale to show (null: no colours, no legend); `colourOnly`: cells without numbers (the full-strength cap). */
  update(span: ColourSpan | null, format: LegendFormat, colourOnly = false): void {
    this.element.hidden = span === null;
    if (!span) return;
    const ticks = span.ticks.map((value, i) => tickText(value, format, span.scale === 'diverging' && i === span.ticks.length - 1));
    // New numbers rewrite the ticks' text; only a new scale (two ticks or three) changes the elements.
    if (this.ticks.children.length !== ticks.length)
      this.ticks.replaceChildren(...ticks.map(() => el('span', { class: 'colour-legend-tick' })));
    ticks.forEach((text, i) => setText(this.ticks.children[i] as HTMLElement, text));
    const diverging = span.scale === 'diverging';
    setText(
      this.words,
      diverging ? `${HUES.negative} negative, ${HUES.positive} positive` : `a stronger ${HUES.sequential} means ${this.meaning}`,
    );
    const label = diverging
      ? `Colour scale: ${HUES.negative} for negative values down to ${ticks[0]}, neutral at ${ticks[1]}, ${HUES.positive} for positive values up to ${ticks[2]}.`
      : `Colour scale: a stronger ${HUES.sequential} means ${this.meaning}, from ${ticks[0]} (faintest) to ${ticks[1]} (strongest).`;
    if (this.element.getAttribute('aria-label') !== label) this.element.setAttribute('aria-label', label);
    this.element.classList.toggle('colour-legend-diverging', diverging);
    if (span.scale !== this.scale || colourOnly !== this.colourOnly) {
      this.scale = span.scale;
      this.colourOnly = colourOnly;
      this.schedulePaint();
    }
  }

  /** Mixes the bar from `palette` now (the page calls it with the theme's colours). */
  paint(palette: Palette): void {
    if (!this.scale) return;
    const cap = this.colourOnly ? palette.capColourOnly : palette.cap;
    setVar(this.bar, '--legend-gradient', colourGradient(colourStops(this.scale, palette, cap)));
  }

  private schedulePaint(): void {
    paintInNextFrame(
      this,
      (legend) => legend.element.isConnected,
      (legend) => legend.paintFromTheme(),
    );
  }

  private paintFromTheme(): void {
    const dark = prefersDark();
    const key = `${this.scale}|${this.colourOnly}|${dark}`;
    if (key === this.paintedKey || !this.element.isConnected) return;
    this.paintedKey = key;
    this.paint(readPalette(this.element));
  }
}

/** A tick in the table's format; the top of a diverging scale gets its + (the bottom has its minus). */
function tickText(value: number, format: LegendFormat, plus: boolean): string {
  const text = format(value);
  return plus && !/^[+−-]/.test(text) ? `+${text}` : text;
}
