// Formulas are written as tex`...` in the step files and replaced at build time (and in Vitest)
// by { mathml } objects holding their KaTeX MathML (web/tooling/katex-formulas.ts). What reaches this module is our own
// build output, never reader input.
export interface Formula {
  readonly mathml: string;
}

/** Reached only if the build-time plugin did not run: fail loudly instead of showing raw TeX. */
export function tex(strings: TemplateStringsArray): Formula {
  throw new Error(`formula not pre-rendered: ${strings.raw.join('')}`);
}

export function formulaElement(formula: Formula, label = 'Formula'): HTMLElement {
  const holder = document.createElement('div');
  holder.className = 'formula';
  // A wide formula scrolls sideways on phones; a scrollable region must be reachable by keyboard.
  holder.setAttribute('role', 'group');
  holder.setAttribute('aria-label', label);
  holder.tabIndex = 0;
  holder.innerHTML = formula.mathml; // build-time KaTeX output (see above)
  return holder;
}
