import { defineConfig } from 'vitest/config';

// Real headless Chromium (Debian's chromium-headless-shell, tests/browser/harness.ts says why) driven
// by playwright-core against the built site in dist/. One file at a time: two cores, one browser.
export default defineConfig({
  // `npm test` runs this suite beside the unit suite (web/scripts/test-all.mjs): a cache of its own keeps
  // the two runs from writing Vitest's results file at the same time.
  cacheDir: 'node_modules/.vite/browser-suite',
  test: {
    include: ['tests/browser/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // One worker process for every file, its modules imported once: isolated, each of the ~25 files
    // imported Vitest's runner, playwright-core, axe and the harness again (about 2–3 s a file on the
    // loaded two-core box: 15.0 s → 4.0 s of imports for four files). Each file still launches its own
    // Chromium and server (harness.ts) and shares no state but those read-only modules.
    isolate: false,
    // expect.poll waits for the page to settle: off-screen sections are drawn only once the settings
    // have been still for 250 ms, then one per idle slice, which on a loaded two-core box can take
    // longer than the default second.
    expect: { poll: { timeout: 10_000 } },
  },
});
