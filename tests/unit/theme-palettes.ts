// Both themes' heatmap colours read from tokens.css itself (each `--abh-name: light-dark(#light, #dark)`),
// for tests that check a colour in either theme without copying one. Vitest loads no CSS, so the file
// is read from disk.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LIGHT_PALETTE, parseColour, type Palette, type RGB } from '../../web/src/ui/palette';

export const TOKENS_CSS = readFileSync(resolve(import.meta.dirname, '../../web/src/styles/tokens.css'), 'utf8');

/** A token's colour in one theme. */
export function token(name: string, theme: 'light' | 'dark', css = TOKENS_CSS): RGB {
  const m = new RegExp(`--abh-${name}:\\s*light-dark\\(\\s*(#[0-9a-f]{3,6})\\s*,\\s*(#[0-9a-f]{3,6})\\s*\\)`, 'i').exec(css);
  const colour = m && parseColour(m[theme === 'light' ? 1 : 2]!);
  if (!colour) throw new Error(`tokens.css has no light-dark() colour --abh-${name}`);
  return colour;
}

/** The palette figures read in a theme (readPalette on a styled page), from tokens.css. */
export function themePalette(theme: 'light' | 'dark'): Palette {
  return {
    ...LIGHT_PALETTE,
    pos: token('pos', theme),
    neg: token('neg', theme),
    mid: token('mid', theme),
    seq0: token('seq-0', theme),
    seq1: token('seq-1', theme),
    ink: token('ink', theme),
    muted: token('ink-muted', theme),
    surface: token('surface', theme),
    surface2: token('surface-2', theme),
    rule: token('rule', theme),
  };
}
