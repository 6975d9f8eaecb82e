import { describe, expect, it } from 'vitest';
import { startAgent } from '../testing/agent.js';
import { useTestEnv } from '../testing/index.js';

const env = useTestEnv({ prefix: 'rein-lean-' });

/** A Read with an offset the schema refuses, then an answer. */
const BAD_READ = `
turns:
  - reply: [{ tool_use: { name: Read, input: { file_path: notes.txt, offset: -1 } } }]
  - reply: [{ text: "Done." }]
`;

describe('the lean preset', () => {
  it('sends condensed tools that name every parameter in their description, and still validates input with the full schema', async () => {
    const rig = await startAgent({ cwd: env.dir, preset: 'lean', scenario: BAD_READ, canUseTool: () => ({ behavior: 'allow' }) });
    try {
      await rig.run('Read the notes.');
      const [first, second] = rig.requests();
      const loaded = (first!.body.tools as Record<string, any>[]).filter((t) => !t.defer_loading);
      expect(loaded.map((t) => t.name).sort()).toEqual(['Bash', 'Edit', 'Read', 'ToolSearch', 'Write']);
      for (const t of loaded) {
        for (const [name, prop] of Object.entries(t.input_schema.properties as Record<string, Record<string, unknown>>)) {
          expect(t.description, `${t.name}.${name}`).toContain(name);
          if (t.name !== 'ToolSearch') expect(prop.description, `${t.name}.${name}`).toBeUndefined();
        }
      }
      // The condensed schema has no descriptions, but the zod schema still refuses the offset.
      const result = second!.body.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
      expect(result.is_error).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/offset/);
    } finally {
      await rig.close();
    }
  });
});
