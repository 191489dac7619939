// Loads a module of web/ in Node through Vite, for build-time tooling: the settings schema reads the
// engine's limits from the C++ headers with `?raw` imports, and the steps import CSS and build-time
// formulas, which only Vite resolves. A throwaway server without an HTTP listener, closed after use.
import { resolve } from 'node:path';
import { createServer } from 'vite';
import { katexFormulas } from './katex-formulas';

const web = resolve(import.meta.dirname, '..');

/** The module at `path` (relative to web/), loaded as the bundle would load it. */
export async function loadWebModule<T>(path: string): Promise<T> {
  const server = await createServer({
    configFile: false,
    root: web,
    logLevel: 'warn',
    plugins: [katexFormulas()],
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: 'custom',
  });
  try {
    return (await server.ssrLoadModule(resolve(web, path))) as T;
  } finally {
    await server.close();
  }
}
