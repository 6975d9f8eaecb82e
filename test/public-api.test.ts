/**
 * The plugin API is one: every value a built-in plugin imports from the public entries of the
 * kernel and lib/, and
 * every compaction helper the compaction strategies share, is exported by the package entry
 * (`rein`, ../index.ts) a plugin of your own imports. So a strategy of your own can do what
 * compaction/snip and compaction/auto do.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { glob } from 'tinyglobby';
import * as rein from '../index.js';
import { REPO } from '../testing/index.js';

/** Value names (not `type` ones) that `file` imports from specifiers matching `from`. */
function importedValues(file: string, from: RegExp): string[] {
  const text = readFileSync(`${REPO}/${file}`, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^import (type )?\{([^}]*)\} from '([^']+)';/gm)) {
    if (m[1] || !from.test(m[3]!)) continue;
    for (const raw of m[2]!.split(',')) {
      const name = raw.trim();
      if (name && !name.startsWith('type ')) out.push(name.split(/\s+as\s+/)[0]!);
    }
  }
  return out;
}

describe('the package entry', () => {
  it('exports every kernel and lib/ value a built-in plugin imports', async () => {
    const files = (await glob('plugins/**/*.ts', { cwd: REPO, ignore: ['**/*.test.ts', '**/*.d.ts'] })).sort();
    const used = new Set(files.flatMap((f) => importedValues(f, /(^|\/)(kernel|lib)\/index\.js$/)));
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((n) => !(n in rein))).toEqual([]);
  });

  it('exports what compaction/snip and compaction/auto import from their family\'s shared folder', () => {
    const used = ['plugins/compaction/snip/index.ts', 'plugins/compaction/auto/index.ts', 'plugins/compaction/microcompact/index.ts']
      .flatMap((f) => importedValues(f, /\.\.\/shared\//));
    expect(used).toEqual(expect.arrayContaining(['groupByRound', 'isPinned', 'latestUserPromptIndex', 'computeThresholds', 'expectCacheDrop']));
    expect(used.filter((n) => !(n in rein))).toEqual([]);
  });

  it('has no createAgent in the kernel entry, and both in the package entry', async () => {
    const kernel = await import('../kernel/index.js');
    expect('createAgent' in kernel).toBe(false);
    expect(typeof rein.createAgent).toBe('function');
    expect(typeof rein.definePlugin).toBe('function');
  });
});
