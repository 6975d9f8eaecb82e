/**
 * `tools/task`: registers the `Task` tool (see tool.ts and README.md).
 *
 *   apply      the agents: general-purpose, Markdown files (`.claude/agents/*.md`, files.ts), the
 *              preset's `subagents` (each a preset) and its `agents` (inline), later ones winning
 *   context    (stage NOTIFICATIONS) the agent list reaches the model as a `<system-reminder>` at
 *              the tail of the history, once, so the Task tool's description never changes; and
 *              background children that finished are announced as `<task-notification>` messages
 *   stop       while background children run, the turn waits for the next to finish and goes on with its report
 *   turnEnd    a run that spent its budget waits for its background children's last requests (their cost is the run's)
 *   request    (fork mode, last stage) the request as sent is kept: a fork child starts with it (fork.ts)
 *   sessionEnd background children still running are stopped
 *
 * Options: `agents`, `presets`, `defaultAgent`, `agentDirs`, `agentFiles`, `fork`.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { CONTEXT_STAGE, createKernelState, definePlugin, type Message } from '../../../kernel/index.js';
import { agentDefinition, GENERAL_PURPOSE, type AgentDefinition } from './agents.js';
import { agentDirs, discoverAgentFiles } from './files.js';
import { createTaskTool, describeAgents, presetDescription } from './tool.js';
import { recordRequests } from './fork.js';
import { backgroundOf } from './background.js';
import { gateRequests } from './budget.js';

/** Turn limit of a fork child (Claude Code's fork agent: 200). */
export const FORK_MAX_TURNS = 200;

export { createTaskTool, describeAgents, resolveModel } from './tool.js';
export { FORK_PLACEHOLDER, FORK_BOILERPLATE, FORK_GUARD_MESSAGE, isForkChild, forkStart } from './fork.js';
export { taskNotification } from './background.js';
export { loadAgentFile, discoverAgentFiles, agentDirs, type AgentFile } from './files.js';
export { GENERAL_PURPOSE, MODEL_ALIASES, DEFAULT_AGENT_MAX_TURNS, PERMISSION_MODES, type AgentDefinition } from './agents.js';

export const PLUGIN_NAME = 'tools/task';

export const taskOptions = z.strictObject({
  /** Agent kinds by name (the Task tool's `subagent_type`), beside `general-purpose`; the preset's `agents` key. */
  agents: z.record(z.string().min(1), agentDefinition).default({}).register(z.globalRegistry, { description: 'Agent kinds by name (the Task tool\'s `subagent_type`), besides `general-purpose`; the preset\'s `agents` key.' }),
  /**
   * More agent kinds, each a preset: name → preset file or built-in name. The preset's
   * `subagents` key is passed here; an entry of `agents` with the same name wins.
   */
  presets: z.record(z.string().min(1), z.string().min(1)).default({}).register(z.globalRegistry, { description: 'More agent kinds, each a preset: name → preset file or built-in name; the preset\'s `subagents` key; an entry of `agents` with the same name wins.' }),
  /** The agent used when a call names none. */
  defaultAgent: z.string().default('general-purpose').register(z.globalRegistry, { description: 'The agent used when a Task call names none.' }),
  /** More folders of agent files (`*.md`), relative to the preset's folder; searched before the project's and the user's. */
  agentDirs: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'More folders of agent files (`*.md`), relative to the preset\'s folder; searched before the project\'s and the user\'s.' }),
  /** Read `.claude/agents/*.md` of the project (cwd up to the repository root) and of the user (`~/.claude/agents`). */
  agentFiles: z.strictObject({ project: z.boolean().default(true).register(z.globalRegistry, { description: 'Read the project\'s agent files: `.claude/agents/*.md` from the working directory up to the repository root.' }), user: z.boolean().default(true).register(z.globalRegistry, { description: 'Read the user\'s agent files: `~/.claude/agents/*.md`.' }) }).default({ project: true, user: true }).register(z.globalRegistry, { description: 'Which `.claude/agents/*.md` agent files are read.' }),
  /**
   * Fork mode: a Task call without `subagent_type` forks the caller, a child that continues this
   * conversation and reads the parent's cached prefix (fork.ts). `maxTurns`: the fork's turn limit
   * (Claude Code: 200).
   */
  fork: z.strictObject({ enabled: z.boolean().default(false).register(z.globalRegistry, { description: 'A Task call without `subagent_type` forks the caller: a child that continues this conversation and reads the parent\'s cached prefix.' }), maxTurns: z.number().int().positive().default(FORK_MAX_TURNS).register(z.globalRegistry, { description: 'Turn limit of a fork child (Claude Code\'s fork agent: 200).' }) }).default({ enabled: false, maxTurns: FORK_MAX_TURNS }).register(z.globalRegistry, { description: 'Fork mode of the Task tool.' }),
});

