/**
 * Agent configuration errors surface when the agent is created, not when the model first uses it:
 * every agent preset (the Task tool's `agents.*.preset`, the `subagents` key) is loaded and checked
 * with its parent; `subagents` is read by the Task tool; and a preset object given to createAgent
 * is checked like a file (extends followed, unknown keys and wrong types reported).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../agent.js';
import { PresetError } from '../errors.js';
import { validatePresetFile } from '../load.js';
import { startAgent } from '../../../testing/agent.js';
import { useTestEnv } from '../../../testing/env.js';
import { writeFiles } from '../../../testing/support.js';

const env = useTestEnv({ prefix: 'rein-agents-' });

const lines = (err: unknown) => (err as PresetError).diagnostics.map((d) => `${d.file.replace(`${env.dir}/`, '')}:${d.line}:${d.column}: ${d.message}`);

describe('agent presets', () => {
  const PARENT = [
    'name: parent',
    'tools: [Read, Task]',
    'plugins:',
    '  tools/task:',
    '    agents:',
    '      reviewer: { description: Reviews a diff, preset: ./reviewer.yaml }',
    '    defaultAgent: reviewer',
    '',
  ].join('\n');

  it('a Task agent whose preset file is malformed fails createAgent with the agent file\'s line, and fails preset validate', async () => {
    writeFiles(env.dir, { 'parent.yaml': PARENT, 'reviewer.yaml': 'name: reviewer\ntools: [Read, Grep\n' });
    const err = await createAgent({ preset: join(env.dir, 'parent.yaml'), cwd: env.dir, layers: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PresetError);
    expect(lines(err)).toEqual([expect.stringMatching(/^reviewer\.yaml:3:1: YAML: /)]);
    const diagnostics = await validatePresetFile(join(env.dir, 'parent.yaml'), { env: {} });
    expect(diagnostics.map((d) => d.file)).toEqual([join(env.dir, 'reviewer.yaml')]);
  });

  it('a Task agent whose preset does not exist is reported at the line that names it', async () => {
    writeFiles(env.dir, { 'parent.yaml': PARENT });
    const err = await createAgent({ preset: join(env.dir, 'parent.yaml'), cwd: env.dir, layers: false }).catch((e: unknown) => e);
    expect(lines(err)).toEqual([`parent.yaml:6:56: plugins.tools/task.agents.reviewer.preset: cannot load the agent preset: no such file (${join(env.dir, 'reviewer.yaml')})`]);
  });

  it('subagents: gives the Task tool an agent kind that runs that preset, described by its description', async () => {
    writeFiles(env.dir, {
      'parent.yaml': 'name: parent\ntools: [Read]\nsubagents:\n  reviewer: ./agents/reviewer.yaml\n',
      'agents/reviewer.yaml': 'name: reviewer\ndescription: Reviews a diff and lists its risks.\ntools: [Read]\nsystem:\n  sections: [{ name: role, text: "You review diffs." }]\n',
    });
    const rig = await startAgent({
      cwd: env.dir, preset: join(env.dir, 'parent.yaml'),
      scenario: [
        'turns:',
        '  - reply: [{ tool_use: { name: Task, input: { description: Review, prompt: "Review the diff.", subagent_type: reviewer } } }]',
        '  - reply: [{ text: "No risks found." }]',
        '  - reply: [{ text: "The reviewer found no risks." }]',
        '',
      ].join('\n'),
    });
    try {
      const { result } = await rig.run('Have the diff reviewed.');
      expect(result.text).toBe('The reviewer found no risks.');
      // The agent list reaches the model in a reminder after the prompt, not in the Task tool's description.
      expect(JSON.stringify(rig.requests()[0]!.body.messages)).toContain('- reviewer: Reviews a diff and lists its risks.');
      // The child ran the reviewer preset: its own system prompt.
      const child = rig.requests()[1]!.body;
      expect(JSON.stringify(child.system)).toContain('You review diffs.');
    } finally {
      await rig.close();
    }
  });

  it('a subagents preset that is malformed fails createAgent too', async () => {
    writeFiles(env.dir, { 'parent.yaml': 'name: parent\nsubagents:\n  reviewer: ./reviewer.yaml\n', 'reviewer.yaml': 'name: reviewer\nmodle: { name: x }\n' });
    const err = await createAgent({ preset: join(env.dir, 'parent.yaml'), cwd: env.dir, layers: false }).catch((e: unknown) => e);
    expect(lines(err)).toEqual(['reviewer.yaml:2:1: unknown key "modle" at the top level; did you mean "model"?']);
  });
});

describe('a preset object given to createAgent', () => {
  it('gets the same checks as a file: a typo and a wrong type are errors naming the key', async () => {
    const err = await createAgent({ preset: { name: 'x', modle: { name: 'claude-sonnet-4-6' }, limits: { maxTurns: 'ten' } } as never, cwd: env.dir, layers: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PresetError);
    expect((err as PresetError).diagnostics.map((d) => `${d.file}: ${d.key}: ${d.message}`)).toEqual([
      '<preset object>: modle: unknown key "modle" at the top level; did you mean "model"?',
      expect.stringMatching(/^<preset object>: limits\.maxTurns: limits\.maxTurns: /),
    ]);
  });

  it('follows extends: the tools of the preset it builds on are there', async () => {
    const agent = await createAgent({ preset: { name: 'x', extends: 'minimal' }, cwd: env.dir, layers: false, client: { kind: 'simulator', baseURL: 'none', send: async () => { throw new Error('no requests'); }, countTokens: async () => 0, close: async () => undefined } });
    try {
      expect(agent.kernel.tools.names().sort()).toEqual(['Edit', 'Glob', 'Grep', 'Read', 'Write']);
    } finally {
      await agent.close();
    }
  });

  it('bad plugin options are reported with the plugin and option', async () => {
    const err = await createAgent({ preset: { name: 'x', plugins: { 'compaction/auto': { triggerRatoi: 0.5 } } } as never, cwd: env.dir, layers: false }).catch((e: unknown) => e);
    expect((err as PresetError).diagnostics.map((d) => d.message)).toEqual(['plugins.compaction/auto.triggerRatoi: unknown option "triggerRatoi" for plugin compaction/auto; did you mean "triggerRatio"?']);
  });
});
