/**
 * `Task`: runs a child agent on a self-contained task and returns its final report. The child is a
 * kernel of its own (own tools, model, turn limit, history and transcript, under the parent
 * session's folder), sharing the parent's model client. Every tool call of the child is decided by
 * the parent's permission hooks (the same answer the parent would give, asks included) and passes
 * through the parent's PreToolUse / PostToolUse hooks, with the child named in `ctx.agent`; its
 * commands start through the parent's `spawn` hook (the parent's sandbox); `subagentStart` /
 * `subagentStop` fire on the parent. The child spends from the parent's run (`shareBudgetWith`, budget.ts):
 * each of its requests is added to the parent run's side usage (`subagent`) and cost as it is paid,
 * and no request of the parent or of any child starts once their total reached the parent's
 * `limits.maxBudgetUsd`.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import {
  type Kernel, type KernelPreset, type RunContext, type SubagentInfo, decidePermission, type ModelClient,
  defineTool, ToolError, type Tool, type RunResult, type SubagentHandle, type ToolOutput,
} from '../../../kernel/index.js';
import { DEFAULT_AGENT_MAX_TURNS, MODEL_ALIASES, type AgentDefinition } from './agents.js';
import { FORK_GUARD_MESSAGE, forkStart, isForkChild, lastRequestOf, makeFork } from './fork.js';
import { backgroundOf } from './background.js';
import { shareBudgetWith } from './budget.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

/** Stage of the child's forwarding taps: before anything the child itself might load. */
const FORWARD_STAGE = -10_000;

export const taskInput = z.lazy(() => z.strictObject({
  description: z.string().min(1).describe('A short (3-5 word) label for the task'),
  prompt: z.string().min(1).describe('The complete task for the agent, with all the context it needs'),
  subagent_type: z.string().optional().describe('Which kind of agent to run (see the list in the description)'),
  model: z.enum(['inherit', 'sonnet', 'opus', 'haiku']).optional().describe('Model for this task (default: the agent\'s own, else yours)'),
  run_in_background: z.boolean().optional().describe('Run the agent in the background: the call returns at once, and its report arrives later as a notification'),
}));

export type TaskInput = z.output<typeof taskInput>;

/**
 * One line per agent kind, for the listing reminder (index.ts). Not in the tool's description: a
 * description that changes when an agent is added would invalidate the cached tool array.
 */
export function describeAgents(agents: Record<string, AgentDefinition>): string {
  return Object.entries(agents).map(([name, a]) => {
    const tools = a.tools ? a.tools.join(', ') : a.preset ? `those of preset ${a.preset}` : 'all of yours except Task';
    const without = a.disallowedTools?.length ? `; not ${a.disallowedTools.join(', ')}` : '';
    return `- ${name}: ${a.description} (Tools: ${tools}${without})`;
  }).join('\n');
}

function description(defaultAgent: string, fork: boolean): string {
  const without = fork
    ? 'without subagent_type, the agent is a fork of you: it continues this very conversation (it knows everything you know) with the prompt as its directive, so brief it in one or two sentences.'
    : `without subagent_type, ${defaultAgent} runs.`;
  return `Runs a separate agent that works on a task on its own and returns one final report.

The agent types you can choose from (subagent_type) are listed in a system reminder in the conversation ("Agent types available for the Task tool"); ${without}
With run_in_background, the call returns at once and the report arrives later as a <task-notification> message; go on with other work meanwhile.

When to use it:
- Open-ended searches that may take several rounds of Glob, Grep and Read, or research whose details you do not need in your own context.
- Independent pieces of work that can proceed in parallel: put several Task calls in one message and they run at the same time.
When not to: reading a file you know the path of (use Read), finding a specific name (use Grep or Glob), or anything you can do in a couple of tool calls.

How to brief the agent:
- It starts with none of your conversation. Write the prompt as you would for a capable colleague who just walked in: the goal, what you already know or tried, the relevant paths, and what to report back.
- Do your own thinking: give it concrete instructions based on what you have understood, not "based on your findings, fix it".
- Say whether it should change files or only investigate, and how long or detailed its report should be.
- Its report comes back to you, not to the user: pass on what matters in your own reply.`;
}

/** A model given as an alias (`sonnet`), a name, or `inherit` (undefined: the caller's). */
export function resolveModel(m: string | undefined): string | undefined {
  if (!m || m === 'inherit') return undefined;
  return MODEL_ALIASES[m] ?? m;
}

