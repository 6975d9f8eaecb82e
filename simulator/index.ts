/** rein's offline Messages API: engine, HTTP server, scenarios, responders, cache accounting. */
export { createSimulator, betasOf, normalizeHeaders, type Simulator, type SimulatorOptions, type HandleOptions, type SimResponse, type SimMessage, type SimUsage, type CountTokensResponse, type SimulatorStats } from './simulator.js';
export { startSimServer, type SimServer, type SimServerOptions } from './server.js';
export { parseScenario, loadScenario, ScenarioError, ScenarioSchema, type Scenario } from './scenario.js';
export { createScriptResponder, createReplayResponder, createEchoResponder } from './responders/index.js';
export type { Responder, ResponderRequest, ResponderResult, Reply, Fault, Delivery, DraftBlock, UsageOverride } from './responders/types.js';
export { accountRequest, accountPrefix, LOOKBACK_BLOCKS, type CacheAccounting, type CacheUsage, type BreakpointReport } from './accounting.js';
export { PromptCache, type CacheEntry } from './cache.js';
export { buildPrefix, MAX_BREAKPOINTS, TTL_MS, type Breakpoint, type CacheTtl, type PromptPrefix } from './prefix.js';
export { applyContextManagement, CONTEXT_MANAGEMENT_BETA, CLEARED_TOOL_RESULT_TEXT, type AppliedEdit } from './context-edits.js';
export { minCacheableTokens, contextWindow, MIN_CACHEABLE_TOKENS } from './models.js';
export { SimulatorApiError, type ApiErrorBody } from './errors.js';
export { classifySource, defaultSideReply, SOURCE_HEADER } from './side.js';
export { buildStreamEvents, formatSse, type SseEvent } from './sse.js';
