/**
 * rein's public API (the package's `rein` entry): build agents from presets with `createAgent`, and
 * write plugins and tools against the hook table with everything the kernel's public entry
 * (kernel/index.ts) exports. Built-in plugins use exactly that kernel entry, so a plugin of your own
 * has the same interface as theirs.
 *
 * @example
 * import { createAgent } from 'rein';
 * const agent = await createAgent({ preset: 'minimal' });
 * for await (const event of agent.run('What is in this directory?')) console.log(event.type);
 */
export * from './kernel/index.js';
export { createAgent, DEFAULT_PRESET, type Agent, type AgentOptions } from './agent/agent.js';
export type { CanUseTool, PermissionResult } from './plugins/permissions/shared/callback.js';
