/**
 * The skills example, run for real through the built `rein run`: the project skill is listed, loaded,
 * its allowed-tools refuse the Bash call, and the entry is written.
 */
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../testing/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-example-skills-'); });
afterEach(() => tmp.cleanup());

describe('examples/skills', () => {
  it('lists the project skill, loads it, refuses a tool it does not allow, and writes the entry', async () => {
    // A copy, so the run writes nothing into the repository.
    const dir = join(tmp.dir, 'skills');
    cpSync(HERE, dir, { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await runCli(['run', 'Record release 1.2.0', '--preset', './agent.yaml', '--sim', 'scenario.yaml', '--no-layers', '--output-format', 'json'], { cwd: dir, env: { HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rein-home'), REIN_SIM_LOG: log } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('Added the 1.2.0 entry to out/CHANGELOG.md.');
    expect(readFileSync(join(dir, 'out/CHANGELOG.md'), 'utf8')).toContain('## 1.2.0');
    const bodies = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.path === '/v1/messages').map((e) => JSON.stringify(e.body.messages));
    expect(bodies[0]).toContain('- changelog: Writes a CHANGELOG.md entry for a release');
    // The Skill result carries the instructions with the version and the skill's folder filled in.
    expect(bodies[1]).toContain('Write the entry for version 1.2.0 to CHANGELOG.md');
    expect(bodies[1]).toContain(join(dir, '.claude/skills/changelog/template.md'));
    expect(bodies[3]).toContain('The skill \\"changelog\\" is active and allows only these tools: Read, Write. Bash is not one of them.');
    expect(existsSync(join(HERE, 'out'))).toBe(false);
  }, 60_000);
});
