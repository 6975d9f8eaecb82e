/**
 * `printer`: writes a run's events to stdout as `text` (the final answer; the usage report on
 * stderr), `json` (one result object) or `stream-json` (one JSON object per line, Claude Code's
 * headless shapes, which are the Claude Agent SDK's message types). Progress and notices go to
 * stderr in text mode; warnings and errors in json mode too (stream-json has them as lines).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { createKernelState, definePlugin, DEFAULT_MAX_TOKENS, type Kernel } from '../../kernel/index.js';
import { escapeControls, reinRoot, statusLine, terminalSafeJson } from '../../lib/index.js';
import { retryLine, StreamFormatter, usageReport, type SessionInfo } from './format.js';

/** The permission context the `permissions` family keeps in kernel state; the printer reads its mode. */
const permissionState = createKernelState('permissions', () => ({ context: undefined as { mode: string } | undefined }));

export const printerOptions = z.object({
  format: z.enum(['text', 'json', 'stream-json']).default('text').register(z.globalRegistry, { description: 'Output (`--output-format`): `text` (the answer on stdout, status lines on stderr), `json` (one result object) or `stream-json` (one message per line).' }),
  /** stream-json only: also print each server-sent event (`stream_event`). */
  includePartialMessages: z.boolean().default(false).register(z.globalRegistry, { description: 'stream-json only: also print each server-sent event as a `stream_event` line (`--include-partial-messages`).' }),
  /** stream-json only: print the typed prompt back as a `user` line (`--replay-user-messages`). */
  replayUserMessages: z.boolean().default(false).register(z.globalRegistry, { description: 'stream-json only: print the typed prompt back as a `user` line (`--replay-user-messages`).' }),
  /** stream-json only: print hook_started / hook_response lines (`--include-hook-events`). */
  includeHookEvents: z.boolean().default(false).register(z.globalRegistry, { description: 'stream-json only: print `hook_started` and `hook_response` lines around each shell hook (`--include-hook-events`).' }),
  /** text only: print tool calls and `info` notices to stderr as they happen (warnings and errors always; routine `debug` notices never). */
  verbose: z.boolean().default(false).register(z.globalRegistry, { description: 'text only: print tool calls and `info` notices to stderr as they happen (`--verbose`); warnings and errors are always printed.' }),
  /** text only: print the usage and cache report to stderr at the end. */
  usageReport: z.boolean().default(true).register(z.globalRegistry, { description: 'text only: print the usage and cache report to stderr at the end.' }),
}).strict().superRefine((o, ctx) => {
  // As `claude -p` refuses them: an option that only adds stream-json lines would otherwise be
  // dropped without a word in the text and json formats.
  if (o.format === 'stream-json') return;
  for (const [key, flag] of [['includePartialMessages', '--include-partial-messages'], ['replayUserMessages', '--replay-user-messages'], ['includeHookEvents', '--include-hook-events']] as const) {
    if (o[key]) ctx.addIssue({ code: 'custom', path: [key], message: `${key} (${flag}) needs format stream-json (--output-format stream-json); with ${o.format} it would print nothing` });
  }
});

let versionCache: string | undefined;
/** rein's version, from its package.json. */
function reinVersion(): string {
  try {
    versionCache ??= (JSON.parse(readFileSync(join(reinRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    versionCache = '0.0.0';
  }
  return versionCache;
}

/**
 * Every configured MCP server with its status (`connected` or `failed`), as `tools/mcp` records
 * them in kernel state (read by key: plugins do not import each other); without that plugin, the
 * servers that registered a tool (`mcp__<server>__<tool>`), as connected.
 */
const mcpState = createKernelState('tools/mcp', () => ({ servers: [] as { name: string; status: string }[] }));
function mcpServerStatuses(kernel: Kernel): { name: string; status: string }[] {
  const known = mcpState(kernel).servers;
  if (known.length) return known.map((s) => ({ name: s.name, status: s.status }));
  return [...new Set(kernel.tools.names().filter((n) => n.startsWith('mcp__')).map((n) => n.split('__')[1]!))].map((name) => ({ name, status: 'connected' }));
}

/** What the init line and results say about a kernel's session. */
function sessionInfo(kernel: Kernel): SessionInfo {
  return {
    permissionMode: () => permissionState(kernel).context?.mode ?? (kernel.preset.permissions as { mode?: string } | undefined)?.mode ?? 'default',
    mcpServers: () => mcpServerStatuses(kernel),
    agents: () => Object.keys((kernel.preset.subagents as Record<string, unknown> | undefined) ?? {}),
    limits: () => ({ contextWindow: kernel.preset.model?.contextWindow ?? 200_000, maxOutputTokens: kernel.preset.model?.maxTokens ?? DEFAULT_MAX_TOKENS }),
    apiKeySource: process.env.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY' : 'none',
    version: reinVersion(),
  };
}

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
    const formatter = new StreamFormatter(() => kernel.sessionId, { ...sessionInfo(kernel), simulated });
    kernel.hooks.response.tap('printer', (r) => {
      if (r.source === 'main_loop') formatter.response(r.message.model ?? r.request.model, r.usage, r.durationMs);
    });
    kernel.hooks.event.tap('printer', (e) => {
      formatter.observe(e);
      // Whatever the format, a run that failed says why on stderr (the exit code table's promise:
      // `rein: model_error: <cause>`); json and stream-json also carry it in the result's `errors`.
      if (o.format !== 'text' && e.type === 'result' && e.result.isError && e.result.terminalDetail) status(`rein: ${e.result.terminalReason}: ${e.result.terminalDetail}`);
      if (o.format === 'stream-json') {
        const line = formatter.line(e, { partial: o.includePartialMessages, replayUserMessages: o.replayUserMessages, hookEvents: o.includeHookEvents });
        if (line) out(json(line) + '\n');
        return;
      }
      if (o.format === 'json') {
        if (e.type === 'assistant_message') formatter.line(e); // its stop_reason goes in the result
        // stdout holds the result object alone; warnings (a damaged transcript line skipped, a
        // newer rein's transcript) have no field there, so they go to stderr as in text mode.
        if (e.type === 'notice' && (e.level === 'warn' || e.level === 'error')) status(`rein: ${e.level}: ${e.message}`);
        if (e.type === 'result') out(json(formatter.result(e.result)) + '\n');
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
