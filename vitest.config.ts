import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { katexFormulas } from './web/tooling/katex-formulas';

// Unit tests run in Node against the real .wasm (tests/unit). Browser tests have their own config.
export default defineConfig({
  plugins: [katexFormulas()],
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    // One worker per core: Vitest's default leaves one core free, and on a 2-core machine that ran
    // the suite in one worker (102 s against 72 s with two).
    maxWorkers: availableParallelism(),
  },
});
