import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import taskPlugin from './index.js';
import readPlugin from '../read/index.js';
import writePlugin from '../write/index.js';
import { createKernel } from '../../../testing/index.js';
import { type SubagentInfo, type ContentBlock, type Message, definePlugin, defineTool } from '../../../kernel/index.js';
import { parseScenario } from '../../../simulator/index.js';
import { z } from 'zod';
import { cleanupTempDirs, tempDir, useTempReinHome } from '../../../testing/tools.js';
import { embeddedSimulator, subagents } from '../../../testing/index.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
  writeFileSync(join(dir, 'notes.txt'), 'hello from the notes\n');
});
afterAll(cleanupTempDirs);

const SCENARIO = `
turns:
  # parent
  - reply: [{ text: "Delegating." }, { tool_use: { name: Task, input: { description: "Summarise notes", prompt: "Read notes.txt and report what it says. Also save a copy to copy.txt.", subagent_type: general-purpose } } }]
  # child
  - reply: [{ tool_use: { name: Read, input: { file_path: notes.txt } } }, { tool_use: { name: Write, input: { file_path: copy.txt, content: "copy" } } }]
  - reply: [{ text: "The notes say: hello from the notes. I could not save the copy." }]
  # parent again
  - reply: [{ text: "The subagent reports the notes say hello." }]
`;

function toolResults(messages: Message[]): { id: string; text: string; isError: boolean }[] {
  return messages.flatMap((m) => m.content.filter((b): b is Extract<ContentBlock, { type: 'tool_result' }> => b.type === 'tool_result')
    .map((b) => ({ id: b.tool_use_id, text: (b.content as { text: string }[]).map((c) => c.text).join('\n'), isError: b.is_error === true })));
}

