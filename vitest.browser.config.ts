import { defineConfig } from 'vitest/config';

// Real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core against the built
// site in dist/. One file at a time: two cores, one browser.
export default defineConfig({
  test: {
    include: ['tests/browser/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
