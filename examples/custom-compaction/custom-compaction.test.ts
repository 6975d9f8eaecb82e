/**
 * The custom-compaction example: the keep-ends strategy on hand-made histories, through a manual
 * `kernel.compact()` between runs, and (the README command) through compaction/auto's threshold in
 * a real `rein run`.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent, type AgentEvent, type Message, type MessageRequest } from '../../index.js';
import { runCli, tempDir, useTestEnv } from '../../testing/index.js';
import { keepEnds } from './keep-ends.js';

const HERE = dirname(fileURLToPath(import.meta.url));
// A temp REIN_HOME for the file (transcripts never go to ~/.rein).
const env = useTestEnv({ scope: 'all', prefix: 'rein-example-compaction-' });

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: 'a' } }] });
const result = (id: string): Message => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x' }] });

describe('keepEnds', () => {
  it('after finished turns: keeps the first prompt, the marker, and the last prompt with its answer', () => {
    const h = [user('p0'), assistant('a0'), user('p1'), assistant('a1'), user('p2'), assistant('a2')];
    expect(keepEnds(h, 1)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'p0' }, { type: 'text', text: '[3 earlier messages were removed here to save context.]' }, { type: 'text', text: 'p2' }], meta: { source: 'keep-ends' } },
      h[5],
    ]);
  });

  it('in the middle of a tool loop: keeps whole tool_use / tool_result pairs, never a result without its call', () => {
    const h = [user('p0'), call('t1'), result('t1'), call('t2'), result('t2'), call('t3'), result('t3')];
    const out = keepEnds(h, 2)!;
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(out.slice(1)).toEqual(h.slice(3));
    expect(out[0]!.content.at(-1)).toEqual({ type: 'text', text: '[2 earlier messages were removed here to save context.]' });
  });

  it('declines (undefined) when nothing would be dropped or a pinned message is in the middle', () => {
    expect(keepEnds([user('p0'), assistant('a0')], 1)).toBeUndefined();
    expect(keepEnds([user('p0'), assistant('a0'), user('p1'), assistant('a1')], 2)).toBeUndefined();
    const pinned: Message = { ...user('memory'), meta: { pinned: true } };
    expect(keepEnds([user('p0'), assistant('a0'), pinned, assistant('a1'), user('p2'), assistant('a2')], 1)).toBeUndefined();
  });
});

describe('the strategy in a kernel', () => {
  it('kernel.compact() between runs emits a compact event and the next request carries the kept history', async () => {
    const { dir, cleanup } = tempDir('rein-example-compaction-cwd-');
    try {
      // Answers long enough that dropping three messages saves more than the marker costs.
      writeFileSync(join(dir, 's.yaml'), `turns:\n${['a0', 'a1', 'a2', 'a3'].map((t) => `  - reply: [{ text: "${t}${' and more'.repeat(40)}" }]\n`).join('')}`);
      const agent = await createAgent({ preset: join(HERE, 'agent.yaml'), sim: join(dir, 's.yaml'), cwd: dir, layers: false });
      try {
        const events: AgentEvent[] = [];
        agent.kernel.hooks.event.tap('test', (e) => { events.push(e); });
        const requests: MessageRequest[] = [];
        agent.kernel.hooks.response.tap('test', (r) => { requests.push(r.request); });
        for (const p of ['p0', 'p1', 'p2']) await agent.run(p).result;
        expect(agent.kernel.messages).toHaveLength(6);

        expect(await agent.kernel.compact()).toBe(true);
        const compact = events.find((e) => e.type === 'compact');
        expect(compact).toMatchObject({ type: 'compact', trigger: 'manual', strategy: 'keep-ends' });
        expect(compact?.type === 'compact' && compact.tokensAfter < compact.tokensBefore).toBe(true);
        expect(agent.kernel.messages.map((m) => m.content.map((b) => (b.type === 'text' ? b.text.replace(/( and more)+$/, '') : b.type)))).toEqual([
          ['p0', '[3 earlier messages were removed here to save context.]', 'p2'],
          ['a2'],
        ]);

        const r = await agent.run('p3').result;
        expect(r.terminalReason).toBe('end_turn');
        expect(requests.at(-1)!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
        expect(JSON.stringify(requests.at(-1)!.messages)).not.toContain('a1');
      } finally {
        await agent.close();
      }
    } finally {
      cleanup();
    }
  });

  it('the README command: compaction/auto fires at its threshold and keep-ends answers without a summary request', async () => {
    const r = await runCli(['run', 'Summarise journal.md', '--preset', './agent.yaml', '--sim', 'scenario.yaml', '--output-format', 'stream-json', '--no-layers'], { cwd: HERE, env: { REIN_HOME: env.home } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const boundaries = lines.filter((l) => l.subtype === 'compact_boundary');
    expect(boundaries).toHaveLength(1);
    expect(boundaries[0]).toMatchObject({ compact_metadata: { trigger: 'auto' }, strategy: 'keep-ends' }); // rein's strategy beside the SDK's compact_metadata
    expect(boundaries[0].compact_metadata.post_tokens).toBeLessThan(boundaries[0].compact_metadata.pre_tokens);
    const result = lines.at(-1);
    expect(result).toMatchObject({ type: 'result', rein_terminal_reason: 'end_turn', num_turns: 4 });
    // keep-ends made no model request: no compaction summary was asked for.
    expect(result.side_usage.compact).toBeUndefined();
  });
});
