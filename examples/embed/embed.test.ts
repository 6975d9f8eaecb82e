/**
 * The embed example: the program's `findTodos()` in-process against the scenario, and the README
 * command (`node --import jiti/register examples/embed/main.ts`) as a real process.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, REPO, tempDir, useTestEnv } from '../../testing/index.js';
import { canUseTool, findTodos } from './main.js';

const HERE = dirname(fileURLToPath(import.meta.url));
// A temp REIN_HOME for the file (transcripts never go to ~/.rein).
const env = useTestEnv({ scope: 'all', prefix: 'rein-example-embed-' });

/** What the program prints for the scripted run, after the session line. */
const EXPECTED = [
  'assistant: Looking for TODO comments.',
  '> Grep {"pattern":"TODO","path":"sample","output_mode":"content","-n":true}',
  '  ok',
  '> Bash {"command":"wc -l sample/app.py","description":"Count lines"}',
  '  asked about Bash: allow',
  '  ok',
  '> Bash {"command":"rm -rf sample/build","description":"Clean up"}',
  '  asked about Bash: deny',
  '  denied: denied by the host: Bash is not allowed here: this program only lets the agent run wc, ls, cat and head.',
  '  failed',
  'assistant: There are 3 TODOs: two in sample/app.py (13 lines) and one in sample/notes.md.',
];

describe('examples/embed', () => {
  it('the callback allows plain read-only commands and nothing else', () => {
    expect(canUseTool('Bash', { command: 'wc -l sample/app.py' })).toEqual({ behavior: 'allow' });
    expect(canUseTool('Bash', { command: 'wc -l x; rm -rf /' }).behavior).toBe('deny');
    expect(canUseTool('Write', { file_path: 'x' }).behavior).toBe('deny');
  });

  it('findTodos() streams the events: tool calls, the asks and their answers, the denial, the answer', async () => {
    // A copy of sample/ with a build folder that `rm -rf sample/build` would remove, had the denial not held.
    const cwd = tempDir('rein-example-embed-cwd-');
    try {
      cpSync(join(HERE, 'sample'), join(cwd.dir, 'sample'), { recursive: true });
      mkdirSync(join(cwd.dir, 'sample', 'build'));
      const lines: string[] = [];
      const result = await findTodos({ cwd: cwd.dir, sim: join(HERE, 'scenario.yaml'), print: (l) => lines.push(l) });
      expect(lines[0]).toMatch(/^session [0-9a-f]{8} \(simulated\), tools: Bash, BashOutput, Grep, KillShell, Read$/);
      expect(lines.slice(1, -1)).toEqual(EXPECTED);
      expect(lines.at(-1)).toMatch(/^result: end_turn after 3 turns, \d+ input tokens, \$\d+\.\d{4}$/);
      expect(result.permissionDenials).toMatchObject([{ tool_name: 'Bash', tool_input: { command: 'rm -rf sample/build' } }]);
      expect(existsSync(join(cwd.dir, 'sample', 'build'))).toBe(true);
    } finally {
      cwd.cleanup();
    }
  });

  it('the README command runs the program and exits 0', async () => {
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'jiti/register', 'examples/embed/main.ts'], { cwd: REPO, env: { ...cleanEnv(), REIN_HOME: env.home }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, stdout: out }));
    });
    expect(code).toBe(0);
    expect(stdout.trim().split('\n').slice(1, -1)).toEqual(EXPECTED);
  });
});