describe('Task', () => {
  it('runs a child agent whose tool calls go through the parent\'s permission and tool hooks, and returns its report', async () => {
    const client = await embeddedSimulator({ scenario: parseScenario(SCENARIO) });
    try {
      const parent = await createKernel({
        preset: { name: 'parent', model: { name: 'claude-sonnet-4-5' }, tools: ['Read', 'Write', 'Task'] },
        cwd: dir,
        client,
        subagents,
        plugins: [{ plugin: readPlugin }, { plugin: writePlugin }, { plugin: taskPlugin }],
      });
      const asked: string[] = [];
      const pre: string[] = [];
      const post: string[] = [];
      const started: SubagentInfo[] = [];
      const stopped: SubagentInfo[] = [];
      // The parent's policy: Write is denied, everything else allowed. It must apply to the child too.
      parent.hooks.permission.tap('policy', (q) => {
        asked.push(q.toolName);
        return q.toolName === 'Write' ? { behavior: 'deny', message: 'Writing is not allowed in this session.' } : { behavior: 'allow' };
      });
      parent.hooks.preToolUse.tap('audit', (p) => { pre.push(p.toolName); return p; });
      parent.hooks.postToolUse.tap('audit', (p) => { post.push(p.toolName); return p; });
      parent.hooks.subagentStart.tap('t', (i) => { started.push(i); });
      parent.hooks.subagentStop.tap('t', (i) => { stopped.push(i); });

      const result = await parent.run({ prompt: 'What do the notes say?' }).result;
      expect(result.terminalReason).toBe('end_turn');
      expect(result.text).toBe('The subagent reports the notes say hello.');

      // The Task result is the child's final report.
      const [task] = toolResults(parent.messages);
      expect(task!.isError).toBe(false);
      expect(task!.text).toBe('The notes say: hello from the notes. I could not save the copy.');

      // The child's Read and Write were decided by the parent's hooks; the Write was denied.
      expect(asked).toEqual(['Task', 'Read', 'Write']);
      expect(pre).toEqual(['Task', 'Read']);
      expect(post).toEqual(['Read', 'Task']);
      expect(existsSync(join(dir, 'copy.txt'))).toBe(false);

      // subagentStart / subagentStop, with the child's own session and transcript.
      expect(started).toHaveLength(1);
      expect(started[0]!.preset).toBe('general-purpose');
      expect(stopped[0]!.result?.terminalReason).toBe('end_turn');
      const childId = started[0]!.childSessionId;
      expect(childId).not.toBe(parent.sessionId);
      const { Transcript } = await import('../../../lib/index.js');
      const childTranscript = Transcript.open(childId, { cwd: dir, root: join(parent.sessionDir(), 'subagents') });
      const childResults = toolResults(childTranscript.replayMessages());
      expect(childResults.map((r) => r.isError)).toEqual([false, true]);
      expect(childResults[1]!.text).toBe('Writing is not allowed in this session.');
      expect(readFileSync(childTranscript.file, 'utf8')).not.toContain('What do the notes say?');

      // The child's requests count in the parent's usage.
      expect(result.sideUsage.subagent?.output_tokens).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('shares the parent\'s MCP tools with the child (same tool objects, same connections)', async () => {
    const scenario = parseScenario(`
turns:
  - reply: [{ tool_use: { name: Task, input: { description: "Ping", prompt: "Ping the server." } } }]
  - reply: [{ tool_use: { name: mcp__fake__ping, input: {} } }]
  - reply: [{ text: "pong received" }]
  - reply: [{ text: "done" }]
`);
    const client = await embeddedSimulator({ scenario });
    try {
      let calls = 0;
      const fakeMcp = definePlugin({
        name: 'fake-mcp',
        apply(k) {
          k.tools.register(defineTool({ name: 'mcp__fake__ping', description: 'ping', inputSchema: z.object({}), isReadOnly: () => true, call: async () => { calls++; return 'pong'; } }), 'tools/mcp');
        },
      });
      const parent = await createKernel({ preset: { name: 'p', tools: ['Task'] }, cwd: dir, client, subagents, plugins: [{ plugin: fakeMcp }, { plugin: taskPlugin }] });
      parent.hooks.permission.tap('allow', () => ({ behavior: 'allow' }));
      const result = await parent.run({ prompt: 'go' }).result;
      expect(result.text).toBe('done');
      expect(calls).toBe(1);
      expect(toolResults(parent.messages)[0]!.text).toBe('pong received');
    } finally {
      await client.close();
    }
  });

  it('refuses an unknown subagent_type with the list of known ones', async () => {
    const client = await embeddedSimulator({ scenario: parseScenario('turns: []') });
    try {
      const k = await createKernel({ preset: { name: 'p' }, cwd: dir, client, plugins: [{ plugin: taskPlugin }] });
      const { runToolCalls } = await import('../../../kernel/index.js');
      const out = await runToolCalls(k, [{ type: 'tool_use', id: 'toolu_x', name: 'Task', input: { description: 'x', prompt: 'y', subagent_type: 'wizard' } }], k.runContext());
      expect(out.results[0]!.is_error).toBe(true);
      expect(JSON.stringify(out.results[0]!.content)).toContain('Unknown subagent_type \\"wizard\\". Available: general-purpose.');
    } finally {
      await client.close();
    }
  });

  it('lists the configured agents in a reminder message, never in the tool description', async () => {
    const client = await embeddedSimulator({ scenario: parseScenario('turns:\n  - reply: [{ text: "ok" }]\n') });
    try {
      const k = await createKernel({
        preset: { name: 'p' }, cwd: dir, client,
        plugins: [{ plugin: taskPlugin, options: { agents: { reviewer: { description: 'Reviews a diff.', tools: ['Read', 'Grep'], prompt: 'Review.' } }, defaultAgent: 'reviewer', agentFiles: { project: false, user: false } } }],
      });
      const d1 = JSON.stringify(k.tools.definitions());
      expect(d1).not.toContain('Reviews a diff.');
      await k.run({ prompt: 'hi' }).result;
      const reminder = k.messages.find((m) => m.meta?.source === 'tools/task')!;
      expect((reminder.content[0] as { text: string }).text).toContain('- reviewer: Reviews a diff. (Tools: Read, Grep)');
      expect((reminder.content[0] as { text: string }).text).toContain('- general-purpose: ');
      expect(JSON.stringify(k.tools.definitions())).toBe(d1);
    } finally {
      await client.close();
    }
  });

  it('a fork cannot fork again, even after its history was compacted away', async () => {
    const client = await embeddedSimulator({ scenario: parseScenario('turns: []') });
    try {
      const k = await createKernel({ preset: { name: 'p' }, cwd: dir, client, plugins: [{ plugin: taskPlugin, options: { fork: { enabled: true }, agentFiles: { project: false, user: false } } }] });
      const { makeFork } = await import('./fork.js');
      makeFork(k, { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [] }, 'toolu_parent');
      // A compaction replaces the whole history: the mark is on the kernel, not in a message.
      k.messages = [{ role: 'user', content: [{ type: 'text', text: 'Summary of the conversation so far.' }], meta: { compactSummary: true } }];
      const { runToolCalls } = await import('../../../kernel/index.js');
      for (const input of [{ description: 'x', prompt: 'fork again' }, { description: 'x', prompt: 'y', subagent_type: 'general-purpose' }]) {
        const out = await runToolCalls(k, [{ type: 'tool_use', id: 'toolu_x', name: 'Task', input }], k.runContext());
        expect(out.results[0]!.is_error).toBe(true);
        expect(JSON.stringify(out.results[0]!.content)).toContain('Fork is not available inside a forked worker');
      }
    } finally {
      await client.close();
    }
  });
});
