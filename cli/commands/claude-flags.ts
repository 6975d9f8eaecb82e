/**
 * Claude Code's headless flags (`claude -p`), as rein reads them. Every flag that changes the agent
 * becomes part of the command-line preset layer (the highest one, above `--preset`), so
 * `rein preset print <same flags> --origins` shows what each flag changed. A flag rein knows but
 * cannot honour is an InputError that says so; a flag nobody knows is commander's "unknown option".
 *
 * Flag meanings: https://code.claude.com/docs/en/cli-reference ("CLI flags") and the arguments
 * the Claude Agent SDK passes when it starts the CLI.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { InputError } from '../../lib/errors.js';
import { claudeModel } from '../../agent/preset/claude-settings.js';

/** The options commander parses from the flags below. */
export interface ClaudeFlagValues {
  print?: boolean;
  outputFormat?: 'text' | 'json' | 'stream-json';
  inputFormat?: 'text' | 'stream-json';
  includePartialMessages?: boolean;
  includeHookEvents?: boolean;
  replayUserMessages?: boolean;
  verbose?: boolean;
  model?: string;
  fallbackModel?: string;
  permissionMode?: string;
  dangerouslySkipPermissions?: boolean;
  allowDangerouslySkipPermissions?: boolean;
  allowedTools?: string[];
  disallowedTools?: string[];
  tools?: string[];
  systemPrompt?: string;
  systemPromptFile?: string;
  appendSystemPrompt?: string;
  appendSystemPromptFile?: string;
  mcpConfig?: string[];
  strictMcpConfig?: boolean;
  addDir?: string[];
  maxTurns?: number;
  maxBudgetUsd?: number;
  sessionId?: string;
  resume?: string | true;
  continue?: boolean;
  forkSession?: boolean;
  settings?: string;
  settingSources?: string;
  jsonSchema?: string;
  effort?: string;
  thinking?: string;
  maxThinkingTokens?: number;
  permissionPromptTool?: string;
  permissionPrompts?: string;
  awaitInitialize?: boolean;
  debug?: boolean;
  debugFile?: string;
  [unsupported: string]: unknown;
}

export { MODEL_ALIASES } from '../../agent/preset/claude-settings.js';

/** Setting sources `--setting-sources` accepts (Claude Code's names). */
export const SETTING_SOURCES = ['user', 'project', 'local'] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];

/**
 * Flags of `claude` that rein knows and does not honour, with the reason. Passing one is an error
 * (never silently ignored).
 */
export const UNSUPPORTED_FLAGS: Readonly<Record<string, { flag: string; arg?: string; why: string }>> = Object.freeze({
  betas: { flag: '--betas', arg: '<betas...>', why: 'rein sends the betas its plugins need (cache, context editing); a plugin adds others with the `request` hook' },
  agent: { flag: '--agent', arg: '<name>', why: 'rein runs the preset as the main agent; name a preset with --preset' },
  agents: { flag: '--agents', arg: '<json>', why: 'rein defines subagents in the preset (`subagents:`)' },
  pluginDir: { flag: '--plugin-dir', arg: '<dir>', why: 'Claude Code plugins do not load in rein; rein plugins are listed in the preset (`plugins:`)' },
  pluginDirNoMcp: { flag: '--plugin-dir-no-mcp', arg: '<dir>', why: 'Claude Code plugins do not load in rein' },
  resumeSessionAt: { flag: '--resume-session-at', arg: '<uuid>', why: 'rein resumes a whole session' },
  resumeDropsTurn: { flag: '--resume-drops-turn', arg: '<value>', why: 'rein resumes a whole session' },
  taskBudget: { flag: '--task-budget', arg: '<tokens>', why: 'rein limits a run with --max-turns and --max-budget-usd' },
  channels: { flag: '--channels', arg: '<channel>', why: 'rein has no channels' },
  sessionMirror: { flag: '--session-mirror', why: 'rein keeps its transcript in its own session directory' },
  noSessionPersistence: { flag: '--no-session-persistence', why: 'rein always keeps a transcript, so a crash or a signal leaves a session that resumes' },
  managedSettings: { flag: '--managed-settings', arg: '<json>', why: 'rein has no managed-policy layer' },
  managedSettingsInInitialize: { flag: '--managed-settings-in-initialize', why: 'rein has no managed-policy layer' },
  initializeFields: { flag: '--initialize-fields', arg: '<fields>', why: 'rein reads settings and disallowed tools from its command line' },
  thinkingDisplay: { flag: '--thinking-display', arg: '<mode>', why: 'rein passes thinking blocks as the API returns them' },
  projectConfigRoot: { flag: '--project-config-root', arg: '<dir>', why: 'rein finds project layers from --cwd' },
  workload: { flag: '--workload', arg: '<name>', why: 'rein has no workload tags' },
});

