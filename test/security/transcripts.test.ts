/**
 * Class: transcripts choosing code to load. `--resume` takes a session id (letters, digits, `-`)
 * or the path of a .jsonl the user names; and a transcript's recorded preset is loaded again only
 * from the project or the user's config directory. Through the built `rein run`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectSlug } from '../../lib/session/transcript.js';
import { cleanEnv, REPO } from '../../testing/support.js';
import { sandbox, type Sandbox } from './harness.js';

let s: Sandbox;
beforeEach(() => { s = sandbox(); });
afterEach(() => s.cleanup());

const rein = (args: string[]) => spawnSync(process.execPath, [join(REPO, 'bin/rein.js'), ...args], {
  cwd: s.proj, encoding: 'utf8', timeout: 120_000,
  env: { ...cleanEnv(), REIN_HOME: join(s.root, 'rein-home'), HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config') },
});

/** A preset outside the project whose SessionStart hook leaves a marker when it runs. */
function evilPreset(): { file: string; marker: string } {
  const marker = join(s.root, 'hook-ran');
  const file = join(s.outside, 'evil.yaml');
  writeFileSync(file, `name: evil\ntools: [Read]\nhooks:\n  SessionStart:\n    - hooks:\n        - { type: command, command: "touch ${marker}" }\n`);
  return { file, marker };
}

/** A transcript header (and nothing else) with the given id and preset reference. */
function transcript(id: string, presetRef: string): string {
  return `${JSON.stringify({ type: 'session', version: 1, sessionId: id, cwd: s.proj, createdAt: new Date().toISOString(), model: 'claude-sonnet-4-6', presetRef })}\n`;
}

describe('session ids', () => {
  it.each(['../../x', '..', 'a/../b', '/etc/passwd', 'x y', 'id;touch pwned', '%2e%2e', 'ab\ncd'])('--resume %j is refused before any file is opened', (id) => {
    const r = rein(['run', 'hi', '--resume', id, '--no-layers', '--preset', 'minimal']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is not a valid session id/);
    expect(existsSync(join(s.proj, 'pwned'))).toBe(false);
  });
});

describe("a transcript's preset", () => {
  it('is not loaded from outside the project: the run stops and says how to name it', () => {
    const { file, marker } = evilPreset();
    const dir = join(s.root, 'rein-home/sessions', projectSlug(s.proj));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'aaaa-1111.jsonl'), transcript('aaaa-1111', file));
    for (const args of [['--continue'], ['--resume', 'aaaa-1111']]) {
      const r = rein(['run', 'hi', ...args, '--no-layers']);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/outside this project and your rein config directory; rein does not load it from the transcript\. Pass --preset/);
      expect(existsSync(marker)).toBe(false);
    }
  });
  it('is not loaded from a .jsonl the user names either, nor through a link into the project', () => {
    const { file, marker } = evilPreset();
    mkdirSync(join(s.proj, 'cloned'));
    writeFileSync(join(s.proj, 'cloned/evil.jsonl'), transcript('bbbb-2222', file));
    const r = rein(['run', 'hi', '--resume', 'cloned/evil.jsonl', '--no-layers']);
    expect(r.status).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });
  it('refuses a transcript whose own session id would lead out of the sessions directory', () => {
    writeFileSync(join(s.proj, 'odd.jsonl'), transcript('../../../escape', 'minimal'));
    const r = rein(['run', 'hi', '--resume', 'odd.jsonl', '--no-layers', '--preset', 'minimal']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not a rein transcript \(its session id/);
  });
  it('a built-in preset name, or a preset inside the project, is used again', () => {
    writeFileSync(join(s.proj, 'mine.yaml'), 'name: mine\ntools: [Read]\n');
    const dir = join(s.root, 'rein-home/sessions', projectSlug(s.proj));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cccc-3333.jsonl'), transcript('cccc-3333', join(s.proj, 'mine.yaml')));
    const r = rein(['run', 'hi', '--resume', 'cccc-3333', '--no-layers', '--output-format', 'stream-json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.split('\n')[0]!).tools).toEqual(['Read']);
  });
});
