/**
 * Every hook in the table fires in some scenario: the declared list and the fired list are the same
 * set. A tapable interceptor on each hook records calls whether or not anything is tapped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HOOK_NAMES, type HookName } from '../kernel/hooks.js';
import { definePlugin } from '../kernel/plugin.js';
import { defineTool, ToolError } from '../kernel/tool.js';
import retry from '../plugins/retry/index.js';
import maxOutputTokens from '../plugins/max-output-tokens/index.js';
import task from '../plugins/tools/task/index.js';
import bash from '../plugins/tools/bash/index.js';
import { collect, serveScenario, simKernel, type SimHarness } from '../testing/support.js';
import { useTestEnv } from '../testing/index.js';
import type { Message } from '../kernel/types.js';
import { subprocessEnv } from '../lib/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv();
let sim: SimHarness | undefined;
afterEach(async () => {
  await sim?.close();
});

const scenarioPlugin = definePlugin({
  name: 'test/scenario',
  apply(kernel) {
    kernel.tools.register(defineTool({
      name: 'Boom', description: 'always fails', inputSchema: z.object({}).strict(), isReadOnly: () => true,
      call: async () => { throw new ToolError('boom'); },
    }));
    kernel.tools.register(defineTool({
      name: 'Guarded', description: 'needs approval', inputSchema: z.object({}).strict(),
      // A tool that walks files asks pathAccess; one that starts a process asks subprocessEnv.
      call: async (_input, ctx) => {
        ctx.checkPath(ctx.cwd, 'read');
        subprocessEnv(ctx.kernel, { kind: 'test' });
        return 'approved and ran';
      },
    }));
    // Asks for Guarded; a host answer (permissionRequest) approves it.
    kernel.hooks.permission.tap('test/scenario', (q) => (q.toolName === 'Guarded' ? { behavior: 'ask', reason: 'test' } : undefined));
    kernel.hooks.permissionRequest.tap('test/scenario', () => ({ behavior: 'allow' }));
    kernel.hooks.compact.tap('test/scenario', () => ({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'summary' }] }] as Message[], tokensAfter: 1, strategy: 'test',
    }));
  },
});

describe('the hook table', () => {
  it('fires every declared hook in one scenario', async () => {
    sim = await serveScenario(`
turns:
  - fault: { status: 500 }
  - reply: [{ text: "cut" }]
    stop_reason: max_tokens
  - reply: [{ tool_use: { name: Task, input: { description: "look", prompt: "look around", subagent_type: general-purpose } } }]
  - reply: [{ text: "child report" }]
  - reply: [{ tool_use: { name: Boom, input: {} } }, { tool_use: { name: Guarded, input: {} } }, { tool_use: { name: Bash, input: { command: "echo spawned" } } }]
  - reply: [{ text: "done" }]
`, env.dir);
    const kernel = await simKernel(sim, {
      cwd: env.dir,
      plugins: [{ plugin: retry, options: { baseDelayMs: 1 } }, { plugin: maxOutputTokens }, { plugin: task, options: { agents: { 'general-purpose': { description: 'helper', prompt: 'help', tools: [] } } } }, { plugin: bash }, { plugin: scenarioPlugin }],
    });
    const fired = new Set<HookName>();
    for (const name of HOOK_NAMES) {
      (kernel.hooks[name] as unknown as { intercept(i: { call: () => void }): void }).intercept({ call: () => fired.add(name) });
    }
    const { result } = await collect(kernel, 'go');
    expect(result.terminalReason).toBe('end_turn');
    expect(await kernel.compact('manual test')).toBe(true);
    // sessionEnd fires when the session closes.
    expect(fired.has('sessionEnd')).toBe(false);
    await kernel.close();

    expect([...fired].sort()).toEqual([...HOOK_NAMES].sort());
    // The tool calls did what the hooks decided.
    const results = sim.requests()[5]!.body.messages.at(-1).content;
    expect(results[0]).toMatchObject({ is_error: true, content: [{ type: 'text', text: 'boom' }] });
    expect(results[1]).toMatchObject({ content: [{ type: 'text', text: 'approved and ran' }] });
    expect(results[2]).toMatchObject({ content: [{ type: 'text', text: 'spawned' }] });
  });

  it('is frozen: plugins cannot add or replace hooks', async () => {
    sim = await serveScenario('turns: []\n', env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir });
    expect(Object.isFrozen(kernel.hooks)).toBe(true);
    expect(() => { (kernel.hooks as unknown as Record<string, unknown>).extra = 1; }).toThrow(TypeError);
  });

  it('runs staged taps by stage whatever order they were added in', async () => {
    sim = await serveScenario('turns: []\n', env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir });
    const order: string[] = [];
    kernel.hooks.context.tap({ name: 'heavy', stage: 500 }, (s) => { order.push('heavy'); return s; });
    kernel.hooks.context.tap({ name: 'light', stage: 100 }, (s) => { order.push('light'); return s; });
    await kernel.hooks.context.promise({ messages: [], tokensFreed: 0 }, kernel.runContext());
    expect(order).toEqual(['light', 'heavy']);
  });
});
