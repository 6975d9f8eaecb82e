/**
 * Listing a built-in plugin under `plugins:` adds to the options the preset's other keys imply; it
 * does not replace them. `hooks:` and `plugins: { hooks/shell: ... }`, `mcpServers:` and
 * `plugins: { tools/mcp: ... }`, `autoMode:` and `plugins: { classifier: ... }` merge by the preset
 * merge rules (objects deeply, autoMode lists unioned, other lists replaced), whichever layers they
 * come from (`rein preset print --plugins`, which shows the options that run, is tested in
 * cli/commands/preset.test.ts).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { startAgent } from '../../../testing/agent.js';
import { useTestEnv } from '../../../testing/env.js';
import { writeFiles } from '../../../testing/support.js';

const MCP_SERVER = fileURLToPath(new URL('../../../plugins/tools/mcp/fixtures/server.mjs', import.meta.url));

const folders = useTestEnv({ prefix: 'rein-implied-' });
let project: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  project = join(folders.dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  // No user layer from the real home directory.
  env = { ...process.env, XDG_CONFIG_HOME: join(folders.dir, 'config'), REIN_HOME: folders.home };
});

/** The --preset layer: a file that adds nothing, so the project and local layers decide. */
let AGENT: string;
beforeEach(() => {
  AGENT = join(folders.dir, 'agent.yaml');
  writeFiles(folders.dir, { 'agent.yaml': 'name: agent\n' });
});

const GUARD = 'grep -q guarded && { echo "guarded.txt is off limits" >&2; exit 2; } || exit 0';

describe('options a preset key implies and options listed under plugins:', () => {
  it('a Stop hook listed under plugins: hooks/shell in rein.local.yaml keeps the project layer\'s PreToolUse guard, which still blocks', async () => {
    writeFiles(project, {
      'rein.config.yaml': [
        'name: project',
        'tools: [Bash]',
        'permissions: { mode: default, allow: ["Bash(touch:*)"] }',
        'hooks:',
        '  PreToolUse:',
        `    - { matcher: Bash, hooks: [{ type: command, command: '${GUARD}' }] }`,
        '',
      ].join('\n'),
      'rein.local.yaml': [
        'plugins:',
        '  hooks/shell:',
        '    Stop:',
        '      - hooks: [{ type: command, command: "touch stop-hook-ran" }]',
        '',
      ].join('\n'),
    });
    const rig = await startAgent({
      cwd: project, layers: true, env, preset: AGENT,
      scenario: 'turns:\n  - reply: [{ tool_use: { name: Bash, input: { command: "touch guarded.txt" } } }]\n  - reply: [{ text: "done" }]\n',
    });
    try {
      const { result } = await rig.run('Create guarded.txt');
      expect(result.terminalReason).toBe('end_turn');
      expect(existsSync(join(project, 'guarded.txt'))).toBe(false);
      const results = rig.requests()[1]!.body.messages.at(-1).content as { is_error?: boolean; content: { text: string }[] }[];
      expect(results[0]).toMatchObject({ is_error: true, content: [{ text: expect.stringContaining('guarded.txt is off limits') }] });
      expect(existsSync(join(project, 'stop-hook-ran'))).toBe(true);
      const shell = rig.agent.kernel.plugins.find((p) => p.plugin.name === 'hooks/shell')!;
      expect(Object.keys(shell.options as object).filter((k) => (shell.options as Record<string, unknown>)[k] !== undefined)).toEqual(['PreToolUse', 'Stop']);
    } finally {
      await rig.close();
    }
  });

  it('mcpServers together with plugins: tools/mcp { callTimeoutMs } keeps the servers and their tools', async () => {
    writeFiles(project, {
      'rein.config.yaml': `name: project\ntools: [Read]\nmcpServers:\n  calc: { command: node, args: ["${MCP_SERVER}"] }\npermissions: { allow: [mcp__calc__add] }\n`,
      'rein.local.yaml': 'plugins:\n  tools/mcp: { callTimeoutMs: 3000 }\n',
    });
    const rig = await startAgent({
      cwd: project, layers: true, env, preset: AGENT,
      scenario: 'turns:\n  - reply: [{ tool_use: { name: mcp__calc__add, input: { a: 2, b: 3 } } }]\n  - reply: [{ text: "5" }]\n',
    });
    try {
      expect(rig.agent.kernel.tools.has('mcp__calc__add')).toBe(true);
      expect(rig.agent.kernel.plugins.find((p) => p.plugin.name === 'tools/mcp')!.options).toMatchObject({ callTimeoutMs: 3000, servers: { calc: { command: 'node' } } });
      const { events, result } = await rig.run('Add 2 and 3');
      expect(result.terminalReason).toBe('end_turn');
      const results = events.flatMap((e) => (e.type === 'tool_results' ? e.message.content : [])) as { is_error?: boolean }[];
      expect(results).toHaveLength(1);
      expect(results[0]!.is_error).toBeUndefined();
    } finally {
      await rig.close();
    }
  });

  it('autoMode lists and plugins: classifier options are both kept, the lists unioned', async () => {
    writeFiles(project, {
      'rein.config.yaml': 'name: project\npermissions: { mode: auto }\nautoMode:\n  allow: ["Run the test suite"]\n  soft_deny: ["Push to main"]\n',
      'rein.local.yaml': 'plugins:\n  classifier: { allow: ["Format the code", "Run the test suite"], stage1MaxTokens: 100 }\n',
    });
    const rig = await startAgent({ cwd: project, layers: true, env, preset: AGENT, scenario: 'turns:\n  - reply: [{ text: "ok" }]\n' });
    try {
      expect(rig.agent.kernel.plugins.find((p) => p.plugin.name === 'classifier')!.options).toMatchObject({
        allow: ['Run the test suite', 'Format the code'], soft_deny: ['Push to main'], stage1MaxTokens: 100,
      });
    } finally {
      await rig.close();
    }
  });
});
