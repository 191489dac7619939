// Loads modules of web/ in Node through Vite, for build-time tooling: the settings schema reads the
// engine's limits from the C++ headers with `?raw` imports, and the steps import CSS and build-time
// formulas, which only Vite resolves. A throwaway server without an HTTP listener, closed after use; its
// SSR loader applies the same transforms as the bundle.
import { resolve } from 'node:path';
import { createServer } from 'vite';
import { katexFormulas } from './katex-formulas';

const web = resolve(import.meta.dirname, '..');

/** A loader of modules by their path relative to web/. */
export type WebModuleLoader = <T>(path: string) => Promise<T>;

/** Runs `use` with a loader of web/'s modules, valid until `use` settles. */
export async function withWebModules<R>(use: (load: WebModuleLoader) => Promise<R>): Promise<R> {
  const server = await createServer({
    configFile: false,
    root: web,
    logLevel: 'warn',
    plugins: [katexFormulas()],
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: 'custom',
  });
  try {
    return await use(async <T>(path: string) => (await server.ssrLoadModule(resolve(web, path))) as T);
  } finally {
    await server.close();
  }
}

/** The module at `path` (relative to web/), loaded as the bundle would load it. */
export function loadWebModule<T>(path: string): Promise<T> {
  return withWebModules((load) => load<T>(path));
}
