import { describe, expect, it } from 'vitest';
import { callTool, textOf } from '../../../testing/tools.js';
import { findRipgrep } from './ripgrep.js';
import { describeBackend, grepKernel, PARITY_CASES, useGrepFixture } from './test/cases.js';

// ripgrep must be on PATH (`.ci/run` installs the Debian package).
const dir = useGrepFixture();

describe('Grep with ripgrep', () => {
  it('finds ripgrep on this machine', () => {
    expect(findRipgrep(), 'ripgrep (rg) must be on PATH for the ripgrep backend tests').toBeTruthy();
  });

  describeBackend('ripgrep', dir);

  it('gives the same output with ripgrep and with the JS search', async () => {
    const [js, real] = [await grepKernel(dir(), 'js'), await grepKernel(dir(), 'ripgrep')];
    for (const [name, input] of PARITY_CASES) {
      const a = textOf(await callTool(js, 'Grep', input));
      const b = textOf(await callTool(real, 'Grep', input));
      expect(a, name).toBe(b);
    }
  });
});