const positiveInt = (flag: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${flag} must be a positive integer.`);
  return n;
};
const positiveNumber = (flag: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${flag} must be a positive number.`);
  return n;
};

/** Adds the flags that shape the agent (the ones `rein preset print` also takes). */
export function addPresetFlags(cmd: Command): Command {
  cmd
    .addOption(new Option('--output-format <format>', 'text, json (one result object) or stream-json (one JSON object per line)').choices(['text', 'json', 'stream-json']))
    .option('--include-partial-messages', 'stream-json: also print each server-sent event (stream_event lines)')
    .option('--include-hook-events', 'stream-json: also print hook_started / hook_response lines')
    .option('--replay-user-messages', 'stream-json: print each user message back as a user line')
    .option('--verbose', 'text: print tool calls and notices to stderr')
    .option('--model <model>', 'model id or alias (sonnet, opus, haiku)')
    .option('--fallback-model <model>', 'model to switch to after repeated overload errors')
    .addOption(new Option('--permission-mode <mode>', 'permission mode').choices(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions', 'auto']))
    .option('--dangerously-skip-permissions', 'permission mode bypassPermissions: no permission checks at all (deny rules still apply)')
    .option('--allow-dangerously-skip-permissions', 'allow bypassPermissions to be switched on later (set_permission_mode)')
    .option('--allowedTools, --allowed-tools <rules...>', 'permission rules that allow without asking ("Bash(git log:*)" Read, comma or space separated)')
    .option('--disallowedTools, --disallowed-tools <rules...>', 'permission rules that deny (a bare tool name removes the tool)')
    .option('--tools <tools...>', 'the tools the model gets ("" for none, "default" for the preset\'s)')
    .option('--system-prompt <prompt>', 'replace rein\'s system prompt')
    .option('--system-prompt-file <file>', 'replace rein\'s system prompt with a file\'s text')
    .option('--append-system-prompt <prompt>', 'text appended to the system prompt')
    .option('--append-system-prompt-file <file>', 'a file\'s text appended to the system prompt')
    .option('--mcp-config <configs...>', 'MCP servers: JSON files or strings of the form {"mcpServers": {...}}')
    .option('--strict-mcp-config', 'use only the MCP servers of --mcp-config')
    .option('--add-dir <dirs...>', 'more directories tools may use')
    .option('--max-turns <n>', 'stop after this many model requests', positiveInt('--max-turns'))
    .option('--max-budget-usd <usd>', 'stop once the run has cost this much', positiveNumber('--max-budget-usd'))
    .option('--settings <file-or-json>', 'a Claude Code settings file (or JSON) as a layer above the others')
    .option('--setting-sources <sources>', 'which Claude Code settings to read: user,project,local (default: all three; "" for none)')
    .option('--json-schema <schema>', 'answer as JSON matching this JSON Schema (structured_output in the result)')
    .option('--effort <level>', 'effort: low, medium, high or max')
    .option('--thinking <mode>', 'extended thinking: adaptive or disabled')
    .option('--max-thinking-tokens <n>', 'extended thinking with this budget, tokens', (v) => { const n = Number(v); if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('--max-thinking-tokens must be a whole number.'); return n; })
    .option('--permission-prompt-tool <tool>', 'an MCP tool that answers permission asks ("stdio": the program on stdin answers)');
  for (const [key, u] of Object.entries(UNSUPPORTED_FLAGS)) {
    // Hidden: listed in the README's table; using one is an error that says why.
    const o = new Option(`${u.flag}${u.arg ? ` ${u.arg}` : ''}`).hideHelp();
    o.attributeName = () => key;
    cmd.addOption(o);
  }
  return cmd;
}

/** Adds every headless flag of `claude` to `cmd` (`rein run` and `rein -p`). */
export function addClaudeFlags(cmd: Command): Command {
  cmd
    .option('-p, --print', 'print the answer and exit (always so in rein; accepted for `claude -p` scripts)')
    .addOption(new Option('--input-format <format>', 'text, or stream-json: user messages and control requests as JSON lines on stdin').choices(['text', 'stream-json']))
    .option('--session-id <uuid>', 'the id of the new session (a UUID)')
    .option('-r, --resume [id]', 'resume a session by id (or transcript path)')
    .option('-c, --continue', 'resume the newest session in this directory')
    .option('--fork-session', 'with --resume or --continue: go on in a new session with a copy of the history')
    .option('--permission-prompts <mode>', '"none": deny at once what would ask; "host": ask the program on stdin')
    .option('--await-initialize', 'stream-json: read the initialize control request before starting')
    .option('-d, --debug', 'write rein\'s protocol log to stderr (no filter: a word after it is the prompt)')
    .option('--debug-file <file>', 'append rein\'s protocol log to this file');
  return addPresetFlags(cmd);
}

/** Splits rule lists the way Claude Code does: by commas and spaces outside parentheses. */
export function splitRules(values: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const v of values ?? []) {
    let depth = 0;
    let cur = '';
    for (const ch of v) {
      if (ch === '(') depth++;
      if (ch === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === ',' || ch === ' ')) {
        if (cur.trim()) out.push(cur.trim());
        cur = '';
        continue;
      }
      cur += ch;
    }
    if (cur.trim()) out.push(cur.trim());
  }
  return out;
}

