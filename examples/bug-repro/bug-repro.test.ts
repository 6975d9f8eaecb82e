/**
 * Bug report, reproduced: "the model called Read on a binary file and the run stopped".
 * scenario.yaml replays the model's side; these tests assert the expected behaviour: an is_error
 * tool_result that says what to do instead, and a run that goes on to end_turn.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent, type AgentEvent, type MessageRequest, type RunResult } from '../../index.js';
import { runCli, tempDir, useTestEnv } from '../../testing/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const PROJECT = join(HERE, 'project');
// A temp REIN_HOME for the file (transcripts never go to ~/.rein).
const env = useTestEnv({ scope: 'all', prefix: 'rein-example-bug-' });

/** Runs the preset against a scenario in project/, collecting events and the requests the model got. */
async function replay(scenario: string): Promise<{ events: AgentEvent[]; requests: MessageRequest[]; result: RunResult }> {
  const agent = await createAgent({ preset: join(HERE, 'agent.yaml'), sim: scenario, cwd: PROJECT, layers: false });
  const requests: MessageRequest[] = [];
  agent.kernel.hooks.response.tap('repro', (r) => { requests.push(r.request); });
  const events: AgentEvent[] = [];
  try {
    const run = agent.run('What is firmware.dat?');
    for await (const e of run) events.push(e);
    return { events, requests, result: await run.result };
  } finally {
    await agent.close();
  }
}

const BINARY_ERROR = /^Cannot read .*firmware\.dat: it is a binary file \(64 bytes\).*through Bash/;

describe('bug: Read on a binary file', () => {
  it('the model gets an is_error tool_result naming the problem and a way out, and the run goes on to end_turn', async () => {
    const { requests, result } = await replay(join(HERE, 'scenario.yaml'));
    expect(result.terminalReason).toBe('end_turn');
    expect(result.numTurns).toBe(3);
    expect(result.text).toBe('firmware.dat is the version 2 device image; flash it with flashtool.');

    // What the model saw after its Read of the binary file (request 2, the last message).
    const afterBinary = requests[1]!.messages.at(-1)!.content as any[];
    expect(afterBinary).toHaveLength(1);
    expect(afterBinary[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(afterBinary[0].content[0].text).toMatch(BINARY_ERROR);
    // None of the file's bytes leaked into the prompt.
    expect(JSON.stringify(requests[1]!.messages)).not.toContain('\\u0000');

    // The next Read worked as usual.
    const afterText = requests[2]!.messages.at(-1)!.content as any[];
    expect(afterText[0]).toMatchObject({ type: 'tool_result', content: [{ type: 'text', text: '1\tfirmware.dat is the device image, version 2. Flash it with `flashtool write firmware.dat`.' }] });
    expect(afterText[0].is_error).toBeUndefined();
  });

  it('variant: both Reads in one message run in parallel, and the failing one does not cancel the other', async () => {
    const { dir, cleanup } = tempDir('rein-example-bug-scenario-');
    try {
      writeFileSync(join(dir, 'parallel.yaml'), [
        'turns:',
        '  - reply:',
        '      - tool_use: { name: Read, input: { file_path: firmware.dat } }',
        '      - tool_use: { name: Read, input: { file_path: README.txt } }',
        '  - reply: [{ text: "done" }]',
        '',
      ].join('\n'));
      const { events, result } = await replay(join(dir, 'parallel.yaml'));
      expect(result.terminalReason).toBe('end_turn');
      const blocks = events.flatMap((e) => (e.type === 'tool_results' ? e.message.content : [])) as any[];
      expect(blocks.map((b) => b.is_error === true)).toEqual([true, false]);
      expect(blocks[0].content[0].text).toMatch(BINARY_ERROR);
      expect(blocks[1].content[0].text).toContain('flashtool write firmware.dat');
    } finally {
      cleanup();
    }
  });

  it('the README command reproduces it from the command line', async () => {
    const r = await runCli(['run', 'What is firmware.dat?', '--preset', '../agent.yaml', '--sim', '../scenario.yaml', '--output-format', 'json', '--no-layers'], { cwd: PROJECT, env: { REIN_HOME: env.home } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', rein_terminal_reason: 'end_turn', num_turns: 3 });
  });
});
