import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { katexFormulas } from './web/tooling/katex-formulas';
import { preloadEngine } from './web/tooling/preload-engine';
import { prerenderWalkthrough } from './web/tooling/prerender-walkthrough';

// The site lives in web/; `npm run build` writes the deployable static site to dist/.
export default defineConfig({
  root: resolve(import.meta.dirname, 'web'),
  base: './',
  plugins: [katexFormulas(), prerenderWalkthrough(['index.html']), preloadEngine(['index.html'])],
  publicDir: false,
  build: {
    outDir: resolve(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0, // the .wasm must stay a file served as application/wasm
    rollupOptions: {
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
