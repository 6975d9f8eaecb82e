/**
 * The kernel's public entry: everything a plugin (built-in or your own) uses to tap hooks, register
 * tools and call the model. Plugins import the kernel through this file only; the package's `rein`
 * entry (../index.ts) re-exports all of it beside `createAgent`.
 */
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