/** A client that shares `c` but whose close() leaves it open (the parent owns it). */
function sharedClient(c: ModelClient): ModelClient {
  return { kind: c.kind, baseURL: c.baseURL, send: (p, o) => c.send(p, o), countTokens: (p) => c.countTokens(p), close: async () => {} };
}

/**
 * Makes the child's permission, tool and process hooks be the parent's (see the module comment).
 * The parent's hooks see which agent made the call (`ctx.agent`: the innermost one, for a child's
 * child), the child's commands start through the parent's `spawn` hook (the parent's sandbox), and
 * the child's denials are the parent run's too.
 */
function forwardHooks(child: Kernel, parent: Kernel, type: string, mode?: AgentDefinition['permissionMode']): void {
  const parentCtx = (ctx: RunContext): RunContext => ({ ...parent.runContext(ctx.signal), agent: ctx.agent ?? { id: child.sessionId, type } });
  child.hooks.event.tap('task/forward', (e) => { if (e.type === 'permission_denied') parent.recordDenial(e.denial); });
  child.hooks.permission.tapPromise({ name: 'task/forward', stage: FORWARD_STAGE }, async (q, ctx) => {
    const decision = await decidePermission(parent, q, parentCtx(ctx));
    // The agent's own mode narrows the parent's answer: a plan-mode agent only reads.
    if (mode === 'plan' && decision.behavior === 'allow' && !q.tool.isReadOnly(q.input)) {
      return { behavior: 'deny', message: `The ${type} agent runs in plan mode: ${q.toolName} would change something, so it does not run.` };
    }
    return decision;
  });
  child.hooks.spawn.tapPromise({ name: 'task/forward', stage: FORWARD_STAGE }, (p, ctx) => parent.hooks.spawn.promise(p, parentCtx(ctx)));
  child.hooks.preToolUse.tapPromise({ name: 'task/forward', stage: FORWARD_STAGE }, (p, ctx) => parent.hooks.preToolUse.promise(p, parentCtx(ctx)));
  child.hooks.postToolUse.tapPromise({ name: 'task/forward', stage: FORWARD_STAGE }, (p, ctx) => parent.hooks.postToolUse.promise(p, parentCtx(ctx)));
  child.hooks.postToolUseFailure.tapPromise({ name: 'task/forward', stage: FORWARD_STAGE }, (f, ctx) => parent.hooks.postToolUseFailure.promise(f, parentCtx(ctx)));
}

export interface TaskToolOptions {
  agents: Record<string, AgentDefinition>;
  defaultAgent: string;
  /** Fork mode: a call without subagent_type forks the caller (fork.ts). */
  fork?: { enabled: boolean; maxTurns: number };
}

/** Raw options of the parent's plugins that the child reuses (same tool settings). */
function pluginOptionsFor(parent: Kernel, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const lp of parent.plugins) if (names.includes(lp.plugin.name)) out[lp.plugin.name] = lp.options;
  return out;
}

/** An agent's `preset` as createAgent takes it: a file (relative to the parent's preset folder) or a built-in name. */
function agentPresetRef(preset: string, presetDir: string): string {
  const file = isAbsolute(preset) ? preset : resolve(presetDir, preset);
  return /[\\/]|\.ya?ml$/.test(preset) && existsSync(file) ? file : preset;
}

/**
 * The `description` of an agent preset, for the Task tool's list of agents; undefined when it has
 * none or cannot be read (the preset loader reports a broken agent preset with its parent).
 */
export function presetDescription(kernel: Kernel, preset: string): Promise<string | undefined> {
  return kernel.subagents.presetDescription(agentPresetRef(preset, kernel.presetDir), kernel.presetDir);
}

/** A child agent made for one Task call, not yet run. */
interface Spawned {
  agent: SubagentHandle;
  type: string;
  prompt: string;
  maxTurns: number;
  info: SubagentInfo;
}

