/**
 * Test setup (every test file):
 * - temp files go to a directory of this test file's own, removed after it (TMPDIR is what
 *   `os.tmpdir()` and child processes read), so no test leaves anything in the system's temp
 *   directory, whether or not it cleans up after itself;
 * - sessions go to a temp `REIN_HOME`, never to the user's ~/.rein, even in tests that do not set
 *   one themselves (or that unset it after each test).
 */
import { afterAll, beforeEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = mkdtempSync(join(tmpdir(), 'rein-test-'));
process.env.TMPDIR = root;
const home = mkdtempSync(join(root, 'home-'));
beforeEach(() => {
  process.env.REIN_HOME ??= home;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
