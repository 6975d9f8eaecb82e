/**
 * Test setup (every test file): sessions go to a temp `REIN_HOME`, never to the user's ~/.rein, even
 * in tests that do not set one themselves (or that unset it after each test).
 */
import { afterAll, beforeEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const home = mkdtempSync(join(tmpdir(), 'rein-test-home-'));
beforeEach(() => {
  process.env.REIN_HOME ??= home;
});
afterAll(() => rmSync(home, { recursive: true, force: true }));
