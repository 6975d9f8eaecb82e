import { defineConfig } from 'vitest/config';

// `npm run test:traces`: tests that read the real public sessions in ../shared/traces/.
export default defineConfig({
  test: {
    include: ['**/*.traces.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/build-once.ts'],
    setupFiles: ['kernel/test/setup-home.ts'],
  },
});
