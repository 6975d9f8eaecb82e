/**
 * `rein cache explain TRANSCRIPT`: what each request of a recorded session cost and why, read from
 * its transcript: the usage of every response, and, when `cache/break-detector` ran, its verdict on
 * each main-loop request (a break and its cause, an announced drop, a first observation).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { DetectorRecord } from '../../plugins/cache/break-detector/index.js';
import { isBreak } from '../../plugins/cache/break-detector/detect.js';
import { costUsd } from '../../kernel/pricing.js';
import { Transcript } from '../../kernel/session/transcript.js';
import type { Usage } from '../../kernel/types.js';
import { isInputError, printInputError } from './errors.js';
import { EXIT } from '../main.js';

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

/** Explains every response of a transcript. Pure: reads only the transcript's entries. */
export function explainTranscript(t: Transcript): Explanation {
  const records = t.pluginData<DetectorRecord>('cache/break-detector');
  let r = 0;
  const requests: ExplainedRequest[] = [];
  /** What the previous main-loop request left in the cache: its read plus its write, tokens. */
  let prevMainCached: number | undefined;
  let compactions = 0;
  let pendingCompaction = false;
  for (const e of t.entries) {
    if (e.type === 'history' && e.reason.startsWith('compact:')) { compactions++; pendingCompaction = true; }
    if (e.type !== 'response') continue;
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
      const rec = records[r++];
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
      } else if (prevMainCached !== undefined && !pendingCompaction && isBreak(prevMainCached, read)) {
        row.why = `CACHE BREAK, cause unknown (no fingerprints recorded: load cache/break-detector to name it): read ${fmt(read)} of the ${fmt(prevMainCached)} tokens the previous request cached; ${ok}`;
        row.breakCause = 'unknown';
      } else {
        row.why = pendingCompaction ? `after a compaction: ${ok}` : ok;
      }
      prevMainCached = read + write5m + write1h;
      pendingCompaction = false;
    }
    requests.push(row);
  }
  const sum = (f: (x: ExplainedRequest) => number) => requests.reduce((n, x) => n + f(x), 0);
  const mains = requests.filter((x) => x.source === 'main_loop' || x.source === 'subagent').slice(1);
  const mainInput = mains.reduce((n, x) => n + x.input + x.write5m + x.write1h + x.read, 0);
  const breaks: Record<string, number> = {};
  for (const x of requests) if (x.breakCause) breaks[x.breakCause] = (breaks[x.breakCause] ?? 0) + 1;
  return {
    sessionId: t.sessionId,
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
      compactions,
    },
  };
}

/** The explanation as a text table, one request a line, totals last. */
export function renderExplanation(x: Explanation): string {
  const head = ['#', 'turn', 'source', 'input', 'write 5m', 'write 1h', 'read', 'output', 'cost $'];
  const rows = x.requests.map((q) => [String(q.n), String(q.turn), q.source, fmt(q.input), fmt(q.write5m), fmt(q.write1h), fmt(q.read), fmt(q.output), q.costUsd.toFixed(4)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i <= 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [`session ${x.sessionId}`, line(head)];
  x.requests.forEach((q, i) => {
    out.push(line(rows[i]!));
    out.push(`    ${q.why}`);
  });
  const t = x.totals;
  const breaks = Object.entries(t.breaks).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  out.push('');
  out.push(`${t.requests} requests: input ${fmt(t.input)}, cache write ${fmt(t.write5m)} (5m) + ${fmt(t.write1h)} (1h), cache read ${fmt(t.read)}, output ${fmt(t.output)}; cost $${t.costUsd.toFixed(4)}`);
  out.push(`cache-read share of main-loop input after the first request: ${(t.readShare * 100).toFixed(1)}%; breaks: ${breaks}; compactions: ${t.compactions}`);
  return out.join('\n') + '\n';
}

/** Runs `rein cache explain`. Returns the exit code. */
export function cacheExplainCommand(transcript: string, opts: { json?: boolean; cwd?: string }): number {
  try {
    const cwd = opts.cwd ?? process.cwd();
    const t = Transcript.open(transcript.endsWith('.jsonl') ? resolve(cwd, transcript) : transcript, { cwd });
    const x = explainTranscript(t);
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
    .argument('<transcript>', 'a session transcript (.jsonl path) or a session id of this directory')
    .option('--json', 'print JSON instead of a table')
    .action((transcript: string, opts: { json?: boolean }) => {
      process.exitCode = cacheExplainCommand(transcript, opts);
    });
}
