/**
 * `printer`: writes a run's events to stdout as `text` (the final answer; the usage report on
 * stderr), `json` (one result object) or `stream-json` (one JSON object per line, Claude Code's
 * headless shapes). Progress and notices go to stderr in text mode.
 */
import { z } from 'zod';
import { definePlugin } from '../../kernel/index.js';
import { resultJson, retryLine, streamJson, usageReport } from './format.js';

export const printerOptions = z.object({
  format: z.enum(['text', 'json', 'stream-json']).default('text'),
  /** stream-json only: also print each server-sent event (`stream_event`). */
  includePartialMessages: z.boolean().default(false),
  /** text only: print tool calls and notices to stderr as they happen. */
  verbose: z.boolean().default(false),
  /** text only: print the usage and cache report to stderr at the end. */
  usageReport: z.boolean().default(true),
}).strict();

export default definePlugin({
  name: 'printer',
  description: 'Prints the run as text, one JSON result, or stream-json lines.',
  options: printerOptions,
  apply(kernel, o) {
    const out = (s: string) => process.stdout.write(s);
    const err = (s: string) => process.stderr.write(s);
    kernel.hooks.event.tap('printer', (e) => {
      if (o.format === 'stream-json') {
        const line = streamJson(e, kernel.sessionId, { partial: o.includePartialMessages });
        if (line) out(JSON.stringify(line) + '\n');
        return;
      }
      if (o.format === 'json') {
        if (e.type === 'result') out(JSON.stringify(resultJson(e.result)) + '\n');
        return;
      }
      // text
      if (e.type === 'result') {
        if (e.result.text) out(e.result.text.endsWith('\n') ? e.result.text : e.result.text + '\n');
        if (o.usageReport) err(usageReport(e.result) + '\n');
      } else if (e.type === 'notice' && (o.verbose || e.level !== 'info')) {
        err(`rein: ${e.level}: ${e.message}\n`);
      } else if (e.type === 'permission_denied') {
        err(`rein: denied ${e.denial.tool_name}: ${e.denial.reason}\n`);
      } else if (e.type === 'api_retry') {
        err(`${retryLine(e)}\n`);
      } else if (e.type === 'model_fallback') {
        err(`rein: switching model ${e.from} → ${e.to} (${e.reason})\n`);
      } else if (o.verbose && e.type === 'tool_start') {
        err(`rein: ${e.name} ${JSON.stringify(e.input).slice(0, 200)}\n`);
      }
    });
  },
});
