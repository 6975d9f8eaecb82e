/**
 * `tools/task`: registers the `Task` tool (see tool.ts and README.md). Options: `agents` (named
 * agent definitions; default: one `general-purpose` agent), `presets` (more agents, each a preset:
 * the preset's `subagents` key) and `defaultAgent`.
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { agentDefinition, GENERAL_PURPOSE } from './agents.js';
import { createTaskTool, presetDescription } from './tool.js';

export { createTaskTool } from './tool.js';
export { GENERAL_PURPOSE, MODEL_ALIASES, DEFAULT_AGENT_MAX_TURNS, type AgentDefinition } from './agents.js';

export const taskOptions = z.strictObject({
  /** Agent kinds by name (the Task tool's `subagent_type`). */
  agents: z.record(z.string().min(1), agentDefinition).default({ 'general-purpose': GENERAL_PURPOSE }),
  /**
   * More agent kinds, each a preset: name → preset file or built-in name. The preset's
   * `subagents` key is passed here; an entry of `agents` with the same name wins.
   */
  presets: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** The agent used when a call names none. */
  defaultAgent: z.string().default('general-purpose'),
}).refine((o) => o.agents[o.defaultAgent] !== undefined, { message: 'defaultAgent must name one of agents', path: ['defaultAgent'] });

export default definePlugin({
  name: 'tools/task',
  description: 'The Task tool: runs a child agent from a named definition or preset, through the parent\'s permission and tool hooks, and returns its report.',
  options: taskOptions,
  async apply(kernel, options) {
    const agents = { ...options.agents };
    for (const [name, preset] of Object.entries(options.presets)) {
      if (agents[name]) continue;
      agents[name] = { description: (await presetDescription(kernel, preset)) ?? `Runs the ${name} agent (preset ${preset}).`, preset };
    }
    kernel.tools.register(createTaskTool({ ...options, agents }), 'tools/task');
  },
});
