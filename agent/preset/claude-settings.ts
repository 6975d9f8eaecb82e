/**
 * Claude Code settings files as preset layers: `rein run` reads all three by default, as `claude -p`
 * does (`--setting-sources user,project,local` chooses, `--settings FILE` adds one). Claude Code's precedence, high to low (https://code.claude.com/docs/en/settings):
 * command-line arguments, `--settings`, `.claude/settings.local.json`, `.claude/settings.json`,
 * `~/.claude/settings.json`. In rein they sit above `--preset` and below the other flags:
 *
 *   defaults < user < project < local < --preset < settings:user < settings:project
 *            < settings:local < settings:flag < flags
 *
 * What is read, as preset keys: `permissions` (`allow`, `ask`, `deny`, `additionalDirectories`,
 * `defaultMode` → `mode`), `hooks` (command hooks; events rein does not fire are left out with a
 * warning, CLAUDE_HOOK_EVENTS_NOT_FIRED), `env`, `model` (→ `model.name`, see
 * claudeModel), and `enableAllProjectMcpServers` / `enabledMcpjsonServers` /
 * `disabledMcpjsonServers`, which choose the servers of the project's `.mcp.json` that run (a
 * project-layer source of `mcpServers`; approvedMcpServers). Other keys (status line, attribution,
 * plugins, ...) do not change how rein runs and are not read.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KeyPath } from './errors.js';
import type { PresetSource } from './source.js';

/** The settings layers, lowest first. */
export const SETTINGS_LAYERS = ['settings:user', 'settings:project', 'settings:local', 'settings:flag'] as const;
export type SettingsLayer = (typeof SETTINGS_LAYERS)[number];

/** Which settings to read. */
export interface ClaudeSettingsOptions {
  /** Claude Code's setting sources: `user`, `project`, `local`. */
  sources: readonly ('user' | 'project' | 'local')[];
  /** `--settings`: a file, or JSON given inline. */
  flagSettings?: { file: string } | { text: string };
}

/** Claude Code's model aliases (`--model opus`, `ANTHROPIC_MODEL=sonnet`, `"model": "haiku"`), as model ids. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  sonnet: 'claude-sonnet-4-6',
  opus: 'claude-opus-4-8',
  haiku: 'claude-haiku-4-5',
  best: 'claude-opus-4-8',
  // Claude Code runs opus in plan mode and sonnet otherwise; rein does not switch models with the
  // permission mode, so a headless run gets the model Claude Code executes with.
  opusplan: 'claude-sonnet-4-6',
});

/** The context window a `[1m]` suffix asks for, tokens (lib/model/long-context.ts LONG_CONTEXT_WINDOW). */
const ONE_MILLION = 1_000_000;

/**
 * A model as Claude Code's `--model`, `ANTHROPIC_MODEL` and settings `model` take it, as preset
 * `model` keys (https://code.claude.com/docs/en/model-config, "Model aliases"):
 * - an alias (`sonnet`, `opus`, `haiku`, `best`, `opusplan`) → its model id in `name`;
 * - a `[1m]` suffix on an alias or a model id (`sonnet[1m]`, `claude-opus-4-6[1m]`) → the id without
 *   it, and `contextWindow` 1,000,000 tokens (the request then carries the 1M-context beta): the
 *   suffix is Claude Code's, the API knows no such model;
 * - `default` (Claude Code: "clears any model override") → `{}`, so a lower layer's model stands;
 * - anything else → `name` as given.
 */
export function claudeModel(value: string): { name?: string; contextWindow?: number } {
  const v = value.trim();
  if (v.toLowerCase() === 'default') return {};
  const long = /\[1m\]$/i.test(v);
  const base = long ? v.slice(0, -4).trim() : v;
  const name = MODEL_ALIASES[base.toLowerCase()] ?? base;
  return long ? { name, contextWindow: ONE_MILLION } : { name };
}

/**
 * The settings files that exist, lowest first. The project's `.claude/` folder is the nearest one
 * from `cwd` up (to `stopAt`, the project root), never the user's own `~/.claude`.
 */
