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
export { definePlugin, PluginError, type Plugin, type PluginCheckContext, type PluginProblem } from './plugin.js';

// The hook table, stages, and state and hooks of a plugin's own.
export { createHooks, createHooksGetter, CONTEXT_STAGE, REQUEST_STAGE, PERMISSION_STAGE, HOOK_NAMES, HookTapError, type KernelHooks, type HookName } from './hooks.js';
export { createKernelState } from './state.js';
export { Incremental, sharedPrefixLength, type IncrementalSpec } from './incremental.js';
export type * from './hook-payloads.js';
export type * from './types.js';
export { TERMINAL_REASONS, emptyUsage, addUsage } from './types.js';

// Tools: the contract, the pipeline a batch of calls goes through, and the permission decision
// (the same answer the loop would give; a parent agent answers for its child with it).
export { defineTool, ToolError, DEFAULT_MAX_RESULT_SIZE_CHARS, type Tool, type ToolContext, type ToolOutput, type ToolSpec, type JsonSchema } from './tool.js';
export { inputSchemaOf } from './tool-registry.js';
export { runToolCalls, partitionToolCalls, decidePermission, abortedText, MAX_TOOL_CONCURRENCY, type ToolBatchOutcome, type ToolCallOutcome } from './loop/tools.js';
export { persistLargeResult, formatPersistedOutput, isPersistedOutput, type PersistedOutput } from './loop/tool-results.js';

// Context: compaction through the hooks, token estimates and the context's token count.
export { runCompaction } from './loop/compact.js';
export {
  estimateTextTokens, estimateJsonTokens, estimateBlockTokens, estimateContentTokens, estimateMessageTokens,
  estimateToolTokens, estimateSystemTokens, estimateRequestTokens, blockPositions,
  TEXT_BYTES_PER_TOKEN, JSON_BYTES_PER_TOKEN, MEDIA_BLOCK_TOKENS, type EstimatableRequest, type BlockPosition,
} from './tokens/estimate.js';
export { tokenCounter, defaultEstimator, usageInput, usageTotal, type TokenCounter, type ContextCount, type Estimator } from './tokens/accounting.js';
// The content counters the simulator prices with: rein's byte estimate and the counter calibrated on
// provider-reported usage (coefficients.ts).
export {
  BYTE_COUNTER, CALIBRATED_COUNTER, TOKEN_COUNTERS, calibratedCounter, countRequestTokens,
  type TokenCounter as ContentTokenCounter, type CounterCoefficients,
} from './tokens/counter.js';

// The model client seam, its error type, what each model accepts (output limit, thinking, effort), and timeouts.
export { createAnthropicClient, type AnthropicClientOptions } from './model/anthropic.js';
export type { ModelProvider, ProviderContext, ProviderChoice } from './model/provider.js';
export { ModelRequestError, isPromptTooLong, parseRetryAfter, type ModelClient, type ModelRequest, type SendOptions, type SendResult } from './model/client.js';
export { modelFacts, maxOutputTokens, type ModelFacts, type EffortLevel } from './model/models.js';
export { timeoutSignal } from './abort.js';
export { acceptsLongContext, CONTEXT_1M_BETA, LONG_CONTEXT_MODELS, LONG_CONTEXT_WINDOW, STANDARD_CONTEXT_WINDOW } from './model/long-context.js';

// Sessions, cost, and loading packages outside rein's command bundle.
export { Transcript, SessionError, TranscriptWriteError, type DamagedLine } from './session/transcript.js';
export { costUsd, priceFor, type Cost } from './pricing.js';
export { reinRoot } from './root.js';
export { importExternal } from './import-external.js';

// Files: where a path really leads, and opening exactly the file a decision judged.
export { resolvePath, joinPath, pathForms, MAX_SYMLINK_HOPS, type ResolvedPath } from './fs/resolve.js';
export { openResolvedForRead, openResolvedForWrite, descriptorPath, PathChangedError, type WriteOpen } from './fs/pinned.js';

// Untrusted text: neutralising tool results, and escaping what goes to a terminal.
export { neutralizeText, neutralizeWithMap, neutraliseReservedTags, restoreReservedTags, RESERVED_TAGS, type NeutralizeCounts } from './text/neutralize.js';
export { escapeControls, statusLine, terminalSafeJson } from './text/terminal.js';

// The prompt-cache cost model: what a change to the request costs over the expected rest of the
// session (prices, the cache state, a gap model of the time to the next request).
export { GapModel, waitKindOf, survival, normalCdf, MIN_KIND_OBSERVATIONS, type WaitKind, type GapParams, type GapParamSet } from './cache/gap-model.js';
export { GAP_PARAMS } from './cache/gap-params.js';
export {
  CacheCostModel, cacheCostModel, lastCacheUse, cacheClock, setCacheClock, tokenPrices, writePrice, SYSTEM_CLOCK, TTL_SECONDS,
  MIN_REMAINING_REQUESTS, KEEPALIVE_OUTPUT_TOKENS,
  type CacheTtl, type CacheClock, type CacheSnapshot, type SessionCostModel, type TokenPrices, type Estimate,
} from './cache/cost-model.js';
