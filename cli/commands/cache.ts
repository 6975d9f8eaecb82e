/**
 * `rein cache explain TRANSCRIPT`: what each request of a recorded session cost and why, read from
 * its transcript: the usage of every response, and, when `cache/break-detector` ran, its verdict on
 * each main-loop request (a break and its cause, an announced drop, a first observation). Claude
 * Code session files are read too (claude-code-usage.ts): their usage, with breaks found from the
 * cache reads and TTL expiries from the timestamps.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import type { DetectorRecord } from '../../plugins/cache/break-detector/index.js';
import { isBreak, TTL_1H_MS, TTL_5M_MS } from '../../plugins/cache/break-detector/detect.js';
import { costUsd } from '../../lib/pricing.js';
import { Transcript } from '../../lib/session/transcript.js';
import type { Usage } from '../../kernel/types.js';
import { isClaudeCodeRecording, readClaudeCodeRecording } from './claude-code-usage.js';
import { isInputError, printInputError } from './errors.js';
import { EXIT } from '../main.js';
import { InputError } from '../../lib/errors.js';

/** One request of the session, explained. */
export interface ExplainedRequest {
  /** 1-based position among all responses of the transcript. */
  n: number;
  turn: number;
  source: string;
  model: string;
  /** Tokens by class. */
  input: number;
  write5m: number;
  write1h: number;
  read: number;
  output: number;
  costUsd: number;
  /** One line: why the request cost what it did. */
  why: string;
  /** Set for a cache break: its cause (`client`, `ttl`, `server`). */
  breakCause?: string;
}

export interface Explanation {
  sessionId: string;
  /** rein's simulator answered: the usage and cost are the simulation's, nothing was billed. */
  simulated?: boolean;
  requests: ExplainedRequest[];
  totals: {
    requests: number;
    input: number;
    write5m: number;
    write1h: number;
    read: number;
    output: number;
    costUsd: number;
    /** Cache reads over all input tokens of main-loop requests after the first. */
    readShare: number;
    breaks: Record<string, number>;
    compactions: number;
  };
}