export function settingsFiles(opts: { cwd: string; homeDir: string; dirs: readonly string[]; sources: ClaudeSettingsOptions['sources'] }): { layer: SettingsLayer; file: string }[] {
  const out: { layer: SettingsLayer; file: string }[] = [];
  const has = (s: string) => opts.sources.includes(s as never);
  const user = join(opts.homeDir, '.claude', 'settings.json');
  if (has('user') && existsSync(user)) out.push({ layer: 'settings:user', file: user });
  const projectDir = opts.dirs.find((d) => d !== opts.homeDir && (existsSync(join(d, '.claude', 'settings.json')) || existsSync(join(d, '.claude', 'settings.local.json'))));
  if (projectDir) {
    const project = join(projectDir, '.claude', 'settings.json');
    const local = join(projectDir, '.claude', 'settings.local.json');
    if (has('project') && existsSync(project)) out.push({ layer: 'settings:project', file: project });
    if (has('local') && existsSync(local)) out.push({ layer: 'settings:local', file: local });
  }
  return out;
}

/** Where a preset path came from in the settings file. */
function settingsPath(path: KeyPath): KeyPath {
  if (path[0] === 'permissions' && path[1] === 'mode') return ['permissions', 'defaultMode', ...path.slice(2)];
  if (path[0] === 'model' && (path[1] === 'name' || path[1] === 'contextWindow')) return ['model', ...path.slice(2)];
  return path;
}

const PERMISSION_KEYS = ['allow', 'ask', 'deny', 'additionalDirectories'] as const;

/**
 * Claude Code's hook events that rein does not fire (the Claude Agent SDK's `HOOK_EVENTS`, less the
 * ones rein runs: plugins/hooks/shared/config.ts). They are about things rein does not do
 * (worktrees, teammates, tasks, MCP elicitation, model switches, configuration changes, ...) or only
 * observe, so a settings file written for Claude Code that has one still runs: the event is left
 * out with a warning. Not among them, so still an error: `PreSkillShellCommand` and
 * `UserPromptExpansion`, which guard what rein does too (a skill's commands, a `/name` prompt), and
 * which a skipped hook would leave unguarded.
 */
export const CLAUDE_HOOK_EVENTS_NOT_FIRED: readonly string[] = Object.freeze([
  'PostToolBatch', 'StopFailure', 'PreModelSwitch', 'PostModelSwitch', 'PermissionDenied', 'Setup', 'TeammateIdle',
  'TaskCreated', 'TaskCompleted', 'Elicitation', 'ElicitationResult', 'ConfigChange', 'WorktreeCreate', 'WorktreeRemove',
  'InstructionsLoaded', 'CwdChanged', 'FileChanged', 'DirectoryAdded', 'MessageDisplay',
]);

/**
 * A settings file's source as a preset source: the keys rein reads, renamed to preset keys, with
 * positions that point into the settings file. A value of the wrong shape is kept as it is, so the
 * preset checks report it at its line.
 */
export function settingsAsPreset(source: PresetSource, skipped?: (path: KeyPath, message: string) => void): PresetSource {
  const raw = source.value;
  const value: Record<string, unknown> = {};
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const s = raw as Record<string, unknown>;
    const perms = s.permissions;
    if (perms && typeof perms === 'object' && !Array.isArray(perms)) {
      const p = perms as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const k of PERMISSION_KEYS) if (p[k] !== undefined) out[k] = p[k];
      if (p.defaultMode !== undefined) out.mode = p.defaultMode;
      if (Object.keys(out).length) value.permissions = out;
    } else if (perms !== undefined) value.permissions = perms;
    if (s.hooks && typeof s.hooks === 'object' && !Array.isArray(s.hooks)) {
      const hooks: Record<string, unknown> = {};
      for (const [event, matchers] of Object.entries(s.hooks as Record<string, unknown>)) {
        if (CLAUDE_HOOK_EVENTS_NOT_FIRED.includes(event)) skipped?.(['hooks', event], `hooks.${event}: rein does not fire ${event} hooks (a Claude Code event); they are left out`);
        else hooks[event] = matchers;
      }
      value.hooks = hooks;
    } else if (s.hooks !== undefined) value.hooks = s.hooks;
    if (s.env !== undefined) value.env = s.env;
    if (s.env && typeof s.env === 'object' && !Array.isArray(s.env)) {
      for (const name of Object.keys(s.env)) {
        if (CLAUDE_PROCESS_ENV.includes(name)) skipped?.(['env', name], `env.${name}: rein applies a settings file's env to the commands it runs, not to itself (Claude Code applies it to both), so this does not change rein's own ${name.startsWith('ANTHROPIC_') && name !== 'ANTHROPIC_MODEL' ? 'requests' : 'agent'}: export it in the shell${name === 'ANTHROPIC_MODEL' ? ', or use --model or the settings\' "model"' : ''}`);
      }
    }
    if (typeof s.model === 'string') {
      const model = claudeModel(s.model);
      if (model.name) value.model = model;
    }
    else if (s.model !== undefined) value.model = s.model;
  }
  return {
    ...source,
    value,
    locate: (path, part) => source.locate(settingsPath(path), part),
    locateInside: (path, needle) => source.locateInside(settingsPath(path), needle),
  };
}

