/**
 * The task list survives every compaction: after a summary replaces the history, the list as the
 * model last wrote it is in the new history, and so in the next request, once.
 */
import { describe, expect, it } from 'vitest';
import { startAgent } from '../../../testing/agent.js';
import { useTestEnv } from '../../../testing/env.js';
import { writeFiles } from '../../../testing/support.js';

const env = useTestEnv({ prefix: 'rein-todo-compact-' });

const TODOS = '[{ content: "Read the parser", status: completed, activeForm: "Reading the parser" }, { content: "Fix the off-by-one", status: in_progress, activeForm: "Fixing the off-by-one" }, { content: "Run the tests", status: pending, activeForm: "Running the tests" }]';

const SCENARIO = `
turns:
  - reply: [{ tool_use: { name: TodoWrite, input: { todos: ${TODOS} } } }]
  - reply: [{ text: "Reading." }, { tool_use: { name: Read, input: { file_path: parser.txt } } }]
  - reply: [{ text: "Found it." }]
  - reply: [{ text: "Still on the fix." }]
  - reply: [{ text: "Nearly there." }]
  - reply: [{ text: "Done soon." }]
side:
  - match: { source: compact }
    reply: [{ text: "<summary>The user asked for a parser fix; the parser was read.</summary>" }]
`;

const LIST = 'Your task list (TodoWrite), as it stands; keep it up to date:\n1. [completed] Read the parser\n2. [in_progress] Fix the off-by-one\n3. [pending] Run the tests';

const texts = (body: Record<string, any>) =>
  (body.messages as { content: string | { type: string; text?: string }[] }[]).flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' ? [b.text!] : []))));

describe('the TodoWrite list and compaction', () => {
  it('is put back after each compaction, so the next request has the current list, once', async () => {
    writeFiles(env.dir, { 'parser.txt': 'function parse(s) { return s.slice(1); }\n'.repeat(40) });
    const rig = await startAgent({
      cwd: env.dir,
      preset: { name: 'todo', model: { name: 'claude-sonnet-4-6' }, tools: ['Read', 'TodoWrite'], permissions: { allow: ['Read', 'TodoWrite'] }, plugins: { 'compaction/auto': { restore: { maxFiles: 0 } } } },
      scenario: SCENARIO,
    });
    try {
      await rig.run('Fix the off-by-one in the parser.');
      expect(await rig.agent.kernel.compact()).toBe(true);
      await rig.run('How is it going?');
      let last = rig.requests().at(-1)!.body;
      expect(texts(last).filter((t) => t === LIST)).toHaveLength(1);

      // And again after a second compaction, which summarises the first summary too.
      await rig.run('And now?');
      expect(await rig.agent.kernel.compact()).toBe(true);
      await rig.run('Status?');
      last = rig.requests().at(-1)!.body;
      expect(texts(last).filter((t) => t === LIST)).toHaveLength(1);
    } finally {
      await rig.close();
    }
  });
});