/** The flags that take every word after them (commander `<values...>`), as Claude Code's do. */
const LIST_FLAGS = ['--allowedTools', '--allowed-tools', '--disallowedTools', '--disallowed-tools', '--tools', '--mcp-config', '--add-dir'];

/**
 * When the command line ends in a list flag with more than one value (`--allowedTools Read "fix
 * it"`), the last of them was most likely meant as the prompt: that flag, its values, and a
 * sentence saying how to write it. Undefined otherwise (a `--` or another option after the list).
 */
export function listTookPrompt(argv: readonly string[] = process.argv.slice(2)): { flag: string; words: string[]; hint: string } | undefined {
  for (let i = argv.length - 1; i >= 0; i--) {
    const a = argv[i]!;
    if (LIST_FLAGS.includes(a)) {
      const words = argv.slice(i + 1);
      if (words.length < 2) return undefined;
      return { flag: a, words, hint: `${a} takes every word after it, so ${JSON.stringify(words.at(-1))} went to it: put the prompt before ${a}, or end its list with -- (rein -p ${a} ${words.slice(0, -1).map((w) => (/^[\w./:-]+$/.test(w) ? w : `'${w}'`)).join(' ')} -- "the prompt")` };
    }
    if (a.startsWith('-')) return undefined;
  }
  return undefined;
}

/** A JSON value from a flag: inline JSON, or a file holding it. */
function jsonArg(flag: string, value: string, cwd: string): unknown {
  const text = value.trim().startsWith('{') || value.trim().startsWith('[') ? value : readArgFile(flag, value, cwd);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`${flag}: not valid JSON: ${(err as Error).message}`);
  }
}

function readArgFile(flag: string, file: string, cwd: string): string {
  const path = resolve(cwd, file);
  if (!existsSync(path)) {
    const took = listTookPrompt();
    const hint = took && took.words.at(-1) === file ? `; ${took.hint}` : '';
    throw new InputError(`${flag}: no such file ${file} (looked for ${path})${hint}`);
  }
  return readFileSync(path, 'utf8');
}

/** Claude Code's reading of a yes/no environment variable: 1, true, yes or on (any case). */
function envTruthy(v: string | undefined): boolean {
  return ['1', 'true', 'yes', 'on'].includes((v ?? '').trim().toLowerCase());
}

/** A whole number of tokens from an environment variable, or an InputError naming it. */
function envTokens(name: string, v: string, min: number): number {
  const n = Number(v.trim());
  if (!v.trim() || !Number.isInteger(n) || n < min) throw new InputError(`${name} must be a whole number of tokens${min > 0 ? ` of at least ${min}` : ''} (got "${v}")`);
  return n;
}

/**
 * Claude Code's environment variables that change the agent, read as it reads them
 * (https://code.claude.com/docs/en/settings#environment-variables), below the flags that say the
 * same: `MAX_THINKING_TOKENS` (a thinking budget, 0 = off; under --thinking / --max-thinking-tokens),
 * `CLAUDE_CODE_MAX_OUTPUT_TOKENS` (`max_tokens` per request), `DISABLE_AUTO_COMPACT` and
 * `DISABLE_COMPACT` (no automatic compaction: the `compaction/auto` plugin is switched off).
 * An empty (or blank) value counts as unset, as `export MAX_THINKING_TOKENS=` does in a shell and in
 * Claude Code. Writes into the flag layer `layer`; throws InputError for any other value that is no
 * whole number, naming the variable.
 */
