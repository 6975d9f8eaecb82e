import { defineConfig } from 'vitest/config';

// `npm test`: self-contained, nothing outside the repository is read.
export default defineConfig({
  test: {
    include: ['{kernel,plugins,agent,simulator,testing,cli,bench,queue,batch,examples,docs,test}/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', '**/*.traces.test.ts', '**/*.system.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles: ['kernel/test/setup-home.ts'],
  },
});
