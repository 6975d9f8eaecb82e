/**
 * rein's public API: build agents from presets, write plugins and tools against the hook table.
 *
 * @example
 * import { createAgent } from 'rein';
 * const agent = await createAgent({ preset: 'minimal' });
 * for await (const event of agent.run('What is in this directory?')) console.log(event.type);
 */
export { createAgent, type Agent, type AgentOptions } from './agent.js';
export { createKernel, Kernel, DEFAULT_MODEL, DEFAULT_MAX_TOKENS, type KernelOptions, type KernelPreset, type LoadedPlugin } from './kernel.js';
export { definePlugin, PluginError, type Plugin } from './plugin.js';
export { defineTool, ToolError, type Tool, type ToolContext, type ToolOutput } from './tool.js';
export { createHooks, createHooksGetter, CONTEXT_STAGE, REQUEST_STAGE, PERMISSION_STAGE, HOOK_NAMES, type KernelHooks, type HookName } from './hooks.js';
export type * from './hook-payloads.js';
export type * from './types.js';
export { TERMINAL_REASONS, emptyUsage, addUsage } from './types.js';
export { runCompaction } from './loop/compact.js';
export { estimateMessageTokens, estimateTextTokens } from './tokens/estimate.js';
export type { ModelClient, ModelRequest } from './model/client.js';
export { createAnthropicClient } from './model/anthropic.js';
export { Transcript } from './session/transcript.js';
export { costUsd, type Cost } from './pricing.js';
export { reinRoot } from './preset/paths.js';
export type { CanUseTool, PermissionResult } from '../plugins/permissions/callback.js';
