/**
 * Agent definitions for the Task tool: a named kind of child agent, either a preset (a file or a
 * built-in name, loaded like `rein run --preset`) or an inline definition (system prompt, tools,
 * model, turn limit). Without any configured, one general-purpose agent is offered.
 */
import { z } from 'zod';

/**
 * Permission modes an agent may name. The parent's permission hooks decide every call of a child;
 * an agent's mode can only narrow that (`plan`: only read-only tools run), never widen it.
 */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const;

export const agentDefinition = z.strictObject({
  /** When to use this agent; shown to the model in the Task tool's description. */
  description: z.string().min(1).register(z.globalRegistry, { description: 'When to use this agent; shown to the model with the Task tool.' }),
  /** A preset file (relative to the parent's preset folder) or a built-in preset name. */
  preset: z.string().optional().register(z.globalRegistry, { description: 'The agent\'s preset: a file relative to the parent\'s preset folder, or a built-in preset name.' }),
  /** System prompt of an inline agent. */
  prompt: z.string().optional().register(z.globalRegistry, { description: 'System prompt of an inline agent.' }),
  /**
   * Tool names the agent gets (default: the parent's tools except Task). MCP tools (`mcp__server__tool`,
   * or `mcp__server__*` for all of a server's) are shared from the parent, using its connections.
   */
  tools: z.array(z.string()).optional().register(z.globalRegistry, { description: 'Tool names the agent gets (default: the parent\'s tools except Task); MCP tools (`mcp__server__tool`, `mcp__server__*`) use the parent\'s connections.' }),
  /** Tool names taken away from the agent's tools. */
  disallowedTools: z.array(z.string()).optional().register(z.globalRegistry, { description: 'Tool names taken away from the agent\'s tools.' }),
  /** Model: an alias (`sonnet`, `opus`, `haiku`), `inherit`, or a model name (default: the parent's). */
  model: z.string().optional().register(z.globalRegistry, { description: 'The agent\'s model: an alias (`sonnet`, `opus`, `haiku`), `inherit`, or a model name; default: the parent\'s.' }),
  /** Most model requests one task may make. */
  maxTurns: z.number().int().positive().optional().register(z.globalRegistry, { description: 'Most model requests one task of this agent may make (default 50).' }),
  /** Permission mode of the agent's calls, on top of the parent's decision (it can only narrow it). */
  permissionMode: z.enum(PERMISSION_MODES).optional().register(z.globalRegistry, { description: 'Permission mode of the agent\'s calls, on top of the parent\'s decision (it can only narrow it).' }),
  /** Always run in the background: the Task call returns at once, the report comes as a notification. */
  background: z.boolean().optional().register(z.globalRegistry, { description: 'Always run in the background: the Task call returns at once and the report comes as a notification.' }),
});

export type AgentDefinition = z.output<typeof agentDefinition>;

/** Turn limit of an agent that sets none. */
export const DEFAULT_AGENT_MAX_TURNS = 50;

/** The agent offered when none is configured. Its prompt is rein's own wording. */
export const GENERAL_PURPOSE: AgentDefinition = {
  description: 'General-purpose agent for researching questions, searching code and carrying out multi-step tasks on its own. Use it when a search may take several rounds, or to keep long explorations out of your own context.',
  prompt: [
    'You are an agent that carries out one task for another agent, which will read your final message and nothing else.',
    'Work through the task with the tools you have. Search broadly when you do not know where something is; read what you find; verify before you conclude.',
    'Do not create files unless the task needs them, and do not write documentation files unless asked.',
    'End with a complete, self-contained report: what you found or did, with file paths and line numbers where they help, and anything you could not finish. Give absolute paths.',
  ].join('\n'),
};

/** `model` aliases the Task tool accepts, → model names. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  haiku: 'claude-haiku-4-5',
  sonnet: 'claude-sonnet-4-5',
  opus: 'claude-opus-4-5',
});
