import { defineConfig } from 'vitest/config';

// Unit tests run in Node against the real .wasm (tests/unit). Browser tests have their own config.
export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
  },
});
