import { defineConfig } from 'vitest/config';

// `npm test`: self-contained, nothing outside the repository is read, and nothing beside Node and
// npm is needed (tests that need a system package are *.system.test.ts).
export default defineConfig({
  test: {
    include: ['{kernel,lib,plugins,agent,simulator,testing,cli,bench,queue,batch,examples,docs,test}/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', '**/*.traces.test.ts', '**/*.system.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    globalSetup: ['test/build-once.ts'],
    setupFiles: ['kernel/test/setup-home.ts'],
  },
});
