/**
 * The kernel's public entry: everything a plugin (built-in or your own) uses to tap hooks, register
 * tools and call the model. Built-in plugins import the kernel through this file only, so a plugin
 * of your own has the same interface as theirs; the package's `rein` entry (../index.ts) re-exports
 * all of it beside `createAgent`. docs/plugins.md describes each group.
 */

// The kernel and its plugin host.
export {
  createKernel, Kernel, DEFAULT_MODEL, DEFAULT_MAX_TOKENS,
  type KernelOptions, type KernelPreset, type LoadedPlugin, type SubagentFactory, type SubagentHandle, type SubagentOptions,
} from './kernel.js';
// What the loop uses from outside the kernel (createKernel's `services`; lib/ has rein's).
export { DEFAULT_SERVICES, type KernelServices } from './services.js';
export { definePlugin, PluginError, type Plugin, type PluginCheckContext, type PluginProblem } from './plugin.js';

// The hook table, stages, and state and hooks of a plugin's own.
export { createHooks, createHooksGetter, CONTEXT_STAGE, REQUEST_STAGE, PERMISSION_STAGE, PERMISSION_REQUEST_STAGE, HOOK_NAMES, HookTapError, type KernelHooks, type HookName } from './hooks.js';
export { createKernelState } from './state.js';
export { Incremental, sharedPrefixLength, type IncrementalSpec } from './incremental.js';
export { RequestLists, withReplacedMessages, changedPlaces, forEachChangedPlace } from './request-messages.js';
export type * from './hook-payloads.js';
export type * from './types.js';
export { TERMINAL_REASONS, emptyUsage, addUsage } from './types.js';

// Tools: the contract, the pipeline a batch of calls goes through, and the permission decision
// (the same answer the loop would give; a parent agent answers for its child with it).
export { defineTool, ToolError, DEFAULT_MAX_RESULT_SIZE_CHARS, type Tool, type ToolContext, type ToolOutput, type ToolSpec, type JsonSchema, type ResolvedPath } from './tool.js';
export { inputSchemaOf } from './tool-registry.js';
export { runToolCalls, runToolCall, abortedOutcome, decidePermission, abortedText, ABORTED_RESULT_TEXT, type ToolBatchOutcome } from './loop/tools.js';

// Context: compaction through the hooks, and the system prompt as the loop builds it.
export { runCompaction } from './loop/compact.js';
export { presetSections, systemBlocks } from './loop/request.js';

// The model client seam, its error type, and the provider contract.
export type { ModelProvider, ProviderContext, ProviderChoice } from './model/provider.js';
export { ModelRequestError, type ModelClient, type ModelRequest, type SendOptions, type SendResult } from './model/client.js';

// Sessions: the record the kernel keeps of each (the store is a service).
export { SessionError, NO_SESSIONS, type SessionLog, type SessionStore, type TranscriptEntry, type DamagedLine } from './session.js';
