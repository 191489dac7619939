// Colour positions for heatmaps. Cells get a number in [-1, 1] (diverging) or [0, 1] (sequential)
// as the CSS custom property --t; the stylesheet mixes the theme's colours with color-mix(), so
// light and dark themes share the code. Table cells carry the position in steps (colourStep, as
// data-t) and the stylesheet turns each step into --t. Both scales are colour-blind safe: sequential is one hue
// (blue), diverging is purple <-> orange (ColorBrewer PuOr), which survives all common forms of
// colour blindness, and the numbers are always there as text.

export type ColourScale = 'diverging' | 'sequential' | 'none';

/** Position of value on the scale, clamped; `extent` is the largest magnitude shown. */
export function colourPosition(value: number, scale: ColourScale, extent: number): number {
  if (!Number.isFinite(value) || scale === 'none') return 0;
  const span = extent > 0 ? extent : 1;
  const t = value / span;
  return scale === 'diverging' ? Math.max(-1, Math.min(1, t)) : Math.max(0, Math.min(1, t));
}

/**
 * Steps per unit of colour position in a table cell's data-t (figures.css has one rule per step).
 * Cells on the same step share one computed style; a per-cell inline --t made every changed cell a
 * full style recalculation (about 50 µs a cell on the benchmark machine). 5% steps of a colour
 * that is capped at 55% behind numbers cannot be told apart.
 */
export const COLOUR_STEPS = 20;

/** A colour position as the whole step a table cell shows, −COLOUR_STEPS to COLOUR_STEPS. */
export function colourStep(position: number): number {
  return Math.round(position * COLOUR_STEPS);
}

/** The largest finite magnitude in data: the diverging scale is symmetric around zero. */
export function extentOf(data: ArrayLike<number>): number {
  let extent = 0;
  for (let i = 0; i < data.length; i++) {
    const v = Math.abs(data[i]);
    if (Number.isFinite(v) && v > extent) extent = v;
  }
  return extent;
}
