/** A tool's output as its tool_result: empty → a placeholder, over the cap → `services.persistResult`. */
import type { RunContext } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import { DEFAULT_MAX_RESULT_SIZE_CHARS, type Tool, type ToolOutput } from '../tool.js';
import type { ContentBlock, ToolResultBlock } from '../types.js';

/** Ceiling on one result, characters. */
export const MAX_RESULT_CHARS = DEFAULT_MAX_RESULT_SIZE_CHARS;

type ResultContent = Extract<ToolResultBlock['content'], unknown[]>;

/** The tool_result block for `output`. */
export async function finalizeResult(
  kernel: Kernel, tool: Tool, toolUseId: string, output: ToolOutput, isError: boolean, _ctx: RunContext,
): Promise<ToolResultBlock> {
  const raw = typeof output === 'object' && !Array.isArray(output) ? output.content : output;
  let content: ResultContent = typeof raw === 'string' ? [{ type: 'text', text: raw }] : (raw as ResultContent);
  if (content.length === 0 || content.every((b) => b.type === 'text' && b.text.trim() === '')) {
    content = [{ type: 'text', text: `(${tool.name} completed with no output)` }];
  }
  const cap = Number.isFinite(tool.maxResultSizeChars) ? Math.min(tool.maxResultSizeChars, MAX_RESULT_CHARS) : Infinity;
  const textLen = content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
  if (Number.isFinite(cap) && textLen > cap && content.every((b) => b.type === 'text')) {
    const full = content.map((b) => (b as { text: string }).text).join('\n');
    content = [{ type: 'text', text: kernel.services.persistResult(kernel.sessionDir(), toolUseId, full) }];
  }
  const block: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId, content: content as ContentBlock[] as ResultContent };
  if (isError) block.is_error = true;
  return block;
}