const LISTING_HEAD = 'Agent types available for the Task tool (subagent_type):';

/** Whether this kernel's history already has the agent listing (a resumed session). */
const listingState = createKernelState<{ sent: boolean }>(PLUGIN_NAME, () => ({ sent: false }));

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'The Task tool: runs a child agent from a named definition, a .claude/agents/*.md file or a preset, through the parent\'s permission and tool hooks, and returns its report.',
  options: taskOptions,
  async apply(kernel, options) {
    const home = process.env.HOME || homedir();
    const files = discoverAgentFiles(agentDirs({ cwd: kernel.cwd, home, dirs: options.agentDirs.map((d) => resolve(kernel.presetDir, d)), project: options.agentFiles.project, user: options.agentFiles.user }));
    const agents: Record<string, AgentDefinition> = { 'general-purpose': GENERAL_PURPOSE };
    for (const f of files) agents[f.name] = f.definition;
    for (const [name, preset] of Object.entries(options.presets)) {
      if (options.agents[name]) continue;
      agents[name] = { description: (await presetDescription(kernel, preset)) ?? `Runs the ${name} agent (preset ${preset}).`, preset };
    }
    Object.assign(agents, options.agents);
    if (!agents[options.defaultAgent]) {
      throw new Error(`defaultAgent "${options.defaultAgent}" is none of the agents (${Object.keys(agents).join(', ')})`);
    }
    kernel.tools.register(createTaskTool({ ...options, agents, fork: options.fork }), PLUGIN_NAME);

    const listing = `<system-reminder>\n${LISTING_HEAD}\n${describeAgents(agents)}\n</system-reminder>`;
    const st = listingState(kernel);
    kernel.hooks.context.tap({ name: PLUGIN_NAME, stage: CONTEXT_STAGE.NOTIFICATIONS }, (state, ctx) => {
      if (st.sent) return state;
      st.sent = true;
      // Only when the requests offer the tool (a preset's plugins may replace the tool array).
      if (!kernel.hooks.toolDefinitions.call(kernel.tools.definitions(), ctx).some((t) => t.name === 'Task')) return state;
      // A resumed session already told the model (and a listing in the middle of it would move nothing earlier).
      if (state.messages.some((m) => m.meta?.source === PLUGIN_NAME && m.content.some((b) => b.type === 'text' && b.text.includes(LISTING_HEAD)))) return state;
      const note: Message = { role: 'user', content: [{ type: 'text', text: listing }], meta: { meta: true, source: PLUGIN_NAME, at: Date.now() } };
      return { ...state, messages: [...state.messages, note] };
    });

    if (options.fork.enabled) recordRequests(kernel);
    // The parent's own requests pass the gate its children share.
    gateRequests(kernel);

    const bg = backgroundOf(kernel);
    kernel.hooks.context.tap({ name: `${PLUGIN_NAME}/background`, stage: CONTEXT_STAGE.NOTIFICATIONS }, (state) => {
      const notes = bg.takeFinished();
      if (!notes.length) return state;
      const note: Message = { role: 'user', content: notes.map((text) => ({ type: 'text' as const, text })), meta: { meta: true, source: `${PLUGIN_NAME}/background`, at: Date.now() } };
      return { ...state, messages: [...state.messages, note] };
    });
    kernel.hooks.stop.tapPromise(PLUGIN_NAME, async () => {
      let notes = bg.takeFinished();
      if (!notes.length && bg.running()) {
        await bg.next();
        notes = bg.takeFinished();
      }
      return notes.length ? { action: 'block' as const, reason: notes.join('\n') } : undefined;
    });
    // The budget is spent: no child starts another request, and the ones in flight are still
    // paid, so the run's total waits for them (each ends at its next request).
    kernel.hooks.turnEnd.tapPromise(PLUGIN_NAME, async (t) => {
      if (t.terminal === 'budget_exhausted') await bg.settled();
    });
    kernel.hooks.sessionEnd.tap(PLUGIN_NAME, () => { bg.stopAll(); });
    kernel.onClose(() => bg.stopAll());
  },
});
