/**
 * rein's library layer: what the loop works with but is not the loop. Token counting and estimates,
 * prices, the prompt-cache cost and gap models, what each model accepts, the Anthropic model
 * client, where a path really leads, session transcripts, and untrusted-text helpers. It imports the kernel's public
 * entry only (types, the state helper); the kernel never imports it: the kernel is given what it
 * needs of it through `createKernel({ services })` (see `libServices` below and kernel/services.ts).
 * Plugins import this file, never a module under lib/.
 */
import type { KernelServices } from '../kernel/index.js';
import { tokenCounter } from './tokens/accounting.js';
import { estimateMessageTokens } from './tokens/estimate.js';
import { costUsd } from './pricing.js';
import { fitRequestToModel, maxOutputTokens } from './model/models.js';
import { longContextBeta } from './model/long-context.js';
import { resolvePath } from './fs/resolve.js';
import { jsonlSessions } from './session/transcript.js';
import { persistLargeResult } from './tools/persisted-output.js';

// Token estimates and the context's token count.
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

// The Anthropic model client, and what each model accepts (output limit, thinking, effort, 1M window).
export { createAnthropicClient, type AnthropicClientOptions } from './model/anthropic.js';
export { isPromptTooLong, parseRetryAfter } from './model/errors.js';
export { modelFacts, maxOutputTokens, fitRequestToModel, type ModelFacts, type EffortLevel } from './model/models.js';
export { acceptsLongContext, longContextBeta, CONTEXT_1M_BETA, LONG_CONTEXT_MODELS, LONG_CONTEXT_WINDOW, STANDARD_CONTEXT_WINDOW } from './model/long-context.js';

// Cost at list prices.
export { costUsd, priceFor, type Cost } from './pricing.js';

// Files: where a path really leads, and opening exactly the file a decision judged.
export { resolvePath, joinPath, pathForms, MAX_SYMLINK_HOPS } from './fs/resolve.js';
export { openResolvedForRead, openResolvedForWrite, descriptorPath, PathChangedError, type WriteOpen } from './fs/pinned.js';

// Tool output too large for the context: saved beside the transcript, a `<persisted-output>` block
// in its place (the kernel's per-result cap, the result budget and Bash all write this block).
export { persistLargeResult, formatPersistedOutput, isPersistedOutput, PREVIEW_BYTES, type PersistedOutput } from './tools/persisted-output.js';

// Node helpers: rein's package folder, packages outside the command bundle, timeout signals.
export { reinRoot } from './node/root.js';
export { importExternal } from './node/import-external.js';
export { timeoutSignal } from './node/abort.js';
export { subprocessEnv } from './node/subprocess-env.js';
export { withExplicitBareRepositories } from './node/git-env.js';

// Sessions: one JSONL transcript per session, locked for its one writer (the kernel's session store).
export {
  Transcript, TranscriptWriteError, jsonlSessions, sessionsRoot, projectSlug, assertSessionId, SESSION_ID, pairToolCalls, type OpenOptions,
} from './session/transcript.js';

// Untrusted text: neutralising tool results, invisible characters, provenance tags, and escaping
// what goes to a terminal.
export { neutralizeText, neutralizeWithMap, neutraliseReservedTags, restoreReservedTags, RESERVED_TAGS, type NeutralizeCounts } from './text/neutralize.js';
export { sanitizeText, sanitizeDeep, MAX_SANITIZE_PASSES, type SanitizeResult } from './text/unicode.js';
export { escapeXml, escapeXmlAttr, wrapExternal } from './text/provenance.js';
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

/**
 * rein's implementation of the kernel's services: the shared token counter for the context's size,
 * rein's byte estimate for messages, list prices, the model table, the 1M-window beta, paths
 * resolved link by link, oversized tool results saved beside the transcript, and sessions as JSONL
 * transcripts. The `rein` entry's `createKernel` and `createAgent` pass it.
 */
export const libServices: Readonly<KernelServices> = Object.freeze<KernelServices>({
  messageTokens: (messages) => messages.reduce((n, m) => n + estimateMessageTokens(m), 0),
  contextTokens: (kernel, messages) => tokenCounter(kernel).count(messages).tokens,
  costUsd: (model, usage) => costUsd(model, usage).usd,
  fitRequest: fitRequestToModel,
  maxOutputTokens,
  longContextBeta,
  resolvePath: (path, cwd) => resolvePath(path, cwd),
  persistResult: persistLargeResult,
  sessions: jsonlSessions,
});
