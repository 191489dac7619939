import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { katexFormulas } from './web/tooling/katex-formulas';
import { packageDescriptions } from './web/tooling/package-declarations';

// The embeddable bundle: one self-contained ES module (dist/embed/attention-by-hand.js) that
// defines every custom element, with its .wasm next to it. Built as an app entry rather than in
// library mode, because library mode inlines assets and a data: URL wasm would need a CSP
// exception; a file next to the script works under `default-src 'self'` and cross-origin (CORS).
//
// This directory is also the npm package's content (package.json `files` and `exports`), so the names
// authors may refer to are stable: attention-by-hand.js, attention-by-hand.wasm (the engine's core),
// attention-by-hand-later.wasm (its later module, fetched when a later step first draws), and the declarations
// attention-by-hand.d.ts and custom-elements.json, both generated from the code by this build
// (web/tooling/package-declarations.ts). Only the worker, an internal file, keeps a hash. Without a hash in
// the .wasm's name, a host keeps script and .wasm in step by versioning the directory (README, "From npm").

/**
 * Asset names: the engine's two .wasm files are `attention-by-hand.wasm` and `attention-by-hand-later.wasm`
 * (package exports; the later module's build name ends in `_later`: web/scripts/build-wasm.mjs); anything
 * else is hashed.
 */
function assetFileNames(asset: { names: string[] }): string {
  const wasm = asset.names.find((name) => name.endsWith('.wasm'));
  if (!wasm) return '[name]-[hash][extname]';
  return wasm.endsWith('_later.wasm') ? 'attention-by-hand-later.wasm' : 'attention-by-hand.wasm';
}

export default defineConfig({
  root: resolve(import.meta.dirname, 'web'),
  base: './',
  publicDir: false,
  plugins: [katexFormulas(), packageDescriptions()],
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
        assetFileNames,
        codeSplitting: false,
      },
    },
  },
  // The "Run it on my machine" figure's Web Worker is a second, separate bundle (inlineDynamicImports does
  // not apply to it). Flat names put it and its .wasm next to the element script, so the worker reuses the
  // same .wasm file (and the browser's cached copy) instead of a duplicate under assets/.
  worker: {
    rolldownOptions: {
      output: { entryFileNames: '[name]-[hash].js', assetFileNames },
    },
  },
});
