import { describe, expect, it } from 'vitest';
import { estimateToolTokens } from '../../../lib/index.js';
import { useTestEnv } from '../../../testing/index.js';
import { startAgent } from '../../../testing/agent.js';
import { searchTools, toolSearchDescription } from './tool.js';
import { matchesDeferred } from './index.js';

const env = useTestEnv({ prefix: 'rein-tool-search-' });

/** Finds TodoWrite by name, calls it, answers. */
const SELECT_THEN_CALL = `
turns:
  - reply: [{ text: "Loading the task list tool." }, { tool_use: { name: ToolSearch, input: { query: "select:TodoWrite" } } }]
  - reply: [{ text: "Planning." }, { tool_use: { name: TodoWrite, input: { todos: [{ content: "Read notes", activeForm: "Reading notes", status: in_progress }] } } }]
  - reply: [{ text: "Planned." }]
`;

type Usage = { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
const promptOf = (u: Usage) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
const withoutMarkers = (tools: object[]) => tools.map((t) => { const { cache_control: _c, ...rest } = t as Record<string, unknown>; return rest; });

describe('tools/tool-search in the default preset', () => {
  it('sends rarely used tools deferred, loads one with a tool_reference, and the next request reads the whole earlier prefix from the cache', async () => {
    const rig = await startAgent({ cwd: env.dir, preset: 'default', scenario: SELECT_THEN_CALL, canUseTool: () => ({ behavior: 'allow' }) });
    try {
      const { result } = await rig.run('Plan the work.');
      expect(result.isError).toBe(false);
      expect(result.text).toBe('Planned.');
      const reqs = rig.requests() as unknown as { body: Record<string, any>; usage: Usage }[];
      expect(reqs).toHaveLength(3);
      const [first, second, third] = reqs;
      const tools = first!.body.tools as Record<string, any>[];
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const name of ['Task', 'WebFetch', 'TodoWrite', 'Glob', 'Grep', 'BashOutput', 'KillShell']) expect(byName.get(name)?.defer_loading, name).toBe(true);
      for (const name of ['Read', 'Write', 'Edit', 'Bash', 'ToolSearch']) expect(byName.get(name)?.defer_loading, name).toBeUndefined();
      expect(byName.get('ToolSearch')!.description).toBe(toolSearchDescription(['BashOutput', 'Glob', 'Grep', 'KillShell', 'Task', 'TodoWrite', 'WebFetch']));
      // The tools marker sits on the last tool the prompt holds, not on a deferred one.
      const marked = tools.filter((t) => t.cache_control);
      expect(marked.map((t) => t.name)).toEqual(['Write']);

      // The search answered with a reference only; the tools parameter did not change.
      const last = second!.body.messages.at(-1);
      const searchResult = last.content.find((b: any) => b.type === 'tool_result');
      expect(searchResult.content.map((b: any) => ({ type: b.type, tool_name: b.tool_name }))).toEqual([{ type: 'tool_reference', tool_name: 'TodoWrite' }]);
      expect(withoutMarkers(second!.body.tools)).toEqual(withoutMarkers(tools));

      // Request 2 reads everything request 1 sent; what it writes holds TodoWrite's definition,
      // counted where the reference is (not in the tools prefix).
      expect(second!.usage.cache_read_input_tokens).toBe(promptOf(first!.usage));
      const { defer_loading: _d, cache_control: _c, ...todoDef } = byName.get('TodoWrite')!;
      const defTokens = estimateToolTokens(todoDef);
      expect(defTokens).toBeGreaterThan(500);
      expect(promptOf(first!.usage)).toBeLessThan(tools.filter((t) => !t.defer_loading).reduce((n, t) => n + estimateToolTokens(t), 0) + 2_000);
      expect(second!.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(defTokens);
      expect(third!.usage.cache_read_input_tokens).toBe(promptOf(second!.usage));
      // The loaded tool ran like any other.
      const todoResult = third!.body.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
      expect(todoResult.is_error).toBeUndefined();
    } finally {
      await rig.close();
    }
  });

  // The API answers `defer_loading` from a model without tool search with a 400, so `auto` sends
  // such a model the full array too.
  it.each([
    ['with loading: full', { extends: 'default', plugins: { 'tools/tool-search': { loading: 'full' as const } } }],
    ['by default, to a model without tool search', { extends: 'default', model: { name: 'claude-sonnet-4-20250514' } }],
  ])('%s sends every tool in full and offers no ToolSearch', async (_label, preset) => {
    const scenario = 'turns:\n  - reply: [{ text: "Done." }]\n';
    const rig = await startAgent({ cwd: env.dir, preset, scenario });
    try {
      await rig.run('Hello.');
      const tools = rig.requests()[0]!.body.tools as Record<string, any>[];
      expect(tools.map((t) => t.name)).toContain('TodoWrite');
      expect(tools.map((t) => t.name)).not.toContain('ToolSearch');
      expect(tools.some((t) => 'defer_loading' in t)).toBe(false);
    } finally {
      await rig.close();
    }
  });

  it('answers a search that matches nothing with the list of deferred tools, as text', async () => {
    const scenario = `
turns:
  - reply: [{ tool_use: { name: ToolSearch, input: { query: "spreadsheet" } } }]
  - reply: [{ text: "None." }]
`;
    const rig = await startAgent({ cwd: env.dir, preset: 'lean', scenario });
    try {
      await rig.run('Find a spreadsheet tool.');
      const result = rig.requests()[1]!.body.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
      expect(result.content).toEqual([{ type: 'text', text: 'No deferred tool matches "spreadsheet". Deferred tools: BashOutput, Glob, Grep, KillShell, Task, TodoWrite, WebFetch.' }]);
    } finally {
      await rig.close();
    }
  });
});

describe('searchTools', () => {
  const tools = [
    { name: 'WebFetch', description: 'Fetches a URL and answers a question about its content.' },
    { name: 'TodoWrite', description: 'Keeps the task list.' },
    { name: 'mcp__github__create_issue', description: 'Creates a GitHub issue.' },
  ];
  it('select: takes exact names (any case), drops unknown ones, keeps their order', () => {
    expect(searchTools(tools, 'select:todowrite, Nope ,WebFetch', 1)).toEqual(['TodoWrite', 'WebFetch']);
  });
  it('keywords rank name hits above description hits and stop at max', () => {
    expect(searchTools(tools, 'github issue', 5)).toEqual(['mcp__github__create_issue']);
    expect(searchTools(tools, 'fetch task', 5)).toEqual(['WebFetch', 'TodoWrite']);
    expect(searchTools(tools, 'fetch task', 1)).toEqual(['WebFetch']);
    expect(searchTools(tools, 'zzz', 5)).toEqual([]);
  });
  it('defer patterns: exact names, and a trailing * as a prefix', () => {
    expect(matchesDeferred('mcp__github__x', ['mcp__*'])).toBe(true);
    expect(matchesDeferred('Task', ['Task'])).toBe(true);
    expect(matchesDeferred('TaskOutput', ['Task'])).toBe(false);
  });
});
