/**
 * Global setup of every suite: builds what is out of date before any test runs (usually nothing:
 * `npm install` built it), so the tests that spawn `rein` run the built command, bin/rein.js,
 * built once and matching the sources.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function buildOnce(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-changed'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, REIN_BUILD_QUIET: '1' } });
}
