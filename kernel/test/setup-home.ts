/**
 * Test setup (every test file):
 * - temp files go to a directory of this test file's own, removed after it (TMPDIR is what
 *   `os.tmpdir()` and child processes read), so no test leaves anything in the system's temp
 *   directory, whether or not it cleans up after itself;
 * - sessions go to a temp `REIN_HOME`, never to the user's, even when the user has `REIN_HOME` set
 *   and in tests that do not set one themselves (or that unset it after each test);
 * - the user config layer is looked for in a temp `XDG_CONFIG_HOME`, so the user's own
 *   `~/.config/rein/` neither changes a result nor is touched;
 * - `HOME` is a temp folder too: `rein run` reads Claude Code's `~/.claude/settings.json` by
 *   default, and the user's own (a model, permission rules, hooks) must not change a result.
 *   Tests that commit give git an identity of their own, so no `~/.gitconfig` is needed.
 */
import { afterAll, beforeEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = mkdtempSync(join(tmpdir(), 'rein-test-'));
process.env.TMPDIR = root;
const home = mkdtempSync(join(root, 'home-'));
const config = mkdtempSync(join(root, 'config-'));
const userHome = mkdtempSync(join(root, 'userhome-'));
process.env.HOME = userHome;
// The user's model choice would change every request a test checks.
delete process.env.ANTHROPIC_MODEL;
// Replaced, not defaulted: the environment vitest was started from is the user's.
process.env.REIN_HOME = home;
process.env.XDG_CONFIG_HOME = config;
beforeEach(() => {
  process.env.REIN_HOME ??= home;
  process.env.XDG_CONFIG_HOME ??= config;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
