/**
 * A prompt that changes early on every request (here: a plugin that puts the time into a static
 * system section) makes each request re-write the whole conversation while the cache reads stay
 * flat (only the tools are read). That is a cache break on every request, and the detector and
 * `rein cache explain` must say so, with the cause.
 */
import { describe, expect, it } from 'vitest';
import { definePlugin } from '../kernel/index.js';
import { Transcript } from '../lib/index.js';
import { explainTranscript } from '../cli/commands/cache.js';
import { startAgent } from '../testing/agent.js';
import { useTestEnv } from '../testing/env.js';
import { writeFiles } from '../testing/support.js';

const env = useTestEnv({ prefix: 'rein-rewrite-' });

/** Adds "the time" to the static system prompt: a different minute on every request. */
const clockInStaticSection = definePlugin({
  name: 'clock-in-static-section',
  apply(kernel) {
    let minute = 0;
    kernel.hooks.systemPrompt.tap('clock', (sections) => [
      { name: 'clock', kind: 'static', text: `Current time: 10:${String(minute++).padStart(2, '0')}` },
      ...sections,
    ]);
  },
});

const SCENARIO = `
turns:
${[1, 2, 3, 4].map((i) => `  - reply: [{ text: "Reading part ${i}." }, { tool_use: { name: Read, input: { file_path: part${i}.txt } } }]`).join('\n')}
  - reply: [{ text: "Read all four parts." }]
`;

/** Four 120-line files to read and an agent that reads them with the break detector on; `plugins` are added. */
async function readingAgent(name: string, plugins: Parameters<typeof startAgent>[0]['plugins'] = []) {
  const files: Record<string, string> = {};
  for (let i = 1; i <= 4; i++) files[`part${i}.txt`] = `${'x'.repeat(70)}\n`.repeat(120);
  writeFiles(env.dir, files);
  return startAgent({
    cwd: env.dir,
    preset: {
      name,
      model: { name: 'claude-sonnet-4-6' },
      tools: ['Read'],
      system: { sections: [{ name: 'rules', text: 'Follow the house rules. '.repeat(400) }] },
      permissions: { mode: 'default', allow: ['Read'] },
      plugins: { 'cache/breakpoints': { layout: 'two-tail' }, 'cache/break-detector': {} },
    },
    scenario: SCENARIO,
    plugins,
  });
}

describe('a system prompt that changes on every request', () => {
  it('is reported as a cache break at every request after the first, caused by the system prompt, by the detector and by rein cache explain', async () => {
    const rig = await readingAgent('clock', [{ plugin: clockInStaticSection }]);
    try {
      const { events, result } = await rig.run('Read the four parts.');
      expect(result.terminalReason).toBe('end_turn');
      // The shape of the bug: reads stay flat (the tools) while each request writes everything again.
      const usage = rig.requests().map((r) => (r as unknown as { usage: { cache_read_input_tokens: number; cache_creation_input_tokens: number } }).usage);
      expect(usage).toHaveLength(5);
      expect(new Set(usage.map((u) => u.cache_read_input_tokens)).size).toBe(1);
      for (let i = 1; i < 5; i++) expect(usage[i]!.cache_creation_input_tokens).toBeGreaterThan(usage[i - 1]!.cache_creation_input_tokens);
      const breaks = events.filter((e) => e.type === 'notice' && e.source === 'cache/break-detector').map((e) => (e as { message: string }).message);
      expect(breaks).toHaveLength(4);
      for (const m of breaks) expect(m).toMatch(/^cache break at request \d: read \d+ of the \d+ tokens the previous request cached \(−\d+\); cause: client: system prompt changed/);

      const x = explainTranscript(Transcript.open(result.sessionId, { cwd: env.dir }));
      expect(x.totals.breaks).toEqual({ client: 4 });
      expect(x.requests.slice(1).every((r) => r.breakCause === 'client')).toBe(true);
    } finally {
      await rig.close();
    }
  });

  it('a steady conversation, which reads what the previous request wrote, has no break', async () => {
    const rig = await readingAgent('steady');
    try {
      const { events, result } = await rig.run('Read the four parts.');
      expect(result.terminalReason).toBe('end_turn');
      expect(events.filter((e) => e.type === 'notice' && e.source === 'cache/break-detector')).toEqual([]);
      expect(explainTranscript(Transcript.open(result.sessionId, { cwd: env.dir })).totals.breaks).toEqual({});
    } finally {
      await rig.close();
    }
  });
});
