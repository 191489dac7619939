// Renders every tex`...` formula in web/src at build time with KaTeX, as MathML. The page ships no
// KaTeX code, fonts or CSS, and MathML has no inline styles, so formulas work under a strict CSP.
import katex from 'katex';
import type { Plugin } from 'vite';

const TEX_LITERAL = /\btex`((?:[^`\\]|\\[\s\S])*)`/g;

export function renderTex(source: string): string {
  return katex.renderToString(source, { output: 'mathml', displayMode: true, throwOnError: true, strict: 'error' });
}

export function katexFormulas(): Plugin {
  return {
    name: 'attention-katex-formulas',
    enforce: 'pre',
    transform(code, id) {
      if (!/\/web\/src\/.*\.ts$/.test(id) || !code.includes('tex`')) return null;
      const replaced = code.replace(TEX_LITERAL, (_match, body: string) => {
        // The template's raw text: a backslash-backtick is a literal backtick, everything else is TeX.
        const source = body.replace(/\\`/g, '`');
        return `({ mathml: ${JSON.stringify(renderTex(source))} })`;
      });
      return { code: replaced, map: null };
    },
  };
}
