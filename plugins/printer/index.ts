/**
 * `printer`: writes a run's events to stdout as `text` (the final answer; the usage report on
 * stderr), `json` (one result object) or `stream-json` (one JSON object per line, Claude Code's
 * headless shapes). Progress and notices go to stderr in text mode.
 */
import { z } from 'zod';
import { definePlugin, escapeControls, statusLine, terminalSafeJson } from '../../kernel/index.js';
import { resultJson, retryLine, streamJson, usageReport } from './format.js';

export const printerOptions = z.object({
  format: z.enum(['text', 'json', 'stream-json']).default('text'),
  /** stream-json only: also print each server-sent event (`stream_event`). */
  includePartialMessages: z.boolean().default(false),
  /** text only: print tool calls and `info` notices to stderr as they happen (warnings and errors always; routine `debug` notices never). */
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
    // Status lines carry text the model, a tool or a server wrote (paths in denial reasons, error
    // messages): their control characters are always escaped, so they cannot erase, forge or
    // hide lines. Each status line stays one line.
    const status = (...lines: string[]) => process.stderr.write(lines.map((l) => `${statusLine(l)}\n`).join(''));
    // The answer goes out as written to a pipe or file; on a terminal, control characters are escaped.
    const answer = (s: string) => (process.stdout.isTTY ? escapeControls(s, { keepLines: true }) : s);
    const json = (v: unknown) => terminalSafeJson(JSON.stringify(v));
    // rein's simulator: its usage and cost are figures of the simulation, and say so.
    const simulated = kernel.client.kind === 'simulator';
    kernel.hooks.event.tap('printer', (e) => {
      if (o.format === 'stream-json') {
        const line = streamJson(e, kernel.sessionId, { partial: o.includePartialMessages, simulated });
        if (line) out(json(line) + '\n');
        return;
      }
      if (o.format === 'json') {
        if (e.type === 'result') out(json(resultJson(e.result, { simulated })) + '\n');
        return;
      }
      // text
      if (e.type === 'result') {
        if (e.result.text) {
          const text = answer(e.result.text);
          out(text.endsWith('\n') ? text : text + '\n');
        }
        if (o.usageReport) status(...usageReport(e.result, { simulated }).split('\n'));
      } else if (e.type === 'notice' && (e.level === 'warn' || e.level === 'error' || (o.verbose && e.level === 'info'))) {
        status(`rein: ${e.level}: ${e.message}`);
      } else if (e.type === 'permission_denied') {
        status(`rein: denied ${e.denial.tool_name}: ${e.denial.reason}`);
      } else if (e.type === 'api_retry') {
        status(retryLine(e));
      } else if (e.type === 'model_fallback') {
        status(`rein: switching model ${e.from} → ${e.to} (${e.reason})`);
      } else if (o.verbose && e.type === 'tool_start') {
        status(`rein: ${e.name} ${JSON.stringify(e.input).slice(0, 200)}`);
      }
    });
  },
});
