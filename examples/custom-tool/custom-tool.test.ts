/**
 * The custom-tool example, run for real: the preset loads ./word-count.ts by path, the scripted model
 * calls WordCount through the real SDK against the simulator, and the count comes back to it.
 */
import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { createAgent, PluginError, type AgentEvent } from '../../index.js';
import { runCli, tempDir, useTestEnv } from '../../testing/index.js';
import { countText } from './word-count.js';

const HERE = dirname(fileURLToPath(import.meta.url));
// A temp REIN_HOME for the file (transcripts never go to ~/.rein).
const env = useTestEnv({ scope: 'all', prefix: 'rein-example-tool-' });

describe('examples/custom-tool', () => {
  it('counts like wc', () => {
    expect(countText('The fog comes\non little cat feet.\n')).toEqual({ lines: 2, words: 7, characters: 34 });
    expect(countText('')).toEqual({ lines: 0, words: 0, characters: 0 });
    expect(countText('no newline')).toEqual({ lines: 1, words: 2, characters: 10 });
  });

  it('the preset loads the tool by path and the model gets the count of poem.txt', async () => {
    const agent = await createAgent({ preset: join(HERE, 'agent.yaml'), sim: join(HERE, 'scenario.yaml'), cwd: HERE, layers: false });
    try {
      expect(agent.kernel.tools.names()).toEqual(['WordCount']);
      const events: AgentEvent[] = [];
      const run = agent.run('How many words are in poem.txt?');
      for await (const e of run) events.push(e);
      const result = await run.result;
      expect(result.terminalReason).toBe('end_turn');
      expect(result.numTurns).toBe(2);
      const toolResults = events.find((e) => e.type === 'tool_results');
      expect(toolResults?.type === 'tool_results' && toolResults.message.content[0]).toMatchObject({
        type: 'tool_result',
        content: [{ type: 'text', text: 'poem.txt: 4 lines, 14 words, 71 characters' }],
      });
    } finally {
      await agent.close();
    }
  });

  // The preset loads word-count.ts through jiti, so its ToolError is another copy of the class than
  // the loop's: the message must still go back as it is.
  it('a missing file goes back to the model as an is_error result with the ToolError message as it is', async () => {
    const { dir, cleanup } = tempDir('rein-example-tool-cwd-');
    try {
      writeFileSync(join(dir, 's.yaml'), 'turns:\n  - reply: [{ tool_use: { name: WordCount, input: { file_path: gone.txt } } }]\n  - reply: [{ text: "It is gone." }]\n');
      const agent = await createAgent({ preset: join(HERE, 'agent.yaml'), sim: join(dir, 's.yaml'), cwd: dir, layers: false });
      const events: AgentEvent[] = [];
      const run = agent.run('count gone.txt');
      for await (const e of run) events.push(e);
      await agent.close();
      expect((await run.result).terminalReason).toBe('end_turn');
      const block = events.flatMap((e) => (e.type === 'tool_results' ? e.message.content : []))[0];
      expect(block).toMatchObject({ type: 'tool_result', is_error: true, content: [{ type: 'text', text: 'gone.txt is not a file' }] });
    } finally {
      cleanup();
    }
  });

  it('a bad option fails before any request, naming the plugin and the field', async () => {
    const { dir, cleanup } = tempDir('rein-example-tool-bad-');
    try {
      writeFileSync(join(dir, 'agent.yaml'), `plugins:\n  ${join(HERE, 'word-count.ts')}:\n    maxFileBytes: -1\n`);
      const err = await createAgent({ preset: join(dir, 'agent.yaml'), sim: join(HERE, 'scenario.yaml'), cwd: dir, layers: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error).message)).toMatch(/maxFileBytes/);
      expect(err instanceof PluginError || /word-count/.test(String((err as Error).message))).toBe(true);
    } finally {
      cleanup();
    }
  });

  it('the README command: rein run with the preset and the scenario prints the result as JSON', async () => {
    const r = await runCli(['run', 'How many words are in poem.txt?', '--preset', './agent.yaml', '--sim', 'scenario.yaml', '--output-format', 'json', '--no-layers'], { cwd: HERE, env: { REIN_HOME: env.home } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', subtype: 'success', result: 'poem.txt has 14 words on 4 lines.', num_turns: 2 });
  });
});
