/**
 * At the turn limit the run ends with an answer: on the last allowed request the model is told so
 * and the tools are withdrawn (`tool_choice: none`), so a model that would have called one more
 * tool answers instead. The run still ends `max_turns` (exit 1 and `error_max_turns` for
 * `rein -p`, as `claude -p` reports a run the limit stopped), with that answer as its text. A last
 * request that answers a prompt rather than tool calls is left alone.
 */
import { describe, expect, it } from 'vitest';
import { startAgent } from '../../testing/agent.js';
import { useTestEnv } from '../../testing/env.js';
import { runCli, writeFiles } from '../../testing/support.js';
import { join } from 'node:path';
import { FINAL_TURN_NOTE } from './index.js';

const env = useTestEnv({ prefix: 'rein-final-' });

// The model keeps reading; its third reply also says what it found so far.
const SCENARIO = `
turns:
  - reply: [{ tool_use: { name: Read, input: { file_path: a.txt } } }]
  - reply: [{ tool_use: { name: Read, input: { file_path: b.txt } } }]
  - reply: [{ text: "a.txt and b.txt both say hello; c.txt is not read yet." }, { tool_use: { name: Read, input: { file_path: c.txt } } }]
  - reply: [{ text: "unused" }]
`;

describe('the turn limit', () => {
  it('with the default preset, the last allowed turn ends with an answer, and the run as max_turns', async () => {
    writeFiles(env.dir, { 'a.txt': 'hello\n', 'b.txt': 'hello\n', 'c.txt': 'hello\n' });
    const rig = await startAgent({ cwd: env.dir, preset: 'default', overrides: { limits: { maxTurns: 3 }, plugins: { 'memory-files': { user: false } } }, scenario: SCENARIO });
    try {
      const { result } = await rig.run('What do the three files say?');
      expect(result.terminalReason).toBe('max_turns');
      expect(result.terminalDetail).toBe('the turn limit (3) was reached; the model was asked for a final answer');
      expect(result.numTurns).toBe(3);
      expect(result.text).toBe('a.txt and b.txt both say hello; c.txt is not read yet.');
      const bodies = rig.requests().map((r) => r.body);
      expect(bodies).toHaveLength(3);
      // Only the last request withdraws the tools (they stay defined) and carries the note, at the end.
      expect(bodies.map((b) => b.tool_choice?.type)).toEqual([undefined, undefined, 'none']);
      expect(bodies[2]!.tools.length).toBe(bodies[1]!.tools.length);
      expect(bodies[2]!.messages.at(-1).content.at(-1)).toMatchObject({ type: 'text', text: FINAL_TURN_NOTE });
      expect(JSON.stringify(rig.agent.kernel.messages)).not.toContain(FINAL_TURN_NOTE);
    } finally {
      await rig.close();
    }
  });

  it('a run that ends before the limit is end_turn, untouched', async () => {
    writeFiles(env.dir, { 'a.txt': 'hello\n' });
    const scenario = `
turns:
  - reply: [{ tool_use: { name: Read, input: { file_path: a.txt } } }]
  - reply: [{ text: "a.txt says hello." }]
`;
    const rig = await startAgent({ cwd: env.dir, preset: 'default', overrides: { limits: { maxTurns: 3 }, plugins: { 'memory-files': { user: false } } }, scenario });
    try {
      const { result } = await rig.run('What does a.txt say?');
      expect(result.terminalReason).toBe('end_turn');
      expect(result.text).toBe('a.txt says hello.');
      expect(rig.requests().map((r) => r.body.tool_choice?.type)).toEqual([undefined, undefined]);
    } finally {
      await rig.close();
    }
  });

  it('a last request that answers a prompt is left alone: an answer is success, a tool call runs and ends max_turns, as claude -p --max-turns 1', async () => {
    writeFiles(env.dir, { 'a.txt': 'hello\n' });
    const answers = `
turns:
  - reply: [{ text: "4" }]
`;
    const rig = await startAgent({ cwd: env.dir, preset: 'default', overrides: { limits: { maxTurns: 1 }, plugins: { 'memory-files': { user: false } } }, scenario: answers });
    try {
      const { result } = await rig.run('What is 2+2?');
      expect([result.terminalReason, result.text]).toEqual(['end_turn', '4']);
      const body = rig.requests()[0]!.body;
      expect(body.tool_choice).toBeUndefined();
      expect(JSON.stringify(body.messages)).not.toContain(FINAL_TURN_NOTE);
    } finally {
      await rig.close();
    }
    const reads = `
turns:
  - reply: [{ tool_use: { name: Read, input: { file_path: a.txt } } }]
  - reply: [{ text: "unused" }]
`;
    const rig2 = await startAgent({ cwd: env.dir, preset: 'default', overrides: { limits: { maxTurns: 1 }, plugins: { 'memory-files': { user: false } } }, scenario: reads });
    try {
      const { result } = await rig2.run('What does a.txt say?');
      expect(result.terminalReason).toBe('max_turns');
      expect(rig2.requests()).toHaveLength(1);
      // The call ran: its result is in the history, as after claude -p's last turn.
      expect(JSON.stringify(rig2.agent.kernel.messages.at(-1))).toContain('hello');
    } finally {
      await rig2.close();
    }
  });

  it('rein -p --max-turns: exit 1 and error_max_turns with the answer in result, as claude -p reports the limit', async () => {
    writeFiles(env.dir, { 'a.txt': 'hello\n', 'b.txt': 'hello\n', 'c.txt': 'hello\n', 'scenario.yaml': SCENARIO });
    const r = await runCli(['-p', '--max-turns', '3', '--output-format', 'json', '--sim', 'scenario.yaml', '--no-layers', 'What do the three files say?'], { cwd: env.dir, env: { REIN_HOME: join(env.dir, 'home') } });
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 3, result: 'a.txt and b.txt both say hello; c.txt is not read yet.', terminal_reason: 'max_turns' });
  });

  it('resuming a run the limit ended: a cache break names the last request\'s own form of its last message, not a rewrite', async () => {
    writeFiles(env.dir, { 'a.txt': 'hello\n', 'b.txt': 'hello\n', 'c.txt': 'hello\n', 'scenario.yaml': SCENARIO, 'next.yaml': 'turns:\n  - reply: [{ text: "done" }]\n' });
    const cli = (args: string[]) => runCli(args, { cwd: env.dir, env: { REIN_HOME: join(env.dir, 'home') } });
    const first = await cli(['-p', '--max-turns', '3', '--sim', 'scenario.yaml', '--no-layers', 'What do the three files say?']);
    expect(first.code, first.stderr).toBe(1);
    const resumed = await cli(['-p', '-c', '--sim', 'next.yaml', '--no-layers', 'go on']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const breakLine = resumed.stderr.split('\n').find((l) => l.includes('cache break'));
    // The last request went without tools and with the note on its last message; the history keeps
    // neither, so the cache from that message on is not reused, and the warning says why.
    expect(breakLine).toContain('tool_choice changed');
    expect(breakLine).toMatch(/message \d+ \(user\) differs from the previous request's last message: that request sent it in a form of its own/);
    expect(breakLine).not.toContain('the history was rewritten');
  });

  it('without the plugin the same run ends max_turns after a tool call', async () => {
    writeFiles(env.dir, { 'a.txt': 'hello\n', 'b.txt': 'hello\n', 'c.txt': 'hello\n' });
    const rig = await startAgent({ cwd: env.dir, preset: 'default', overrides: { limits: { maxTurns: 3 }, plugins: { 'memory-files': { user: false }, 'final-answer': false } }, scenario: SCENARIO });
    try {
      const { result } = await rig.run('What do the three files say?');
      expect(result.terminalReason).toBe('max_turns');
    } finally {
      await rig.close();
    }
  });
});
