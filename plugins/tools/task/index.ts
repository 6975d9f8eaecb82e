/**
 * `tools/task`: registers the `Task` tool (see tool.ts and README.md). Options: `agents` (named
 * agent definitions; default: one `general-purpose` agent) and `defaultAgent`.
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { agentDefinition, GENERAL_PURPOSE } from './agents.js';
import { createTaskTool } from './tool.js';

export { createTaskTool } from './tool.js';
export { GENERAL_PURPOSE, MODEL_ALIASES, DEFAULT_AGENT_MAX_TURNS, type AgentDefinition } from './agents.js';

export const taskOptions = z.strictObject({
  /** Agent kinds by name (the Task tool's `subagent_type`). */
  agents: z.record(z.string().min(1), agentDefinition).default({ 'general-purpose': GENERAL_PURPOSE }),
  /** The agent used when a call names none. */
  defaultAgent: z.string().default('general-purpose'),
}).refine((o) => o.agents[o.defaultAgent] !== undefined, { message: 'defaultAgent must name one of agents', path: ['defaultAgent'] });

export default definePlugin({
  name: 'tools/task',
  description: 'The Task tool: runs a child agent from a named definition or preset, through the parent\'s permission and tool hooks, and returns its report.',
  options: taskOptions,
  apply(kernel, options) {
    kernel.tools.register(createTaskTool(options), 'tools/task');
  },
});
