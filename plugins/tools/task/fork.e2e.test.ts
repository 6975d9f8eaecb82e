/**
 * Fork mode through `rein run` (the built command, the embedded simulator and its prompt cache):
 * three forks made by one assistant message each send the parent's last request byte for byte,
 * then the same placeholders, then their own directive; each fork's first request reads at least
 * 95% of the parent's prefix from the cache; a fork's Task call is refused; a long fork compacts
 * itself with the parent's compaction plugin, and the guard survives it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFiles as write } from '../../../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-fork-'); });
afterEach(() => tmp.cleanup());


interface Usage { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }
interface Entry { path: string; source: string; usage: Usage; body: { messages: { role: string; content: { type: string; text?: string }[] }[]; [k: string]: unknown } }
const prompt = (u: Usage) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;

describe('fork mode through rein run', () => {
  it('three forks send the parent\'s request byte for byte plus their directive, and read >= 95% of its prefix from the cache', async () => {
    const project = join(tmp.dir, 'project');
    write(project, {
      'notes.txt': Array.from({ length: 300 }, (_, i) => `note ${i}: ${'the quick brown fox '.repeat(3)}`).join('\n'),
      'agent.yaml': [
        'name: forker',
        'system: { sections: [{ name: role, text: "You are a research lead. You split work between forks of yourself and merge their reports." }] }',
        'tools: [Read, Grep, Task]',
        'plugins:',
        '  cache/breakpoints: {}',
        '  tools/task: { fork: { enabled: true } }',
        '',
      ].join('\n'),
      's.yaml': `
turns:
  - reply: [{ tool_use: { name: Read, input: { file_path: notes.txt } } }]
  - reply:
      - { text: "Splitting the work three ways." }
      - { tool_use: { name: Task, input: { description: Count foxes, prompt: "Count the lines that mention a fox." } } }
      - { tool_use: { name: Task, input: { description: First note, prompt: "Quote the first note." } } }
      - { tool_use: { name: Task, input: { description: Last note, prompt: "Quote the last note." } } }
  - reply: [{ tool_use: { name: Task, input: { description: Nested, prompt: "Fork again." } } }]
  - reply: [{ text: "Report from a fork." }]
  - reply: [{ text: "Report from a fork." }]
  - reply: [{ text: "Report from a fork." }]
  - reply: [{ text: "Merged the three reports." }]
`,
    });
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', 'Study notes.txt'], { cwd: project, env: { HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rein-home'), REIN_SIM_LOG: log } });
    expect(r.stderr).not.toMatch(/error|warn/i);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('Merged the three reports.');
    const entries = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Entry).filter((e) => e.path === '/v1/messages');
    const parent = entries.filter((e) => e.source === 'main_loop');
    const forks = entries.filter((e) => e.source === 'subagent');
    expect(parent).toHaveLength(3);
    expect(forks.length).toBe(4); // three first requests, and one more for the fork whose Task call was refused
    const forking = parent[1]!; // the request whose answer held the three Task calls
    const n = forking.body.messages.length;

    // Each fork's first request: the parent's request (system, tools, parameters, messages, markers) unchanged...
    const firsts = forks.filter((f) => f.body.messages.length === n + 2);
    expect(firsts).toHaveLength(3);
    for (const f of firsts) {
      const { messages, ...params } = f.body;
      const { messages: pm, ...pparams } = forking.body;
      expect(JSON.stringify(params)).toBe(JSON.stringify(pparams));
      expect(JSON.stringify(messages.slice(0, n))).toBe(JSON.stringify(pm));
      // ...then the parent's assistant message and one placeholder per tool_use.
      const results = messages[n + 1]!.content.filter((b) => b.type === 'tool_result');
      expect(results).toHaveLength(3);
      expect(new Set(results.map((b) => JSON.stringify((b as unknown as { content: unknown }).content))).size).toBe(1);
    }
    // The three bodies are identical but for the directive (the last block).
    const directive = (f: Entry) => f.body.messages.at(-1)!.content.at(-1)!.text!;
    const masked = firsts.map((f) => JSON.stringify(f.body).replace(JSON.stringify(directive(f)).slice(1, -1), '<directive>'));
    expect(new Set(masked).size).toBe(1);
    expect(firsts.map((f) => directive(f).split('\n\n').at(-1)).sort()).toEqual(['Count the lines that mention a fox.', 'Quote the first note.', 'Quote the last note.']);
    expect(new Set(firsts.map((f) => JSON.stringify(f.body))).size).toBe(3);

    // The cache figure: each fork's first request reads >= 95% of the parent's prefix.
    const parentPrefix = prompt(forking.usage);
    for (const f of firsts) expect(f.usage.cache_read_input_tokens / parentPrefix).toBeGreaterThanOrEqual(0.95);

    // A fork cannot fork again: its Task call got an error result.
    const refused = forks.find((f) => JSON.stringify(f.body.messages).includes('Fork is not available inside a forked worker'));
    expect(refused).toBeDefined();
  }, 60_000);

  it('a long fork compacts itself with the parent\'s compaction plugin, and still cannot fork', async () => {
    const project = join(tmp.dir, 'project');
    const notes = (tag: string) => Array.from({ length: 300 }, (_, i) => `${tag} ${i}: ${'the quick brown fox '.repeat(3)}`).join('\n');
    write(project, {
      'notes.txt': notes('note'),
      'more.txt': notes('more'),
      'agent.yaml': [
        'tools: [Read, Task]',
        'plugins:',
        '  cache/breakpoints: {}',
        '  compaction/auto: { triggerTokens: 10000 }',
        '  tools/task: { fork: { enabled: true } }',
        '',
      ].join('\n'),
      's.yaml': `
turns:
  - reply: [{ tool_use: { name: Read, input: { file_path: notes.txt } } }]
  - reply: [{ tool_use: { name: Task, input: { description: More notes, prompt: "Read more.txt and sum it up." } } }]
  - reply: [{ tool_use: { name: Read, input: { file_path: more.txt } } }]
  - reply: [{ tool_use: { name: Task, input: { description: Nested, prompt: "Fork again." } } }]
  - reply: [{ text: "more.txt is 300 more notes." }]
  - reply: [{ text: "Done." }]
`,
    });
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', 'Study the notes'], { cwd: project, env: { HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rein-home'), REIN_SIM_LOG: log } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('Done.');
    const entries = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Entry).filter((e) => e.path === '/v1/messages');
    // The parent never compacted; the fork did, once its own reading took it over the threshold.
    const compacts = entries.filter((e) => e.source === 'compact');
    expect(compacts).toHaveLength(1);
    const forks = entries.filter((e) => e.source === 'subagent');
    const at = entries.indexOf(compacts[0]!);
    // Its first request (the parent's prefix, read from the cache), then its Read took it over.
    expect(entries.slice(0, at).filter((e) => e.source === 'subagent')).toHaveLength(1);
    expect(forks[0]!.usage.cache_read_input_tokens).toBeGreaterThan(0);
    // After its compaction the fork's request starts from its own summary, far smaller than before.
    const after = forks.filter((e) => entries.indexOf(e) > at);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(prompt(after[0]!.usage)).toBeLessThan(prompt(forks[0]!.usage) / 2);
    expect(JSON.stringify(after[0]!.body.messages)).not.toContain('more 299:');
    // The guard survived the compaction: the fork's Task call after it was refused.
    expect(JSON.stringify(after.at(-1)!.body.messages)).toContain('Fork is not available inside a forked worker');
    const main = entries.filter((e) => e.source === 'main_loop');
    expect(JSON.stringify(main.at(-1)!.body.messages)).toContain('more.txt is 300 more notes.');
  }, 60_000);
});