/** Builds the child of a named agent (fresh conversation; a preset or an inline definition). */
async function spawnNamed(parent: Kernel, input: TaskInput, type: string, def: AgentDefinition, toolUseId: string, ctx: RunContext): Promise<Spawned> {
  const model = resolveModel(input.model) ?? resolveModel(def.model) ?? ctx.model;
  const maxTurns = def.maxTurns ?? DEFAULT_AGENT_MAX_TURNS;
  const sessionDir = join(parent.sessionDir(), 'subagents');
  const link = { sessionId: parent.sessionId, toolUseId };
  let sharedTools: Tool[] = [];
  let presetArg: string | KernelPreset;
  let overrides: Record<string, unknown> | undefined;
  if (def.preset) {
    presetArg = agentPresetRef(def.preset, parent.presetDir);
    overrides = { session: { dir: sessionDir }, limits: { maxTurns }, ...(resolveModel(def.model) || resolveModel(input.model) ? { model: { name: model } } : {}) };
  } else {
    const wanted = (def.tools ?? parent.tools.names().filter((n) => n !== 'Task')).filter((n) => !def.disallowedTools?.includes(n));
    // MCP tools are the parent's own tool objects (its connections), shared rather than reconnected.
    sharedTools = mcpTools(parent, wanted);
    const tools = wanted.filter((n) => !n.startsWith('mcp__'));
    presetArg = {
      name: `${parent.preset.name ?? 'agent'}/${type}`,
      model: { ...parent.preset.model, name: model },
      tools,
      system: def.prompt ? { sections: [{ name: 'agent', text: def.prompt }] } : undefined,
      limits: { maxTurns },
      session: { dir: sessionDir },
      plugins: pluginOptionsFor(parent, toolPlugins(parent, tools)),
      // The parent decides every call (forwardHooks), so the child's own mode never answers; default needs no opt-ins.
      permissions: { mode: 'default' },
    };
  }
  const agent = await parent.subagents.create({ preset: presetArg, overrides, cwd: parent.cwd, client: sharedClient(parent.client), parent: link });
  const child = agent.kernel;
  for (const t of sharedTools) if (!child.tools.has(t.name)) child.tools.register(t, t.plugin);
  forwardHooks(child, parent, type, def.permissionMode);
  shareBudgetWith(child, parent);
  return { agent, type, prompt: input.prompt, maxTurns, info: { parentSessionId: parent.sessionId, toolUseId, preset: type, prompt: input.prompt, childSessionId: child.sessionId } };
}

/** The parent's MCP tools among `wanted` (`mcp__server__*` takes all of a server's). */
function mcpTools(parent: Kernel, wanted: string[]): Tool[] {
  return parent.tools.list().filter((t) => t.name.startsWith('mcp__') && wanted.some((w) => w === t.name || (w.endsWith('*') && t.name.startsWith(w.slice(0, -1)))));
}

/** The parent's built-in compaction plugins (`compaction/*`). */
function compactionPlugins(parent: Kernel): string[] {
  return parent.plugins.map((lp) => lp.plugin.name).filter((n) => n.startsWith('compaction/'));
}

/** The built-in plugins that register `tools` (Task's own included: a fork keeps the tool, refusing calls). */
function toolPlugins(parent: Kernel, tools: string[]): string[] {
  return tools.map((t) => parent.subagents.pluginForTool(t)).filter((n): n is string => n !== undefined);
}

/**
 * Builds a fork child (fork.ts): the parent's tools (Task included, so the tool array is the
 * same), the parent's model, its history, and a prompt of placeholders plus the directive.
 */
