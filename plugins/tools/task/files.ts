/**
 * Agent definitions as Markdown files, Claude Code's `.claude/agents/*.md`: YAML frontmatter
 * (`name`, `description`, `tools`, `disallowedTools`, `model`, `permissionMode`, `maxTurns`, and
 * fields rein keeps without acting on, like `color` or `skills`), the body being the agent's
 * system prompt. Format: https://code.claude.com/docs/en/sub-agents#file-format
 *
 * Places, highest priority first: the Task plugin's `agentDirs`, the project's `.claude/agents/`
 * (the working directory and each parent up to the repository root, nearest first), then the
 * user's `~/.claude/agents/`. The first definition of a name wins.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fields, readFrontmatter } from '../shared/frontmatter.js';
import { projectLevels } from '../shared/project-levels.js';
import { PERMISSION_MODES, type AgentDefinition } from './agents.js';

/** An agent read from a file, with where it came from. */
export interface AgentFile {
  name: string;
  file: string;
  definition: AgentDefinition;
  /** Every frontmatter field as written, unknown ones included. */
  fields: Record<string, unknown>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** Parses one agent file. Throws FrontmatterError at the field that is wrong. */
export function loadAgentFile(file: string): AgentFile {
  const fm = readFrontmatter(file);
  const f = fields(fm);
  const name = f.string('name') ?? file.split(/[\\/]/).pop()!.replace(/\.md$/, '');
  if (!NAME.test(name)) f.fail('name', `agent name "${name}" must be 1-64 letters, digits, "-", "_", "." or ":", starting with a letter or digit`);
  const description = f.string('description')?.trim();
  if (!description) f.fail('description', `agent "${name}" has no description (add "description:", saying when the agent should be used)`);
  const def: AgentDefinition = { description: description! };
  if (fm.body) def.prompt = fm.body;
  const tools = f.list('tools');
  if (tools) def.tools = tools;
  const disallowed = f.list('disallowedTools') ?? f.list('disallowed-tools');
  if (disallowed) def.disallowedTools = disallowed;
  const model = f.string('model');
  if (model) def.model = model;
  const mode = f.string('permissionMode') ?? f.string('permission-mode');
  if (mode !== undefined) {
    if (!(PERMISSION_MODES as readonly string[]).includes(mode)) f.fail(fm.data.permissionMode !== undefined ? 'permissionMode' : 'permission-mode', `"permissionMode" must be one of ${PERMISSION_MODES.join(', ')}, got "${mode}"`);
    def.permissionMode = mode as AgentDefinition['permissionMode'];
  }
  const maxTurns = f.number('maxTurns') ?? f.number('max-turns');
  if (maxTurns) def.maxTurns = maxTurns;
  const background = f.boolean('background');
  if (background !== undefined) def.background = background;
  return { name, file, definition: def, fields: fm.data };
}


/** The agents directories, highest priority first (see the module comment). */
export function agentDirs(o: { cwd: string; home?: string; dirs: string[]; project: boolean; user: boolean }): string[] {
  const out = [...o.dirs];
  if (o.project) for (const at of projectLevels(resolve(o.cwd))) if (at !== o.home) out.push(join(at, '.claude', 'agents'));
  if (o.user && o.home) out.push(join(o.home, '.claude', 'agents'));
  return out;
}

/** Every `*.md` of `dirs`, first of each name kept. Throws FrontmatterError for the first malformed file. */
export function discoverAgentFiles(dirs: string[]): AgentFile[] {
  const byName = new Map<string, AgentFile>();
  for (const dir of dirs) {
    let entries: string[];
    try {
      if (!statSync(dir).isDirectory()) continue;
      entries = readdirSync(dir).filter((e) => e.endsWith('.md')).sort();
    } catch {
      continue;
    }
    for (const e of entries) {
      const a = loadAgentFile(join(dir, e));
      if (!byName.has(a.name)) byName.set(a.name, a);
    }
  }
  return [...byName.values()];
}