function split(u: Usage): { write5m: number; write1h: number } {
  const w = u.cache_creation_input_tokens ?? 0;
  if (!u.cache_creation) return { write5m: w, write1h: 0 };
  return { write5m: u.cache_creation.ephemeral_5m_input_tokens ?? 0, write1h: u.cache_creation.ephemeral_1h_input_tokens ?? 0 };
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

function describeOk(read: number, write: number, input: number): string {
  if (read === 0 && write === 0) return `nothing cached: ${fmt(input)} tokens at the full input price (no marker, or the prefix is below the model's minimum)`;
  const parts: string[] = [];
  if (read) parts.push(`read ${fmt(read)} cached tokens`);
  if (write) parts.push(`wrote ${fmt(write)} new tokens to the cache`);
  if (input) parts.push(`${fmt(input)} uncached after the last marker`);
  return parts.join('; ');
}

/** One response as the explanation needs it, from a rein transcript or a Claude Code session. */
interface ResponseRow {
  turn: number;
  source: string;
  model: string;
  usage: Usage;
  /** ms since the epoch, when recorded. */
  at?: number;
  /** A compaction rebuilt the history since the previous response. */
  afterCompaction: boolean;
  /** The break detector's verdict on a main-loop request, when it ran. */
  record?: DetectorRecord;
}

const TTL_MS = { '5m': TTL_5M_MS, '1h': TTL_1H_MS };

/**
 * Explains responses in order. `unknownCause` says why a break's cause cannot be named when no
 * detector verdict was recorded; a gap longer than the TTL is named as a TTL expiry still.
 */
function explainRows(sessionId: string, rows: readonly ResponseRow[], o: { unknownCause: string; simulated: boolean; compactions: number }): Explanation {
  const requests: ExplainedRequest[] = [];
  /** What the previous main-loop request left in the cache (its read plus its write, tokens), and when it was answered. */
  let prevMain: { cached: number; at?: number } | undefined;
  for (const e of rows) {
    const u = e.usage;
    const { write5m, write1h } = split(u);
    const read = u.cache_read_input_tokens ?? 0;
    const input = u.input_tokens ?? 0;
    const main = e.source === 'main_loop' || e.source === 'subagent';
    const row: ExplainedRequest = {
      n: requests.length + 1, turn: e.turn, source: e.source, model: e.model,
      input, write5m, write1h, read, output: u.output_tokens ?? 0, costUsd: costUsd(e.model, u).usd, why: '',
    };
    const ok = describeOk(read, write5m + write1h, input);
    if (!main) {
      row.why = `side request (${e.source}): ${ok}`;
    } else {
      const rec = e.record;
      if (rec) {
        const v = rec.verdict;
        if (v.kind === 'first') row.why = `first request observed: ${ok}`;
        else if (v.kind === 'ok') row.why = ok;
        else if (v.kind === 'expected') row.why = `expected drop (${v.reason}): ${ok}`;
        else {
          // Records written before the rule compared against read + write carry `prevRead` instead.
          const prevCached = v.prevCached ?? (v as { prevRead?: number }).prevRead ?? 0;
          row.why = `CACHE BREAK, cause ${v.cause}: ${v.reason}; read ${fmt(v.read)} of the ${fmt(prevCached)} tokens the previous request cached (−${fmt(v.drop)}); ${ok}`;
          row.breakCause = v.cause;
        }
      } else if (prevMain !== undefined && !e.afterCompaction && isBreak(prevMain.cached, read)) {
        const gap = prevMain.at !== undefined && e.at !== undefined ? e.at - prevMain.at : undefined;
        const ttl = write1h > 0 ? '1h' : '5m';
        const drop = `read ${fmt(read)} of the ${fmt(prevMain.cached)} tokens the previous request cached`;
        if (gap !== undefined && gap > TTL_MS[ttl]) {
          row.why = `CACHE BREAK, cause ttl: ${(gap / 60_000).toFixed(1)} min since the previous response, longer than the ${ttl === '1h' ? '1-hour' : '5-minute'} TTL; ${drop}; ${ok}`;
          row.breakCause = 'ttl';
        } else {
          row.why = `CACHE BREAK, cause unknown (${o.unknownCause}): ${drop}; ${ok}`;
          row.breakCause = 'unknown';
        }
      } else {
        row.why = e.afterCompaction ? `after a compaction: ${ok}` : ok;
      }
      prevMain = { cached: read + write5m + write1h, ...(e.at !== undefined ? { at: e.at } : {}) };
    }
    requests.push(row);
  }
  const sum = (f: (x: ExplainedRequest) => number) => requests.reduce((n, x) => n + f(x), 0);
  const mains = requests.filter((x) => x.source === 'main_loop' || x.source === 'subagent').slice(1);
  const mainInput = mains.reduce((n, x) => n + x.input + x.write5m + x.write1h + x.read, 0);
  const breaks: Record<string, number> = {};
  for (const x of requests) if (x.breakCause) breaks[x.breakCause] = (breaks[x.breakCause] ?? 0) + 1;
  return {
    sessionId,
    ...(o.simulated ? { simulated: true } : {}),
    requests,
    totals: {
      requests: requests.length,
      input: sum((x) => x.input),
      write5m: sum((x) => x.write5m),
      write1h: sum((x) => x.write1h),
      read: sum((x) => x.read),
      output: sum((x) => x.output),
      costUsd: sum((x) => x.costUsd),
      readShare: mainInput ? mains.reduce((n, x) => n + x.read, 0) / mainInput : 0,
      breaks,
      compactions: o.compactions,
    },
  };
}

/** Explains every response of a transcript. Pure: reads only the transcript's entries. */
export function explainTranscript(t: Transcript): Explanation {
  const records = t.pluginData<DetectorRecord>('cache/break-detector');
  let r = 0;
  let compactions = 0;
  let pendingCompaction = false;
  let simulated = false;
  const rows: ResponseRow[] = [];
  for (const e of t.entries) {
    if (e.type === 'history' && e.reason.startsWith('compact:')) { compactions++; pendingCompaction = true; }
    if (e.type !== 'response') continue;
    if (e.simulated) simulated = true;
    const main = e.source === 'main_loop' || e.source === 'subagent';
    const record = main ? records[r++] : undefined;
    rows.push({ turn: e.turn, source: e.source, model: e.model, usage: e.usage, at: e.at, afterCompaction: main && pendingCompaction, ...(record ? { record } : {}) });
    if (main) pendingCompaction = false;
  }
  return explainRows(t.sessionId, rows, { unknownCause: 'no fingerprints recorded: load cache/break-detector to name it', simulated, compactions });
}

/** Explains every billed response of a Claude Code session file (or `claude -p` stream-json output). */
export function explainClaudeCodeSession(file: string): Explanation {
  const rec = readClaudeCodeRecording(file);
  return explainRows(rec.sessionId || basename(file, '.jsonl'), rec.responses, { unknownCause: 'a Claude Code session file does not record what each request sent, so the changed part cannot be named', simulated: false, compactions: rec.compactions });
}

/** The explanation as a text table, one request a line, totals last. */
export function renderExplanation(x: Explanation): string {
  const head = ['#', 'turn', 'source', 'input', 'write 5m', 'write 1h', 'read', 'output', 'cost $'];
  const rows = x.requests.map((q) => [String(q.n), String(q.turn), q.source, fmt(q.input), fmt(q.write5m), fmt(q.write1h), fmt(q.read), fmt(q.output), q.costUsd.toFixed(4)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i <= 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [`session ${x.sessionId}${x.simulated ? ' (simulated: rein\'s simulator answered, so its usage and cost are the simulation\'s; nothing was billed)' : ''}`, line(head)];
  x.requests.forEach((q, i) => {
    out.push(line(rows[i]!));
    out.push(`    ${q.why}`);
  });
  const t = x.totals;
  const breaks = Object.entries(t.breaks).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  out.push('');
  out.push(`${t.requests} requests: input ${fmt(t.input)}, cache write ${fmt(t.write5m)} (5m) + ${fmt(t.write1h)} (1h), cache read ${fmt(t.read)}, output ${fmt(t.output)}; ${x.simulated ? 'simulated cost' : 'cost'} $${t.costUsd.toFixed(4)}`);
  out.push(`cache-read share of main-loop input after the first request: ${(t.readShare * 100).toFixed(1)}%; breaks: ${breaks}; compactions: ${t.compactions}`);
  return out.join('\n') + '\n';
}

/**
 * What `arg` names: a rein transcript or session id (`rein`), or a Claude Code session file (or
 * stream-json output). Throws InputError for a file that is neither.
 */
function recordingKind(arg: string, cwd: string): 'rein' | 'claude-code' {
  const file = resolve(cwd, arg);
  if (!existsSync(file)) return 'rein';
  // Checked before reading: a directory would fail the read, a FIFO would block it.
  if (!statSync(file).isFile()) throw new InputError(`${arg} is ${statSync(file).isDirectory() ? 'a directory' : 'not a regular file'}; rein cache explain takes a transcript file (.jsonl) or a session id`);
  const text = readFileSync(file, 'utf8');
  try {
    if ((JSON.parse(text.split('\n', 1)[0]!) as { type?: string }).type === 'session') return 'rein';
  } catch {
    // Not a rein header: look further.
  }
  if (isClaudeCodeRecording(text)) return 'claude-code';
  throw new InputError(`${arg} is neither a rein transcript (its first line is no session header) nor a Claude Code session file or stream-json output (no assistant line with usage)`);
}

/** Runs `rein cache explain`. Returns the exit code. */
export function cacheExplainCommand(transcript: string, opts: { json?: boolean; cwd?: string }): number {
  try {
    const cwd = opts.cwd ?? process.cwd();
    const x = recordingKind(transcript, cwd) === 'claude-code'
      ? explainClaudeCodeSession(resolve(cwd, transcript))
      : explainTranscript(Transcript.open(transcript.endsWith('.jsonl') ? resolve(cwd, transcript) : transcript, { cwd }));
    process.stdout.write(opts.json ? JSON.stringify(x, null, 2) + '\n' : renderExplanation(x));
    return EXIT.OK;
  } catch (err) {
    if (isInputError(err)) {
      printInputError(err);
      return EXIT.BAD_INPUT;
    }
    throw err;
  }
}

/** Adds `rein cache explain TRANSCRIPT [--json]`. */
export function registerCacheCommands(program: Command): void {
  const cache = program.command('cache').description('Explain the prompt-cache cost of a session, request by request.');
  cache
    .command('explain')
    .description('what each request of a session cost and why (cache reads, writes, breaks and their causes)')
    .argument('<transcript>', 'a rein session transcript (.jsonl path) or a session id of this directory, or a Claude Code session file (~/.claude/projects/…/<id>.jsonl, or claude -p stream-json output)')
    .option('--json', 'print JSON instead of a table')
    .action((transcript: string, opts: { json?: boolean }) => {
      process.exitCode = cacheExplainCommand(transcript, opts);
    });
}
