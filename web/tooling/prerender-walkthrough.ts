// Prerenders the page's <attention-walkthrough> into the built HTML: every step's prose, formulas and
// figures at the default settings (the article's four-token example), so a reader without JavaScript,
// or before the script and the engine have loaded, reads the whole explanation with its numbers.
//
// At `vite build` the real element runs in Node (web/tooling/walkthrough-markup.ts, loaded through
// Vite by load-web-module.ts so its CSS imports and build-time formulas resolve as in the bundle) on a happy-dom window,
// with the real engine and the shipped weights. Its shadow root goes into the page as a declarative
// shadow root, which the element adopts when its script runs and replaces with the live drawing.
//
// The shadow root's CSS is an inline <style>: a <link> stylesheet inside a shadow root does not block
// rendering (the unstyled prose would paint, then jump), and document-level stylesheets do not reach
// into the shadow root. Under a strict CSP (style-src 'self'), a host adds the hash the build prints.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Window } from 'happy-dom';
import type { Plugin } from 'vite';
import { withWebModules } from './load-web-module';
import type { WalkthroughMarkup } from './walkthrough-markup';

const web = resolve(import.meta.dirname, '..');
const OPENING_TAG = /<attention-walkthrough\b([^>]*)>/;

/** The opening tag's attributes: `name` or `name="value"` (all the page uses). */
function attributesOf(source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [, name, , value] of source.matchAll(/([a-z][\w-]*)(\s*=\s*"([^"]*)")?/g)) attributes[name] = value ?? '';
  return attributes;
}

/**
 * Runs `render` with happy-dom's window as the global scope (what the element's modules expect), and
 * puts Node's globals back afterwards. IntersectionObserver stays absent: the element then starts at
 * once and draws every step, as it does in a browser without one.
 */
async function withWindow<T>(render: () => Promise<T>): Promise<T> {
  const window = new Window({ url: 'http://localhost/', width: 1280, height: 900 });
  const scope = globalThis as Record<string, unknown>;
  // DOM classes and functions Node lacks, plus the event classes Node has its own of (happy-dom's
  // dispatchEvent wants its own events).
  const keys = new Set<string>(['window', 'self', 'document', 'Event', 'CustomEvent', 'EventTarget']);
  for (let object: object | null = window; object && object !== Object.prototype; object = Object.getPrototypeOf(object)) {
    for (const key of Object.getOwnPropertyNames(object)) if (!(key in scope) && key !== 'IntersectionObserver') keys.add(key);
  }
  const saved = new Map<string, PropertyDescriptor | undefined>();
  for (const key of keys) {
    saved.set(key, Object.getOwnPropertyDescriptor(scope, key));
    const value = key === 'window' || key === 'self' ? window : (window as unknown as Record<string, unknown>)[key];
    const bound = typeof value === 'function' && !/^[A-Z]/.test(key) ? value.bind(window) : value;
    Object.defineProperty(scope, key, { value: bound, configurable: true, writable: true });
  }
  try {
    return await render();
  } finally {
    for (const [key, descriptor] of saved) {
      if (descriptor) Object.defineProperty(scope, key, descriptor);
      else delete scope[key];
    }
    await window.happyDOM.abort();
    window.close();
  }
}

async function prerender(attributes: Record<string, string>): Promise<WalkthroughMarkup> {
  const wasm = new Uint8Array(readFileSync(resolve(web, 'src/engine/generated/attention_engine.wasm')));
  // The copy draws every step, the later module's too (the page fetches that one at such a step's first drawing).
  const laterWasm = new Uint8Array(readFileSync(resolve(web, 'src/engine/generated/attention_engine_later.wasm')));
  const weights = new Uint8Array(readFileSync(resolve(web, 'src/model/who-is-it.bin')));
  // Step 1's reader model at the default settings (no causal mask).
  const reader = new Uint8Array(readFileSync(resolve(web, 'src/model/reader.bin')));
  const readerAliases = new Uint8Array(readFileSync(resolve(web, 'src/model/reader-aliases.txt')));
  return withWebModules((load) =>
    withWindow(async () => {
      const module = await load<typeof import('./walkthrough-markup')>('tooling/walkthrough-markup.ts');
      return module.walkthroughMarkup(attributes, { wasmBinary: wasm, laterWasmBinary: laterWasm }, weights, reader, readerAliases);
    }),
  );
}

/** The sha256 source a CSP's style-src names an inline <style> by. */
export function styleHash(css: string): string {
  return `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
}

export function prerenderWalkthrough(pages: readonly string[]): Plugin {
  return {
    name: 'prerender-walkthrough',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      async handler(html, context) {
        if (!pages.some((page) => context.filename.endsWith(page))) return html;
        const opening = OPENING_TAG.exec(html);
        if (!opening) throw new Error(`prerender-walkthrough: ${context.filename} has no <attention-walkthrough>`);
        const { html: content, css } = await prerender(attributesOf(opening[1]));
        if (/<\/style/i.test(css)) throw new Error('prerender-walkthrough: the element CSS contains </style');
        this.info?.(`prerendered the walkthrough; its inline <style> is ${styleHash(css)} for a CSP's style-src`);
        const at = opening.index + opening[0].length;
        return `${html.slice(0, at)}<template shadowrootmode="open"><style>${css}</style>${content}</template>${html.slice(at)}`;
      },
    },
  };
}
