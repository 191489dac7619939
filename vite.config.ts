import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { docsPage } from './web/tooling/docs-page';
import { inlinePageCss } from './web/tooling/inline-page-css';
import { katexFormulas } from './web/tooling/katex-formulas';
import { prerenderWalkthrough } from './web/tooling/prerender-walkthrough';

// The site lives in web/; `npm run build` writes the deployable static site to dist/.
export default defineConfig({
  root: resolve(import.meta.dirname, 'web'),
  base: './',
  plugins: [katexFormulas(), docsPage('docs.html'), prerenderWalkthrough(['index.html']), inlinePageCss(['index.html'])],
  publicDir: false,
  build: {
    outDir: resolve(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0, // the .wasm must stay a file served as application/wasm
    // The one stylesheet is the page's own (page.css; the elements' CSS lives in their shadow roots).
    // Every page has it before any script runs (index.html inlines it, docs and embed link it): one
    // file, so a dynamic import does not fetch and apply it a second time.
    cssCodeSplit: false,
    rollupOptions: {
      output: {
        // The steps fetched at their first drawing (elements/lazy-step.ts) are named for their feature or step
        // folder (step-flash, step-cost): a reader (or tests/browser/loading.test.ts, which blocks one) sees
        // which step a chunk is.
        chunkFileNames: (chunk) => {
          const folder = /(?:features\/|steps\/\d+-)([\w-]+)\/step\.ts$/.exec(chunk.facadeModuleId ?? '')?.[1];
          return folder ? `assets/step-${folder}-[hash].js` : 'assets/[name]-[hash].js';
        },
        assetFileNames: (asset) =>
          asset.names.some((name) => name.endsWith('.css')) ? 'assets/page-[hash][extname]' : 'assets/[name]-[hash][extname]',
      },
      input: {
        index: resolve(import.meta.dirname, 'web/index.html'),
        embed: resolve(import.meta.dirname, 'web/embed.html'),
        docs: resolve(import.meta.dirname, 'web/docs.html'),
      },
    },
  },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4173 },
});
