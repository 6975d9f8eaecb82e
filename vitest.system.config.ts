import { defineConfig } from 'vitest/config';

// `npm run test:system`: tests that need a system package (ripgrep, chromium, bubblewrap,
// redis-server, jq), which .ci/run installs first. `npm test` leaves them out.
export default defineConfig({
  test: {
    include: ['{kernel,lib,plugins,agent,simulator,testing,cli,bench,queue,batch,examples,docs,test}/**/*.system.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', '**/*.traces.test.ts'],
    // bwrap runs under the suite start several real sandboxed processes per test.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/build-once.ts'],
    setupFiles: ['kernel/test/setup-home.ts'],
  },
});
