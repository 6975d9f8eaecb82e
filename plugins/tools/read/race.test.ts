/**
 * A link swapped back and forth by another process while 80 Reads of it run in parallel (no hooks
 * slowing anything down): each Read is judged on where the link led when it was resolved, and
 * opens exactly that file, so none may return the outside file.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import permissions from '../../permissions/index.js';
import defaultMode from '../../permissions/default/index.js';
import readPlugin from './index.js';
import toolConcurrency from '../../tool-concurrency/index.js';
import { cleanupTempDirs, runCalls, tempDir, textOf, toolKernel, use, useTempReinHome } from '../../../testing/tools.js';

afterAll(cleanupTempDirs);

describe('Read under a racing symlink swap', () => {
  it('never returns the outside file', async () => {
    useTempReinHome();
    const root = realpathSync(tempDir('rein-race-'));
    const proj = join(root, 'proj');
    const out = join(root, 'outside');
    mkdirSync(proj);
    mkdirSync(out);
    writeFileSync(join(out, 'secret.txt'), 'OUTSIDE SECRET\n');
    writeFileSync(join(proj, 'real.txt'), 'inside\n');
    symlinkSync('real.txt', join(proj, 'r.txt'));
    // Swaps r.txt between the inside file and the outside one as fast as it can.
    // Its own process group, so the ln and mv it runs die with it before the folder is removed.
    const swapper = spawn('bash', ['-c', 'while :; do ln -sfn ../outside/secret.txt r.tmp && mv -T r.tmp r.txt; ln -sfn real.txt r.tmp && mv -T r.tmp r.txt; done'], { cwd: proj, stdio: 'ignore', detached: true });
    const exited = new Promise((r) => swapper.once('exit', r));
    try {
      const kernel = await toolKernel({ cwd: proj, allowAll: false, plugins: [{ plugin: readPlugin }, { plugin: permissions }, { plugin: defaultMode }, { plugin: toolConcurrency }] });
      let inside = 0;
      for (let round = 0; round < 4; round++) {
        const out80 = await runCalls(kernel, Array.from({ length: 80 }, () => use('Read', { file_path: 'r.txt' })));
        for (const r of out80.results) {
          const t = textOf(r);
          expect(t).not.toContain('OUTSIDE SECRET');
          if (t.includes('inside')) inside++;
        }
      }
      // The race was real: some reads saw the inside file, the others were refused or asked.
      expect(inside).toBeGreaterThan(0);
    } finally {
      process.kill(-swapper.pid!, 'SIGKILL');
      await exited;
    }
  });
});
