import { defineConfig } from 'vitest/config';

// `npm run test:system`: tests that need a system package (bubblewrap, ripgrep, chromium,
// redis-server); `.ci/run` installs them first.
export default defineConfig({
  test: {
    include: ['{kernel,plugins,cli,bench,examples,docs,test}/**/*.system.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['kernel/test/setup-home.ts'],
  },
});
