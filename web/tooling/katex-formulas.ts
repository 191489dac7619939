// Renders every tex`...` formula in web/src at build time with KaTeX, as MathML. The page ships no
// KaTeX code, fonts or CSS, and MathML has no inline styles, so formulas work under a strict CSP.
//
// MathML has no line breaking in browsers, so a formula of several clauses (`a = …, \qquad b = …`)
// would be one unbreakable line, cut off on a phone. Each top-level clause is rendered as its own
// <math>, and the clauses of a line wrap like words (ui/widgets.css .formula-line): side by side where
// they fit, one under the other where they do not. The rows of a top-level gathered environment are
// lines of their own. A single clause wider than the screen scrolls in its formula box.
import katex from 'katex';
import type { Plugin } from 'vite';

const TEX_LITERAL = /\btex`((?:[^`\\]|\\[\s\S])*)`/g;

/** Spacing commands that separate clauses; the wider one also sets the gap between wrapped clauses. */
const CLAUSE_BREAKS = ['\\qquad', '\\quad'] as const;

const GATHERED = /^\s*\\begin\{gathered\}([\s\S]*)\\end\{gathered\}\s*$/;

function renderMath(source: string): string {
  return katex.renderToString(source, { output: 'mathml', displayMode: true, throwOnError: true, strict: 'error' });
}

/**
 * Splits TeX at `separators` that stand at the top level: outside braces, environments and
 * \left…\right pairs, so a \quad inside \text{…} or a \\ inside cases stays where it is.
 */
export function splitTopLevel(source: string, separators: readonly string[]): { parts: string[]; found: Set<string> } {
  const parts: string[] = [];
  const found = new Set<string>();
  let depth = 0;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    else if (ch === '\\') {
      const command = /^\\([A-Za-z]+|.)/.exec(source.slice(i))![0];
      if (command === '\\begin' || command === '\\left') depth++;
      else if (command === '\\end' || command === '\\right') depth--;
      const separator = depth === 0 ? separators.find((s) => s === command) : undefined;
      if (separator) {
        parts.push(source.slice(start, i));
        found.add(separator);
        start = i + command.length;
      }
      i += command.length - 1; // an escaped brace (\{, \}) is not a group
    }
  }
  parts.push(source.slice(start));
  return { parts: parts.map((part) => part.trim()).filter((part) => part !== ''), found };
}

export function renderTex(source: string): string {
  const gathered = GATHERED.exec(source);
  const lines = gathered ? splitTopLevel(gathered[1], ['\\\\']).parts : [source];
  return lines
    .map((line) => {
      const { parts, found } = splitTopLevel(line, CLAUSE_BREAKS);
      const spacing = found.has('\\qquad') ? 'formula-line' : 'formula-line formula-line-narrow';
      return `<span class="${spacing}">${parts.map(renderMath).join('')}</span>`;
    })
    .join('');
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
