/**
 * A child agent's tool calls are the parent run's business: a call the parent's rules deny is in
 * the parent's `permission_denials` and event stream, and the parent's shell hooks get, for a
 * child's call, `agent_id` (the child's session) and `agent_type` next to the parent's `session_id`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAgent } from '../../../testing/agent.js';
import { useTestEnv } from '../../../testing/env.js';
import { writeFiles } from '../../../testing/support.js';

const env = useTestEnv({ prefix: 'rein-child-' });

const SCENARIO = `
turns:
  - reply: [{ tool_use: { name: Task, input: { description: Copy notes, prompt: "Read notes.txt and save a copy as copy.txt.", subagent_type: general-purpose } } }]
  - reply: [{ tool_use: { name: Read, input: { file_path: notes.txt } } }, { tool_use: { name: Write, input: { file_path: copy.txt, content: "copy" } } }]
  - reply: [{ text: "Read it; the copy was not allowed." }]
  - reply: [{ text: "The agent read the notes but could not write the copy." }]
`;

describe("a child agent's tool calls, seen from the parent", () => {
  it("a denied child call is in the parent's permission_denials and events; hooks get agent_id and agent_type", async () => {
    writeFiles(env.dir, { 'notes.txt': 'hello\n' });
    const rig = await startAgent({
      cwd: env.dir,
      preset: {
        name: 'parent', model: { name: 'claude-sonnet-4-6' }, tools: ['Read', 'Write', 'Task'],
        permissions: { mode: 'default', allow: ['Read'] },
        hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'cat >> hook-inputs.jsonl; echo >> hook-inputs.jsonl' }] }] },
      },
      scenario: SCENARIO,
    });
    try {
      const { events, result } = await rig.run('Copy the notes.');
      expect(result.terminalReason).toBe('end_turn');
      expect(existsSync(join(env.dir, 'copy.txt'))).toBe(false);
      expect(result.permissionDenials).toEqual([expect.objectContaining({ tool_name: 'Write', tool_input: { file_path: 'copy.txt', content: 'copy' } })]);
      expect(events.filter((e) => e.type === 'permission_denied').map((e) => (e as { denial: { tool_name: string } }).denial.tool_name)).toEqual(['Write']);

      const inputs = readFileSync(join(env.dir, 'hook-inputs.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      expect(inputs).toHaveLength(1);
      const started = events.flatMap((e) => (e.type === 'notice' ? [/^subagent general-purpose started \(Copy notes\), session (\S+)$/.exec(e.message)?.[1]] : [])).find(Boolean);
      expect(started).toBeDefined();
      expect(inputs[0]).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Read', session_id: result.sessionId, agent_id: started, agent_type: 'general-purpose' });
    } finally {
      await rig.close();
    }
  });
});
