/**
 * `compaction/dedup`: a tool result identical to an earlier one of this context (the same file read
 * twice, the same command run again with the same output) is replaced by a short reference to the
 * earlier call, so the context does not carry, and every later request does not read, the same
 * output twice.
 *
 * Only text results of `minBytes` to `maxBytes` (256 B to 50 KB, Claude Code's bounds) are
 * considered: a shorter one costs about what its reference costs, a longer one is persisted to a
 * file by the kernel anyway. Results are keyed by their SHA-256, so a reference never names a
 * different output. The earlier result is left exactly as it was sent, so the cached prefix is
 * untouched. After a compaction (the history rebuilt) earlier results may be gone: the table is
 * emptied. Errors are never replaced.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type ContentBlock, definePlugin, type Kernel, type ToolOutput } from '../../../kernel/index.js';

export const PLUGIN_NAME = 'compaction/dedup';

/** Claude Code's bounds for a result worth replacing, bytes (UTF-8). */
export const MIN_BYTES = 256;
export const MAX_BYTES = 50_000;

export const dedupOptions = z.object({
  /** Smallest result replaced, bytes (UTF-8). */
  minBytes: z.number().int().min(1).default(MIN_BYTES).register(z.globalRegistry, { description: 'Smallest tool result replaced by a reference, UTF-8 bytes (Claude Code\'s bound: 256; a smaller one costs about what its reference does).' }),
  /** Largest result replaced, bytes (UTF-8). */
  maxBytes: z.number().int().min(1).default(MAX_BYTES).register(z.globalRegistry, { description: 'Largest tool result replaced by a reference, UTF-8 bytes (Claude Code\'s bound: 50,000; the kernel persists a larger one to a file).' }),
}).strict().refine((o) => o.maxBytes >= o.minBytes, { message: 'maxBytes must be at least minBytes' });

/** One replacement, as recorded in the transcript. */
export interface DedupRecord {
  toolUseId: string;
  toolName: string;
  /** The earlier call whose output this one repeated. */
  sameAs: string;
  originalBytes: number;
  savedBytes: number;
}

/** Counters for reports and the benchmark. */
export interface DedupStats { hits: number; savedBytes: number }

const stats = new WeakMap<Kernel, DedupStats>();

/** The plugin's counters for a kernel. */
export function dedupStats(kernel: Kernel): DedupStats | undefined {
  return stats.get(kernel);
}

/** The text of a result that is text only (a string, or text blocks), else undefined. */
function textOf(output: ToolOutput): string | undefined {
  const content = typeof output === 'object' && !Array.isArray(output) ? output.content : output;
  if (typeof content === 'string') return content;
  if (!content.length || !content.every((b: ContentBlock) => b.type === 'text')) return undefined;
  return content.map((b) => (b as { text: string }).text).join('\n');
}

/** The reference that replaces a repeated result. */
export function referenceText(toolName: string, sameAs: string): string {
  return `[Output identical to the result of your earlier ${toolName} call (tool_use_id ${sameAs}); refer to that output.]`;
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'replaces a tool result repeated verbatim (256 B–50 KB) with a short reference to the earlier call',
  options: dedupOptions,
  apply(kernel, options) {
    const seen = new Map<string, { toolUseId: string; toolName: string }>();
    const counters: DedupStats = { hits: 0, savedBytes: 0 };
    stats.set(kernel, counters);
    kernel.hooks.postCompact.tap(PLUGIN_NAME, () => seen.clear());
    kernel.hooks.postToolUse.tap(PLUGIN_NAME, (post) => {
      if (post.isError) return post;
      const text = textOf(post.output);
      if (text === undefined) return post;
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes < options.minBytes || bytes > options.maxBytes) return post;
      const key = createHash('sha256').update(text).digest('base64');
      const first = seen.get(key);
      if (!first) {
        seen.set(key, { toolUseId: post.toolUseId, toolName: post.toolName });
        return post;
      }
      const reference = referenceText(first.toolName, first.toolUseId);
      const savedBytes = bytes - Buffer.byteLength(reference, 'utf8');
      counters.hits++;
      counters.savedBytes += savedBytes;
      kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: { toolUseId: post.toolUseId, toolName: post.toolName, sameAs: first.toolUseId, originalBytes: bytes, savedBytes } satisfies DedupRecord });
      return { ...post, output: reference };
    });
  },
});
