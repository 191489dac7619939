// The one box every figure wider than its column scrolls sideways in: tables, code, formulas, charts.
// A reader has to see that it scrolls and be able to scroll it: it is a labelled region (a screen
// reader announces it by name), a tab stop so arrow keys scroll it, and its edges fade out where
// content is hidden on that side (layout.css .scroll-region), because touch and overlay scrollbars
// show nothing until the reader is already scrolling.
import { el } from './dom';

export interface ScrollRegionOptions {
  /** Accessible name, e.g. the table's caption. */
  label: string;
  /** Extra classes, e.g. 'matrix-scroll' for a table's own styling. */
  className?: string;
  /**
   * false when the content is a keyboard grid whose cursor already reaches (and scrolls to) every cell,
   * as a matrix table is (matrix-cursor.ts): a second tab stop in front of it would only be in the way.
   */
  tabStop?: boolean;
  /** 'group' for a formula, whose parts are read as one group. */
  role?: 'region' | 'group';
  /** Other attributes, e.g. a data key. */
  attributes?: Record<string, string | number>;
}

export function scrollRegion(options: ScrollRegionOptions, ...children: Node[]): HTMLElement {
  return el(
    'div',
    {
      ...options.attributes,
      class: options.className ? `scroll-region ${options.className}` : 'scroll-region',
      role: options.role ?? 'region',
      'aria-label': options.label,
      tabindex: options.tabStop === false ? null : 0,
    },
    ...children,
  );
}