/**
 * Variables Claude Code reads from its own environment, which a settings file's `env` sets for it
 * (a gateway's `ANTHROPIC_BASE_URL` and `ANTHROPIC_AUTH_TOKEN`, say). rein reads these from its
 * process environment only: `env` in a settings file goes to the commands rein runs (Bash, hooks,
 * MCP servers), never to rein's own client, so that a project's settings cannot send the API key
 * elsewhere. A settings file that sets one gets a warning saying so, rather than being half obeyed.
 */
export const CLAUDE_PROCESS_ENV: readonly string[] = Object.freeze([
  'ANTHROPIC_MODEL', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN',
  'MAX_THINKING_TOKENS', 'CLAUDE_CODE_MAX_OUTPUT_TOKENS', 'DISABLE_AUTO_COMPACT', 'DISABLE_COMPACT',
]);

/** The directory relative paths in a settings file are resolved against: the project, or home. */
export function settingsBaseDir(file: string): string {
  return dirname(dirname(file));
}

/** The project's MCP servers file in Claude Code (https://code.claude.com/docs/en/mcp, "Project scope"). */
export const PROJECT_MCP_FILE = '.mcp.json';

/**
 * The nearest `.mcp.json` from `cwd` up (`dirs`, to the project root), never one in the user's home
 * folder, or undefined.
 */
export function projectMcpFile(opts: { homeDir: string; dirs: readonly string[] }): string | undefined {
  for (const d of opts.dirs) {
    if (d === opts.homeDir) continue;
    const file = join(d, PROJECT_MCP_FILE);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/**
 * The servers of a project's `.mcp.json` that the settings approve, as Claude Code decides before
 * it starts them (https://code.claude.com/docs/en/settings: `enableAllProjectMcpServers`,
 * `enabledMcpjsonServers`, `disabledMcpjsonServers`): a server runs when it is named in
 * `enabledMcpjsonServers`, or `enableAllProjectMcpServers` is true, and it is not named in
 * `disabledMcpjsonServers`. `settings` are the settings files' values, lowest first (a later
 * `enableAllProjectMcpServers` wins; the lists are unioned). A project file alone starts nothing:
 * it is checked into the repository, so running its commands needs the user's word.
 * Returns the approved servers (by name, as written) and the names left out.
 */
export function approvedMcpServers(settings: readonly unknown[], mcpJson: unknown): { servers: Record<string, unknown>; left: string[] } {
  let all = false;
  const enabled = new Set<string>();
  const disabled = new Set<string>();
  for (const s of settings) {
    if (!s || typeof s !== 'object' || Array.isArray(s)) continue;
    const v = s as Record<string, unknown>;
    if (typeof v.enableAllProjectMcpServers === 'boolean') all = v.enableAllProjectMcpServers;
    for (const [key, set] of [['enabledMcpjsonServers', enabled], ['disabledMcpjsonServers', disabled]] as const) {
      const list = v[key];
      if (Array.isArray(list)) for (const n of list) if (typeof n === 'string') set.add(n);
    }
  }
  const declared = mcpJson && typeof mcpJson === 'object' && !Array.isArray(mcpJson) ? (mcpJson as { mcpServers?: unknown }).mcpServers : undefined;
  const servers: Record<string, unknown> = {};
  const left: string[] = [];
  if (!declared || typeof declared !== 'object' || Array.isArray(declared)) return { servers, left };
  for (const [name, config] of Object.entries(declared as Record<string, unknown>)) {
    if ((all || enabled.has(name)) && !disabled.has(name)) servers[name] = config;
    else left.push(name);
  }
  return { servers, left };
}
