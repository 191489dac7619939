// Adds <link rel="preload" as="fetch"> for the engine's hashed .wasm to the walkthrough page, so the
// download starts while the HTML is parsed instead of after the scripts have run. `as="fetch"` with
// `crossorigin` matches the engine's own fetch (cors mode, same-origin credentials), so the browser
// reuses the preloaded response instead of downloading it twice.
import type { Plugin } from 'vite';

export function preloadEngine(pages: readonly string[]): Plugin {
  return {
    name: 'preload-engine',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        if (!context.bundle || !pages.some((page) => context.filename.endsWith(page))) return [];
        const wasm = Object.keys(context.bundle).find((file) => /attention_engine-[\w-]+\.wasm$/.test(file));
        if (!wasm) throw new Error('preload-engine: the build emitted no attention_engine-*.wasm');
        return [
          {
            tag: 'link',
            attrs: { rel: 'preload', as: 'fetch', type: 'application/wasm', crossorigin: '', href: `./${wasm}` },
            injectTo: 'head',
          },
        ];
      },
    },
  };
}
