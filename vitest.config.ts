import { defineConfig } from 'vitest/config';
import { katexFormulas } from './web/tooling/katex-formulas';

// Unit tests run in Node against the real .wasm (tests/unit). Browser tests have their own config.
export default defineConfig({
  plugins: [katexFormulas()],
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
  },
});
