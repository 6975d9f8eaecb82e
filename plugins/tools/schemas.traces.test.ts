/**
 * Recorded Claude Code sessions against rein's tool schemas: every tool call the model made there
 * (Read, Write, Edit, Glob, Grep, Bash, BashOutput, KillShell, TodoWrite, WebFetch, Task) must be
 * valid input for rein's tool of the same name, except for parameters rein does not have (the
 * sandbox override), or that Claude Code itself refused (BashOutput's `block`, whose recorded result
 * is Claude Code's own InputValidationError), which are refused by name.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../kernel/index.js';
import { REPO } from '../../testing/support.js';
import { bashTool } from './bash/tool.js';
import { createBashOutputTool, createKillShellTool } from './bash/shell-tools.js';
import { editTool } from './edit/tool.js';
import { globTool } from './glob/tool.js';
import { grepTool } from './grep/tool.js';
import { readTool } from './read/tool.js';
import { createTaskTool } from './task/tool.js';
import { todoWriteTool } from './todo-write/tool.js';
import { createWebFetchTool } from './web-fetch/tool.js';
import { writeTool } from './write/tool.js';

const TRACES = join(REPO, '..', 'shared', 'traces');
const UNSUPPORTED = ['dangerouslyDisableSandbox', 'block'];

const tools: Record<string, Tool> = {
  Read: readTool, Write: writeTool, Edit: editTool, Glob: globTool, Grep: grepTool, Bash: bashTool, TodoWrite: todoWriteTool,
  BashOutput: createBashOutputTool(), KillShell: createKillShellTool(),
  WebFetch: createWebFetchTool({ mode: 'raw', maxBytes: 1, timeoutMs: 1, maxContentChars: 1, maxRawChars: 1 }),
  Task: createTaskTool({ agents: {}, defaultAgent: 'general-purpose' }),
};

function* jsonlFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* jsonlFiles(p);
    else if (p.endsWith('.jsonl')) yield p;
  }
}

describe('Claude Code tool calls from recorded sessions', () => {
  it('are valid input for rein\'s tools of the same name', () => {
    const counts: Record<string, number> = {};
    const refused: string[] = [];
    const invalid: string[] = [];
    for (const file of jsonlFiles(TRACES)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        let entry;
        try { entry = JSON.parse(line); } catch { continue; }
        const content = entry?.message?.content;
        if (!Array.isArray(content)) continue;
        for (const b of content) {
          if (b?.type !== 'tool_use' || !tools[b.name]) continue;
          counts[b.name] = (counts[b.name] ?? 0) + 1;
          const r = tools[b.name]!.inputSchema.safeParse(b.input);
          if (r.success) continue;
          const keys = Object.keys(b.input ?? {});
          if (keys.some((k) => UNSUPPORTED.includes(k))) {
            refused.push(r.error.issues.map((i) => i.message).join('; '));
          } else invalid.push(`${b.name} ${JSON.stringify(b.input).slice(0, 200)}: ${r.error.message}`);
        }
      }
    }
    expect(invalid).toEqual([]);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBeGreaterThan(600);
    for (const name of ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash', 'BashOutput', 'KillShell', 'TodoWrite', 'Task']) expect(counts[name], name).toBeGreaterThan(0);
    for (const message of refused) expect(message).toMatch(/Unrecognized key: "(dangerouslyDisableSandbox|block)"/);
  });
});