async function spawnFork(parent: Kernel, input: TaskInput, toolUseId: string, ctx: RunContext, maxTurns: number): Promise<Spawned> {
  const request = lastRequestOf(parent);
  const history = parent.messages;
  const at = history.findLastIndex((m) => m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use' && b.id === toolUseId));
  if (!request || at < 0) throw new ToolError('A fork needs the request that made this call; call Task with a subagent_type instead.');
  const names = parent.tools.names();
  const tools = names.filter((n) => !n.startsWith('mcp__'));
  const presetArg: KernelPreset = {
    name: `${parent.preset.name ?? 'agent'}/fork`,
    model: { ...parent.preset.model, name: ctx.model },
    tools,
    limits: { maxTurns },
    session: { dir: join(parent.sessionDir(), 'subagents') },
    // The parent's compaction plugins too, with the parent's options: a long fork compacts itself
    // (its requests then start from its own summary instead of the parent's prefix).
    plugins: pluginOptionsFor(parent, [...toolPlugins(parent, tools), ...compactionPlugins(parent)]),
    permissions: { mode: 'default' },
  };
  const agent = await parent.subagents.create({ preset: presetArg, cwd: parent.cwd, client: sharedClient(parent.client), parent: { sessionId: parent.sessionId, toolUseId } });
  const child = agent.kernel;
  for (const t of mcpTools(parent, names)) if (!child.tools.has(t.name)) child.tools.register(t, t.plugin);
  // The conversation so far, up to and including the message with this call, and its placeholders.
  const start = forkStart(history[at]!, input.prompt);
  child.messages = [...history.slice(0, at + 1), start.placeholders];
  makeFork(child, request, toolUseId);
  forwardHooks(child, parent, 'fork');
  shareBudgetWith(child, parent);
  return { agent, type: 'fork', prompt: start.prompt, maxTurns, info: { parentSessionId: parent.sessionId, toolUseId, preset: 'fork', prompt: input.prompt, childSessionId: child.sessionId } };
}

/** Runs a spawned child to its end: hooks, usage added to the parent, the result for the model. */
async function runChild(parent: Kernel, s: Spawned, signal: AbortSignal, notify: (m: string) => void, label: string): Promise<{ result: RunResult; output: ToolOutput }> {
  const pctx = parent.runContext(signal);
  let result: RunResult;
  try {
    await parent.hooks.subagentStart.promise(s.info, pctx);
    notify(`subagent ${s.type} started (${label}), session ${s.info.childSessionId}`);
    result = await s.agent.run(s.prompt, { signal, maxTurns: s.maxTurns }).result;
  } finally {
    await s.agent.close();
  }
  await parent.hooks.subagentStop.promise({ ...s.info, result }, pctx);
  notify(`subagent ${s.type} finished: ${result.terminalReason} after ${result.numTurns} turns`);
  return { result, output: reportOf(result, s.maxTurns) };
}

/** What the model gets back from a finished child. */
function reportOf(result: RunResult, maxTurns: number): ToolOutput {
  const report = result.text.trim() || '(The agent finished without a final report.)';
  if (result.terminalReason === 'max_turns') return `${report}\n\n(The agent stopped at its limit of ${maxTurns} turns; its work may be unfinished.)`;
  if (result.isError) return { content: `The agent stopped before finishing (${result.terminalReason}).${result.text.trim() ? `\nIts last message:\n${result.text.trim()}` : ''}`, isError: true };
  return report;
}

/** Builds the Task tool. */
export function createTaskTool(o: TaskToolOptions): Tool<TaskInput> {
  const fork = o.fork?.enabled === true;
  return defineTool<TaskInput>({
    name: 'Task',
    description: description(o.defaultAgent, fork),
    inputSchema: taskInput,
    inputJsonSchema: INPUT_JSON_SCHEMAS.taskInput,
    // The call itself changes nothing: each of the child's tool calls is checked on its own.
    isReadOnly: () => true,
    // Several Task calls of one message run at the same time, each child with its own kernel and transcript.
    isConcurrencySafe: () => true,
    maxResultSizeChars: 100_000,
    async call(input, ctx) {
      const parent = ctx.kernel;
      if (isForkChild(parent)) throw new ToolError(FORK_GUARD_MESSAGE);
      const rctx = parent.runContext(ctx.signal);
      let spawned: Spawned;
      let background = input.run_in_background === true;
      if (fork && !input.subagent_type) {
        spawned = await spawnFork(parent, input, ctx.toolUseId, rctx, o.fork!.maxTurns);
      } else {
        const type = input.subagent_type ?? o.defaultAgent;
        const def = o.agents[type];
        if (!def) throw new ToolError(`Unknown subagent_type "${type}". Available: ${Object.keys(o.agents).join(', ')}.`);
        background ||= def.background === true;
        spawned = await spawnNamed(parent, input, type, def, ctx.toolUseId, rctx);
      }
      // The parent's transcript points at the child's, so a reader can follow the call into it.
      // The parent's transcript points at the child's, so a reader can follow the call into it.
      parent.transcript.append({ type: 'plugin', plugin: 'tools/task', data: { subagent: { toolUseId: ctx.toolUseId, type: spawned.type, sessionId: spawned.info.childSessionId, transcript: spawned.agent.kernel.transcript.file, background } } });
      if (background) {
        const id = spawned.info.childSessionId;
        backgroundOf(parent).start(id, input.description, runChild(parent, spawned, backgroundOf(parent).signal, (m) => ctx.notify(m), input.description));
        return `Started the ${spawned.type} agent in the background (task id ${id}). Its report will arrive as a <task-notification> message when it finishes; go on with other work meanwhile, and do not wait or poll for it.`;
      }
      return (await runChild(parent, spawned, ctx.signal, (m) => ctx.notify(m), input.description)).output;
    },
  });
}
