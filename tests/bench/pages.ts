// The bench's Chromium pages, built with Vite: the kernel suite (tests/bench/page, driven by browser.ts)
// and the training step (tests/bench/peers/training-page, driven by training.ts). Each folder holds only
// its main.ts; the HTML around it is the one shell below, handed to Vite as the folder's index.html.
import { copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'vite';

const require = createRequire(import.meta.url);

/** tfjs-backend-wasm's binaries: both pages run the tfjs peer, which loads them from beside the page. */
const TFJS_WASM_FILES = ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm'];

/** `entry` (a folder's index.html, which is not on disk) as the page shell: main.ts writes its progress to #status. */
function pageShell(entry: string, title: string): Plugin {
  const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>attention-by-hand: ${title}</title>
</head>
<body>
  <p id="status">Loading…</p>
  <script type="module" src="./main.ts"></script>
</body>
</html>
`;
  return {
    name: 'bench-page-shell',
    enforce: 'pre',
    resolveId: (id) => (id === entry ? id : null),
    load: (id) => (id === entry ? html : null),
  };
}

/** Builds `sourceDir`'s main.ts in the page shell into `outDir` (emptied first), tfjs-backend-wasm's binaries beside it. */
export async function buildPage(sourceDir: string, outDir: string, title: string): Promise<void> {
  const entry = join(sourceDir, 'index.html');
  await build({
    configFile: false,
    root: sourceDir,
    base: './',
    logLevel: 'warn',
    publicDir: false,
    plugins: [pageShell(entry, title)],
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 0,
      chunkSizeWarningLimit: 1e9,
      rollupOptions: { input: entry },
    },
  });
  const tfDist = join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist');
  for (const file of TFJS_WASM_FILES) copyFileSync(join(tfDist, file), join(outDir, file));
}
