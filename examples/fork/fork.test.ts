/**
 * The fork example, run for real through the built `rein run` on the simulator: three forks, each
 * first request reading at least 95% of the lead's prefix from the cache.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../testing/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-example-fork-'); });
afterEach(() => tmp.cleanup());

interface Usage { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }

describe('examples/fork', () => {
  it('forks three ways; each fork\'s first request reads the lead\'s prefix from the cache', async () => {
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await runCli(['run', 'Study build-notes.txt', '--preset', './agent.yaml', '--sim', 'scenario.yaml', '--no-layers', '--output-format', 'json'], { cwd: HERE, env: { HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rein-home'), REIN_SIM_LOG: log } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('Module 5 is slowest, team-3 owns module 3, and there are 200 notes.');
    const entries = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { path: string; source: string; usage: Usage }).filter((e) => e.path === '/v1/messages');
    const lead = entries.filter((e) => e.source === 'main_loop');
    const forks = entries.filter((e) => e.source === 'subagent');
    expect(forks).toHaveLength(3);
    const u = lead[1]!.usage;
    const prefix = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    for (const f of forks) expect(f.usage.cache_read_input_tokens / prefix).toBeGreaterThanOrEqual(0.95);
  }, 60_000);
});