function claudeEnv(env: NodeJS.ProcessEnv, f: ClaudeFlagValues, layer: Record<string, any>): void {
  const model = () => (layer.model ??= {});
  const set = (name: string) => (env[name]?.trim() ? env[name] : undefined);
  const thinking = set('MAX_THINKING_TOKENS');
  if (thinking !== undefined && f.thinking === undefined && f.maxThinkingTokens === undefined) {
    const n = envTokens('MAX_THINKING_TOKENS', thinking, 0);
    model().thinking = n === 0 ? { type: 'disabled' } : { type: 'enabled', budget_tokens: n };
  }
  const output = set('CLAUDE_CODE_MAX_OUTPUT_TOKENS');
  if (output !== undefined) model().maxTokens = envTokens('CLAUDE_CODE_MAX_OUTPUT_TOKENS', output, 1);
  if (envTruthy(env.DISABLE_AUTO_COMPACT) || envTruthy(env.DISABLE_COMPACT)) (layer.plugins ??= {})['compaction/auto'] = false;
}

/** What the flags ask for beyond the preset layer. */
export interface FlagPlan {
  /** The command-line preset layer. */
  layer: Record<string, unknown>;
  /** Top-level preset keys the flag layer replaces instead of merging into (`--strict-mcp-config`). */
  replace: string[];
  /**
   * Claude Code settings to read: every source by default, those `--setting-sources` names, none
   * with `--no-layers` and no settings flag (undefined).
   */
  settings?: { sources: SettingSource[]; flagSettings?: { file: string } | { text: string } };
}

/**
 * The command-line preset layer for a set of flags, with `ANTHROPIC_MODEL` from `env` below
 * `--model`. Throws InputError for a flag rein does not honour and for a bad value (unreadable --mcp-config, --json-schema that is not JSON, ...).
 */
