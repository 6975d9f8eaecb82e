/**
 * Auto-compaction on a small context window (30,000 tokens, 4,000 of output): a threshold that can
 * never be reached is refused when the preset loads (agent/preset/test/plugin-checks.test.ts), and
 * by a kernel built in code; a compaction that leaves the context over the
 * threshold is no progress and opens the breaker instead of repeating every turn; and the files put
 * back after a summary are budgeted against the threshold and never make a compaction fail.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../kernel/index.js';
import { createKernel } from '../../../testing/index.js';
import { startAgent } from '../../../testing/agent.js';
import { useTestEnv } from '../../../testing/env.js';
import { writeFiles } from '../../../testing/support.js';
import autoCompact, { autoCompactStats } from './index.js';

const env = useTestEnv({ prefix: 'rein-smallwin-' });

const noClient = { kind: 'simulator' as const, baseURL: 'none', send: async () => { throw new Error('no requests'); }, countTokens: async () => 0, close: async () => undefined };

const compactions = (events: AgentEvent[]) => events.filter((e) => e.type === 'compact').length;
const notices = (events: AgentEvent[]) => events.flatMap((e) => (e.type === 'notice' && e.source === 'compaction/auto' ? [e.message] : []));

/** `n` turns that each Read one of the files, then a final answer. */
function readingScenario(files: string[], summaryChars: number): string {
  const turns = files.map((f) => `  - reply: [{ text: "Reading ${f}." }, { tool_use: { name: Read, input: { file_path: ${f} } } }]`);
  return [
    'turns:', ...turns, '  - reply: [{ text: "Read them all." }]',
    'side:',
    '  - match: { source: compact }',
    `    reply: [{ text: "<summary>${'The user asked to read the files; they were read. '.repeat(Math.ceil(summaryChars / 51)).slice(0, summaryChars)}</summary>" }]`,
    '',
  ].join('\n');
}

describe('auto-compaction on a 30,000-token window', () => {
  it('a kernel built in code with a triggerRatio above the blocking limit (0.9) is refused, naming the threshold and the limit', async () => {
    const made = createKernel({
      preset: { model: { name: 'claude-sonnet-4-6', contextWindow: 30_000, maxTokens: 4000 } }, cwd: env.dir, client: noClient,
      plugins: [{ plugin: autoCompact, options: { triggerRatio: 0.9 } }],
    });
    await expect(made).rejects.toThrow(/plugin compaction\/auto: triggerRatio: .*27,000.*23,000/);
  });

  it('a compaction that leaves the context over the threshold counts as no progress: the breaker opens after 3, not a compaction every turn', async () => {
    // The first file (4,000 tokens) crosses the threshold; the others (600 each) are small.
    const files = Array.from({ length: 11 }, (_, i) => `f${i}.txt`);
    writeFiles(env.dir, Object.fromEntries(files.map((f, i) => [f, `${'r'.repeat(60)}\n`.repeat(i === 0 ? 240 : 36)])));
    const rig = await startAgent({
      cwd: env.dir,
      preset: {
        name: 'small', model: { name: 'claude-sonnet-4-6', contextWindow: 30_000, maxTokens: 4000 }, tools: ['Read'],
        permissions: { allow: ['Read'] },
        // The system prompt alone is most of the threshold (13,000): a 2,000-token summary on top is over it.
        system: { sections: [{ name: 'rules', text: 'Keep to the rules of the house. '.repeat(1250) }] },
        plugins: { 'compaction/auto': { restore: { maxFiles: 0 } } },
      },
      scenario: readingScenario(files, 8_000),
    });
    try {
      const { events, result } = await rig.run(`Read every file. ${'Be thorough. '.repeat(400)}`);
      expect(result.terminalReason).toBe('end_turn');
      expect(compactions(events)).toBe(3);
      const stats = autoCompactStats(rig.agent.kernel)!;
      expect(stats).toMatchObject({ noProgress: 3, breakerOpen: true });
      expect(notices(events).some((m) => /^auto-compaction stopped for this session after 3 failures in a row \(last: the context is still [\d,]+ tokens after the compaction, over the threshold of 13,000\)/.test(m))).toBe(true);
    } finally {
      await rig.close();
    }
  });

  it('with the default restore, the files put back after a summary fit the threshold, and no compaction fails because of them', async () => {
    // Five large files, each read 60 lines at a time: the history holds a little of each, while a
    // full restore would put 5 × 5,000 tokens back, more than the whole threshold (13,000).
    const files = Array.from({ length: 5 }, (_, i) => `src${i}.txt`);
    writeFiles(env.dir, Object.fromEntries(files.map((f) => [f, `${'s'.repeat(70)}\n`.repeat(400)])));
    const turns = Array.from({ length: 24 }, (_, i) => `  - reply: [{ text: "Reading part ${i}." }, { tool_use: { name: Read, input: { file_path: src${i % 5}.txt, offset: ${1 + 60 * Math.floor(i / 5)}, limit: 60 } } }]`);
    const rig = await startAgent({
      cwd: env.dir,
      preset: { name: 'small', model: { name: 'claude-sonnet-4-6', contextWindow: 30_000, maxTokens: 4000 }, tools: ['Read'], permissions: { allow: ['Read'] }, plugins: { 'compaction/auto': {} } },
      scenario: ['turns:', ...turns, '  - reply: [{ text: "Read them all." }]', ''].join('\n'),
    });
    try {
      const { events, result } = await rig.run('Read the sources.');
      expect(result.terminalReason).toBe('end_turn');
      expect(compactions(events)).toBeGreaterThanOrEqual(1);
      expect(autoCompactStats(rig.agent.kernel)).toMatchObject({ failures: 0, breakerOpen: false });
      // What did come back stayed within 30% of the threshold (3,900 tokens).
      for (const m of rig.agent.kernel.messages.filter((x) => x.meta?.compactSummary)) {
        const restored = m.content.map((b) => (b.type === 'text' ? b.text : '')).find((t) => t.startsWith('These files were read before the summary')) ?? '';
        expect(restored.length / 4).toBeLessThanOrEqual(3_900);
      }
    } finally {
      await rig.close();
    }
  });
});
