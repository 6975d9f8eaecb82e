/**
 * With an API key, the `default` preset sends what a coding-agent user expects: adaptive thinking
 * with an effort level on a model that takes them, the model's whole output limit, and a request
 * that is byte-stable from turn to turn (only new messages are added; the cached prefix never
 * changes). With another model, each of these is fitted to what that model accepts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.js';
import { serveScenario, writeFiles, type SimHarness } from '../testing/support.js';
import { useTestEnv } from '../testing/env.js';

const env = useTestEnv({ prefix: 'rein-default-' });
let harness: SimHarness | undefined;
afterEach(async () => { await harness?.close(); harness = undefined; });

const SCENARIO = `
turns:
  - reply: [{ text: "Looking." }, { tool_use: { name: Glob, input: { pattern: "*.txt" } } }]
  - reply: [{ text: "Reading it." }, { tool_use: { name: Read, input: { file_path: notes.txt } } }]
  - reply: [{ tool_use: { name: Grep, input: { pattern: "TODO", output_mode: content } } }]
  - reply: [{ text: "notes.txt has one TODO." }]
`;

/** Runs the built-in default preset with a key (the API client, pointed at the simulator). */
async function runDefault(overrides: Record<string, unknown> = {}) {
  writeFiles(env.dir, { 'notes.txt': 'hello\nTODO: write the report\n' });
  harness = await serveScenario(SCENARIO, env.dir);
  const agent = await createAgent({
    preset: 'default', cwd: env.dir, layers: false,
    env: { ...process.env, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: harness.server.url },
    // Memory files from the user's own home directory are not this test's business.
    overrides: { plugins: { 'memory-files': { user: false } }, ...overrides },
  });
  try {
    expect(agent.client.kind).toBe('api');
    const result = await agent.run('What is left to do in notes.txt?').result;
    expect(result.terminalReason).toBe('end_turn');
    return harness.requests().map((r) => r.body);
  } finally {
    await agent.close();
  }
}

const withoutMarkers = (v: unknown) => JSON.stringify(v, (k, x) => (k === 'cache_control' ? undefined : x));

describe('the default preset, with a key', () => {
  it('sends adaptive thinking, effort high and the model output limit, identical on every turn', async () => {
    const requests = await runDefault();
    expect(requests).toHaveLength(4);
    for (const r of requests) {
      expect(r.model).toBe('claude-sonnet-4-6');
      expect(r.max_tokens).toBe(128_000);
      expect(r.thinking).toEqual({ type: 'adaptive' });
      expect(r.output_config).toEqual({ effort: 'high' });
    }
    // Everything but the messages is byte-identical from turn to turn …
    const { messages: _m, ...first } = requests[0]!;
    for (const r of requests.slice(1)) {
      const { messages: _n, ...rest } = r;
      expect(JSON.stringify(rest)).toBe(JSON.stringify(first));
    }
    // … and each request's messages start with the previous request's, unchanged (markers aside).
    for (let i = 1; i < requests.length; i++) {
      const prev = requests[i - 1]!.messages as unknown[];
      expect(withoutMarkers((requests[i]!.messages as unknown[]).slice(0, prev.length))).toBe(withoutMarkers(prev));
    }
  });

  it('on a model without adaptive thinking or effort (Sonnet 4.5) it sends neither, and that model’s output limit', async () => {
    const requests = await runDefault({ model: { name: 'claude-sonnet-4-5' } });
    for (const r of requests) {
      expect(r.max_tokens).toBe(64_000);
      expect(r.thinking).toBeUndefined();
      expect(r.output_config).toBeUndefined();
    }
  });
});
