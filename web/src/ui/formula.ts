// Formulas are written as tex`...` in the step files and replaced at build time (and in Vitest)
// by { mathml } objects holding their KaTeX MathML (web/tooling/katex-formulas.ts). What reaches this module is our own
// build output, never reader input.
import { scrollRegion } from './scroll-region';

export interface Formula {
  readonly mathml: string;
}

/** Reached only if the build-time plugin did not run: fail loudly instead of showing raw TeX. */
export function tex(strings: TemplateStringsArray): Formula {
  throw new Error(`formula not pre-rendered: ${strings.raw.join('')}`);
}

export function formulaElement(formula: Formula, label = 'Formula'): HTMLElement {
  // Its clauses wrap on a narrow screen (katex-formulas.ts); one clause wider than the screen scrolls
  // sideways, in the same scroll box as a wide table.
  const holder = scrollRegion({ label, className: 'formula', role: 'group' });
  holder.innerHTML = formula.mathml; // build-time KaTeX output (see above)
  return holder;
}
