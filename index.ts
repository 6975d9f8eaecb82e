/**
 * rein's public API (the package's `rein` entry):
 * - everything the kernel's public entry (kernel/index.ts) exports: built-in plugins use exactly
 *   that entry, so a plugin of your own has the same interface as theirs;
 * - `createAgent`, which turns a preset into a running kernel (the assembly layer, agent/);
 * - the helpers rein's compaction strategies share (plugins/compaction/shared/), so a strategy of
 *   your own can do what `compaction/snip` and `compaction/auto` do.
 * The preset loader, the simulator and the test harness are the `rein/preset`, `rein/simulator` and
 * `rein/testing` entries.
 *
 * @example
 * import { createAgent } from 'rein';
 * const agent = await createAgent({ preset: 'minimal' });
 * for await (const event of agent.run('What is in this directory?')) console.log(event.type);
 */
export * from './kernel/index.js';
export * from './lib/index.js';
// rein's createKernel: the kernel's, with lib/'s services (it takes the place of the kernel entry's).
export { createKernel } from './agent/kernel.js';
export { createAgent, DEFAULT_PRESET, type Agent, type AgentOptions, type PresetObject } from './agent/agent.js';
export type { Preset, PresetInput } from './agent/preset/index.js';
export type { BuiltinPluginOptions } from './agent/plugins.js';
export type { CanUseTool, PermissionResult } from './plugins/permissions/shared/callback.js';

// Compaction helpers: history rounds, pinned messages and the latest prompt, the thresholds, and
// the "expected cache drop" signal for cache/break-detector.
export { isPinned, latestUserPromptIndex, groupByRound, toolUses, toolResultText, filePathOf, hasToolResults, renderTranscript, type RenderOptions } from './plugins/compaction/shared/history.js';
export {
  computeThresholds, DEFAULT_CONTEXT_WINDOW, SUMMARY_RESERVE_TOKENS, AUTOCOMPACT_BUFFER_TOKENS, WARNING_OFFSET_TOKENS, BLOCKING_OFFSET_TOKENS,
  type Thresholds, type ThresholdInput, type ThresholdSetting,
} from './plugins/compaction/shared/threshold.js';
export { expectCacheDrop, type ExpectedCacheDrop } from './plugins/compaction/shared/cache-signal.js';
