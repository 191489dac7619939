import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { katexFormulas } from './web/tooling/katex-formulas';

// The embeddable bundle: one self-contained ES module (dist/embed/attention-by-hand.js) that
// defines every custom element, with its .wasm next to it. Built as an app entry rather than in
// library mode, because library mode inlines assets and a data: URL wasm would need a CSP
// exception; a file next to the script works under `default-src 'self'` and cross-origin (CORS).
export default defineConfig({
  root: resolve(import.meta.dirname, 'web'),
  base: './',
  publicDir: false,
  plugins: [katexFormulas()],
  build: {
    outDir: resolve(import.meta.dirname, 'dist/embed'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rollupOptions: {
      input: { 'attention-by-hand': resolve(import.meta.dirname, 'web/src/elements/index.ts') },
      preserveEntrySignatures: 'exports-only',
      output: {
        entryFileNames: '[name].js',
        assetFileNames: '[name]-[hash][extname]',
        inlineDynamicImports: true,
      },
    },
  },
  // The "Run it on my machine" figure's Web Worker is a second, separate bundle (inlineDynamicImports does
  // not apply to it). Flat names put it and its .wasm next to the element script, so the worker reuses the
  // same .wasm file (and the browser's cached copy) instead of a duplicate under assets/.
  worker: {
    rolldownOptions: {
      output: { entryFileNames: '[name]-[hash].js', assetFileNames: '[name]-[hash][extname]' },
    },
  },
});
