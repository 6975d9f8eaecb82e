import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, parseScenario, ScenarioError } from './scenario.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'rein-scenario-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

async function errorOf(yaml: string): Promise<ScenarioError> {
  const file = join(dir, `s${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  try {
    loadScenario(file);
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as ScenarioError).message).not.toContain('\n');
    return err as ScenarioError;
  }
  throw new Error('expected a ScenarioError');
}

describe('scenario files', () => {
  it('a scenario that cannot be read is a ScenarioError naming the file, not the fs error', () => {
    const missing = join(dir, 'missing.yaml');
    expect(() => loadScenario(missing)).toThrow(new ScenarioError(missing, [{ text: 'cannot read the scenario: no such file' }]));
    expect(() => loadScenario(dir)).toThrow(`${dir}: cannot read the scenario: a folder, not a file`);
  });

  it('loads the documented example', async () => {
    const file = join(dir, 'ok.yaml');
    await writeFile(file, `model: claude-sonnet-4-5
turns:
  - reply: [{ text: "Reading it." }, { tool_use: { name: Read, input: { file_path: notes.txt } } }]
  - fault: { status: 529 }
  - fault: { slowFirstByteMs: 20 }
    reply: [{ text: "slow" }]
  - reply: [{ text: "Done." }]
    stop_reason: end_turn
side:
  - match: { source: compact }
    reply: [{ text: "<summary>...</summary>" }]
`);
    const s = loadScenario(file);
    expect(s.turns).toHaveLength(4);
    expect(s.turns[0]!.reply![1]).toEqual({ tool_use: { name: 'Read', input: { file_path: 'notes.txt' } } });
    expect(s.side![0]!.match).toEqual({ source: 'compact' });
  });

  it('an unknown key names file:line:column, the expected keys and the nearest one', async () => {
    const err = await errorOf('turns:\n  - reply: [{ text: hi }]\n  - replly: [{ text: hi }]\n');
    expect(err.message).toBe(`${err.file}:3:5: turns[1]: unknown key "replly"; expected one of reply, stop_reason, usage, model, fault (did you mean "reply"?)`);
    expect([err.line, err.column]).toEqual([3, 5]);
  });

  it('reply must be a list', async () => {
    const err = await errorOf('turns:\n  - reply: "Done."\n');
    expect(err.message).toMatch(/:2:12: turns\[0\]\.reply: Invalid input: expected array, received string$/);
  });

  it('a tool_use needs a name', async () => {
    const err = await errorOf('turns:\n  - reply:\n      - tool_use: { input: { a: 1 } }\n');
    expect(err.message).toMatch(/:3:19: turns\[0\]\.reply\[0\]\.tool_use\.name: Invalid input: expected string, received undefined$/);
  });

  it('a turn needs reply or fault; a status fault takes no reply', async () => {
    expect((await errorOf('turns:\n  - stop_reason: end_turn\n')).message).toMatch(/:2:5: turns\[0\]: expected reply or fault$/);
    expect((await errorOf('turns:\n  - fault: { status: 500 }\n    reply: [{ text: x }]\n')).message).toMatch(/:2:22: turns\[0\]\.fault\.status: a status fault has no reply/);
  });

  it('a block has exactly one kind', async () => {
    const err = await errorOf('turns:\n  - reply: [{ text: a, redacted_thinking: b }]\n');
    expect(err.message).toMatch(/:2:13: turns\[0\]\.reply\[0\]: a reply block has exactly one of text, tool_use, thinking, redacted_thinking$/);
  });

  it('bad regex and unknown source in side matches', async () => {
    expect((await errorOf('turns: []\nside:\n  - match: { lastUser: "(" }\n    reply: [{ text: x }]\n')).message).toMatch(/:3:24: side\[0\]\.match\.lastUser: not a valid regular expression$/);
    expect((await errorOf('turns: []\nside:\n  - match: { source: summary }\n    reply: [{ text: x }]\n')).message).toMatch(/side\[0\]\.match\.source: Invalid option/);
  });

  it('YAML syntax errors and duplicate keys carry positions', async () => {
    expect((await errorOf('turns:\n  - reply: [{ text: "a" }\n')).message).toMatch(/\.yaml:3:1: Flow sequence in block collection must be sufficiently indented and end with a \]$/);
    const dup = await errorOf('turns: []\nturns: []\n');
    expect(dup.message).toMatch(/:2:1: Map keys must be unique/);
  });

  it('parseScenario names the given file', () => {
    expect(() => parseScenario('turns: 3', 'inline.yaml')).toThrow(/^inline\.yaml:1:8: turns: Invalid input: expected array, received number$/);
  });
});
