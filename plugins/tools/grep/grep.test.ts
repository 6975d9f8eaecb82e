import { describe } from 'vitest';
import { describeBackend, useGrepFixture } from './test/cases.js';

// The JS search: what Grep runs where ripgrep is not installed. The ripgrep backend, and the same
// output from both, are tested in grep.system.test.ts (`npm run test:system`, ripgrep installed).
const dir = useGrepFixture();

describe('Grep', () => {
  describeBackend('js', dir);
});
