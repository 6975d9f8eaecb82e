import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../load.js';
import { importOpenHands } from './openhands.js';
import { importSweAgent } from './swe-agent.js';

// SWE-agent and OpenHands histories are not among the shared traces; these fixtures follow the
// formats' documentation.
const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

describe('SWE-agent importer', () => {
  it('reads a function-calling trajectory: tool calls, tool results, the task as a typed prompt', async () => {
    const file = join(fixtures, 'swe-agent-function-calling.traj');
    expect(await detectFormat(file)).toBe('swe-agent');
    const w = await importSweAgent(file);
    expect(w.client).toBe('swe-agent');
    expect(w.model).toBe('claude-sonnet-4-5-20250929');
    expect(w.steps).toHaveLength(3);
    expect(w.steps[0]!.prompt![0]!.typed).toBe(true);
    expect(w.steps[0]!.reply.find((b) => b.type === 'tool_use')).toMatchObject({ id: 'call_a1', name: 'find_file', input: { file_name: 'parser.py' } });
    expect(w.steps[0]!.toolResults[0]).toMatchObject({ toolUseId: 'call_a1', toolName: 'find_file' });
    expect(w.steps[1]!.toolResults[0]!.content[0]).toMatchObject({ type: 'text' });
    expect(w.steps[2]!.toolResults).toEqual([]);
    expect(w.stats.skipped['system prompt (the preset under test brings its own)']).toBe(1);
    expect(w.timed).toBe(false);
    expect(w.notes.join(' ')).toMatch(/3 API calls/);
  });

  it('reads a mini-swe-agent trajectory: text actions, observations as user prompts', async () => {
    const file = join(fixtures, 'mini-swe-agent.traj.json');
    expect(await detectFormat(file)).toBe('swe-agent');
    const w = await importSweAgent(file);
    expect(w.client).toBe('mini-swe-agent');
    expect(w.steps).toHaveLength(2);
    expect(w.steps.map((s) => s.prompt?.[0]?.typed)).toEqual([true, false]);
    expect((w.steps[1]!.prompt![0]!.block as { text: string }).text).toMatch(/<returncode>0/);
    expect(w.steps.every((s) => s.stopReason === 'end_turn')).toBe(true);
  });
});

describe('OpenHands importer', () => {
  it('groups the actions of one LLM response into one request, with its usage and tool results', async () => {
    const file = join(fixtures, 'openhands-events.json');
    expect(await detectFormat(file)).toBe('openhands');
    const w = await importOpenHands(file);
    expect(w.steps).toHaveLength(2);
    const [a, b] = w.steps;
    expect(a!.prompt![0]).toMatchObject({ typed: true, block: { text: 'Add a --verbose flag to cli/main.py' } });
    expect(a!.reply.map((x) => x.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(a!.reply[1]).toMatchObject({ id: 'toolu_oh_01', name: 'str_replace_editor', input: { command: 'view', path: '/workspace/cli/main.py' } });
    expect(a!.toolResults.map((r) => r.toolUseId)).toEqual(['toolu_oh_01', 'toolu_oh_02']);
    // prompt_tokens counts cached tokens too: uncached = 5200 − 0 − 5100.
    expect(a!.usage).toEqual({ input: 100, output: 120, cacheRead: 0, cacheWrite5m: 5100, cacheWrite1h: 0 });
    expect(b!.usage).toEqual({ input: 50, output: 60, cacheRead: 5100, cacheWrite5m: 450, cacheWrite1h: 0 });
    expect(w.stats.skipped['agent bookkeeping (system)']).toBe(1);
    expect(w.stats.skipped['observation agent_state_changed not answering a tool call']).toBe(2);
  });
});