export function flagPlan(f: ClaudeFlagValues & { layers?: boolean }, cwd: string, env: NodeJS.ProcessEnv = process.env): FlagPlan {
  for (const [key, u] of Object.entries(UNSUPPORTED_FLAGS)) {
    // A `--no-x` flag is true unless given.
    const given = u.flag.startsWith('--no-') ? f[key] === false : f[key] !== undefined;
    if (given) throw new InputError(`${u.flag} is not supported: ${u.why}`);
  }
  const layer: Record<string, any> = {};
  const replace: string[] = [];
  const at = (key: string) => (layer[key] ??= {});

  const printer: Record<string, unknown> = {};
  if (f.outputFormat) printer.format = f.outputFormat;
  if (f.includePartialMessages) printer.includePartialMessages = true;
  if (f.replayUserMessages) printer.replayUserMessages = true;
  if (f.includeHookEvents) printer.includeHookEvents = true;
  if (f.verbose) printer.verbose = true;
  if (Object.keys(printer).length) at('plugins').printer = printer;

  // ANTHROPIC_MODEL chooses the model as it does for Claude Code: below --model, above the
  // settings files' `model` (https://code.claude.com/docs/en/model-config).
  // Aliases, `[1m]` and `default` as Claude Code reads them (claudeModel).
  const model = f.model || env.ANTHROPIC_MODEL?.trim();
  const chosen = model ? claudeModel(model) : {};
  if (chosen.name) Object.assign(at('model'), chosen);
  if (f.fallbackModel) {
    const fallback = claudeModel(f.fallbackModel).name;
    // As claude -p: a fallback that is the model itself would never be switched to.
    if (fallback && fallback === chosen.name) throw new InputError(`--fallback-model ${f.fallbackModel} is the same model as ${f.model ? '--model' : 'ANTHROPIC_MODEL'} (${fallback}): give another model to switch to`);
    if (fallback) at('model').fallbackModel = fallback;
  }
  if (f.effort) {
    if (!['low', 'medium', 'high', 'max'].includes(f.effort)) throw new InputError(`--effort must be low, medium, high or max (got "${f.effort}"; rein does not send other levels)`);
    at('model').effort = f.effort;
  }
  if (f.thinking !== undefined) {
    if (f.thinking === 'adaptive') at('model').thinking = { type: 'adaptive' };
    else if (f.thinking === 'disabled') at('model').thinking = { type: 'disabled' };
    else throw new InputError(`--thinking must be adaptive or disabled (got "${f.thinking}"); for a budget use --max-thinking-tokens`);
  }
  if (f.maxThinkingTokens !== undefined) at('model').thinking = f.maxThinkingTokens === 0 ? { type: 'disabled' } : { type: 'enabled', budget_tokens: f.maxThinkingTokens };
  claudeEnv(env, f, layer);

  if (f.permissionMode) at('permissions').mode = f.permissionMode;
  if (f.allowDangerouslySkipPermissions) at('permissions').allowBypassPermissions = true;
  if (f.dangerouslySkipPermissions) {
    if (f.permissionMode && f.permissionMode !== 'bypassPermissions') throw new InputError(`--dangerously-skip-permissions and --permission-mode ${f.permissionMode} ask for two different modes; pass one`);
    Object.assign(at('permissions'), { mode: 'bypassPermissions', allowBypassPermissions: true });
  }
  const allow = splitRules(f.allowedTools);
  if (allow.length) at('permissions').allow = allow;
  const deny = splitRules(f.disallowedTools);
  if (deny.length) at('permissions').deny = deny;
  if (f.addDir?.length) at('permissions').additionalDirectories = f.addDir.map((d) => resolve(cwd, d));

  if (f.tools) {
    const names = splitRules(f.tools);
    // A list replaces the preset's (lists other than rule lists are replaced by a higher layer).
    if (!(names.length === 1 && names[0] === 'default')) layer.tools = names;
  }

  if (f.systemPrompt !== undefined && f.systemPromptFile !== undefined) throw new InputError('--system-prompt and --system-prompt-file both replace the system prompt; pass one');
  const system = f.systemPromptFile !== undefined ? readArgFile('--system-prompt-file', f.systemPromptFile, cwd) : f.systemPrompt;
  if (system !== undefined) {
    // Replaces rein's own sections (identity, how to work, ...) and the preset's.
    at('system').sections = [{ name: 'system-prompt', text: system }];
    at('plugins')['system-prompt'] = { defaults: false };
  }
  if (f.appendSystemPrompt !== undefined && f.appendSystemPromptFile !== undefined) throw new InputError('--append-system-prompt and --append-system-prompt-file both append; pass one');
  const append = f.appendSystemPromptFile !== undefined ? readArgFile('--append-system-prompt-file', f.appendSystemPromptFile, cwd) : f.appendSystemPrompt;
  if (append !== undefined) at('system').append = append;

  if (f.mcpConfig?.length) {
    const servers: Record<string, unknown> = {};
    for (const c of f.mcpConfig) {
      const v = jsonArg('--mcp-config', c, cwd) as { mcpServers?: Record<string, unknown> };
      if (!v || typeof v !== 'object' || !v.mcpServers || typeof v.mcpServers !== 'object') throw new InputError(`--mcp-config ${c.length > 60 ? `${c.slice(0, 57)}...` : c}: expected an object with "mcpServers"`);
      Object.assign(servers, v.mcpServers);
    }
    layer.mcpServers = servers;
  }
  if (f.strictMcpConfig) {
    layer.mcpServers ??= {};
    replace.push('mcpServers');
  }

  if (f.maxTurns) at('limits').maxTurns = f.maxTurns;
  if (f.maxBudgetUsd) at('limits').maxBudgetUsd = f.maxBudgetUsd;

  if (f.jsonSchema !== undefined) {
    const schema = jsonArg('--json-schema', f.jsonSchema, cwd);
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new InputError('--json-schema: expected a JSON Schema object');
    at('plugins')['structured-output'] = { schema };
  }

  if (f.permissionPromptTool && f.permissionPromptTool !== 'stdio') at('plugins')['permissions/prompt-tool'] = { tool: f.permissionPromptTool };
  if (f.permissionPromptTool === 'stdio' && f.inputFormat !== 'stream-json') throw new InputError('--permission-prompt-tool stdio needs --input-format stream-json: the program on stdin answers the asks');
  if (f.permissionPrompts !== undefined && f.permissionPrompts !== 'none' && f.permissionPrompts !== 'host') throw new InputError(`--permission-prompts must be none or host (got "${f.permissionPrompts}")`);

  // As `claude -p` does, every settings file is read unless the flags say otherwise: a project's
  // deny rules and hooks apply without anyone having to ask for them. `--setting-sources ""` reads
  // none; `--no-layers` (only the preset and the flags) reads none unless a settings flag is given.
  let settings: FlagPlan['settings'];
  if (f.settingSources !== undefined || f.settings !== undefined || f.layers !== false) {
    const sources = f.settingSources === undefined ? [...SETTING_SOURCES] : f.settingSources.split(',').map((s) => s.trim()).filter(Boolean);
    for (const s of sources) if (!(SETTING_SOURCES as readonly string[]).includes(s)) throw new InputError(`--setting-sources: unknown source "${s}" (expected user, project, local, comma separated)`);
    settings = { sources: sources as SettingSource[] };
    if (f.settings !== undefined) {
      jsonArg('--settings', f.settings, cwd); // readable JSON, or a clear error now
      settings.flagSettings = f.settings.trim().startsWith('{') ? { text: f.settings } : { file: resolve(cwd, f.settings) };
    }
  }
  return { layer, replace, settings };
}
