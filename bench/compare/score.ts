/**
 * Scoring of captured requests: what `rein sim serve` logged for an agent's run (each request body,
 * its headers and the usage the simulator accounted), turned into the same request metrics a
 * replay produces, so an agent CLI and rein's presets are measured alike.
 */
import { readFile } from 'node:fs/promises';
import { applyContextManagement } from '../../simulator/context-edits.js';
import { buildPrefix, type PromptPrefix } from '../../simulator/prefix.js';
import { betasOf } from '../../simulator/simulator.js';
import { isBreak, replayBreakCause, type PromptShape } from '../metrics/breaks.js';
import { actualInputCost, applyIdealCosts, requestCost } from '../metrics/efficiency.js';
import type { RequestMetrics } from '../metrics/types.js';

/** One `POST /v1/messages` the simulator answered, as its log line has it. */
export interface CapturedRequest {
  /** ms since the epoch. */
  at: number;
  headers: Record<string, string>;
  body: Record<string, any>;
  source: string;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number; cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } };
  /** Request body size, bytes. */
  bytes: number;
}

/** A `POST /v1/messages` the simulator did not answer: refused (4xx) or failed (5xx), with the API's error. */
export interface FailedRequest {
  status: number;
  /** The error's `type` (`invalid_request_error`, `overloaded_error`, ...). */
  type: string;
  message: string;
  /** Request body size, bytes. */
  bytes: number;
}

/**
 * Reads a simulator log (one JSON line per request): the answered `/v1/messages` requests, and
 * those it answered with an error status (count_tokens and other paths are left out).
 */
export async function readCapture(logFile: string): Promise<{ answered: CapturedRequest[]; failed: FailedRequest[] }> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  const answered: CapturedRequest[] = [];
  const failed: FailedRequest[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let e: Record<string, any>;
    try { e = JSON.parse(line); } catch { continue; }
    if (!String(e.path ?? '').startsWith('/v1/messages') || String(e.path).includes('count_tokens')) continue;
    const bytes = Buffer.byteLength(JSON.stringify(e.body ?? null));
    if (e.status === 200 && e.usage) {
      answered.push({ at: Date.parse(e.time), headers: e.headers ?? {}, body: e.body, source: String(e.source ?? 'main_loop'), usage: e.usage, bytes });
    } else if (typeof e.status === 'number' && e.status >= 400) {
      failed.push({ status: e.status, type: String(e.error?.error?.type ?? 'error'), message: String(e.error?.error?.message ?? ''), bytes });
    }
  }
  return { answered, failed };
}

/** Request metrics of captured requests, in order (ideal cost from usage as for replays, breaks by cause). */
export function scoreCapture(captured: readonly CapturedRequest[]): RequestMetrics[] {
  const lastPrefix = new Map<string, PromptPrefix>();
  let prevMain: { shape: PromptShape; read: number } | undefined;
  const out = captured.map((c, i) => {
    const u = c.usage;
    const w1h = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    const usage = { input: u.input_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite5m: u.cache_creation?.ephemeral_5m_input_tokens ?? Math.max(0, u.cache_creation_input_tokens - w1h), cacheWrite1h: w1h, output: u.output_tokens };
    const prefix = buildPrefix(applyContextManagement(c.body as never, betasOf(c.headers)).request as never, lastPrefix.get(c.source));
    lastPrefix.set(c.source, prefix);
    const model = String(c.body.model);
    const r: RequestMetrics = {
      n: i + 1, source: c.source, at: c.at, model, ...usage,
      promptTokens: prefix.totalTokens, seenTokens: 0,
      costUsd: requestCost(model, usage), inputCostUsd: actualInputCost(model, usage), idealInputCostUsd: 0,
    };
    if (c.source === 'main_loop' || c.source === 'subagent') {
      const ttl = prefix.breakpoints[prefix.breakpoints.length - 1]?.ttl;
      const shape: PromptShape = { model, at: c.at, blocks: prefix.blocks, ...(ttl ? { ttl } : {}) };
      if (prevMain && isBreak(prevMain.read, usage.cacheRead)) {
        r.breakCause = replayBreakCause(prevMain.shape, shape, { compaction: false, contextEdit: false });
        r.breakTokens = prevMain.read - usage.cacheRead;
      }
      prevMain = { shape, read: usage.cacheRead };
    }
    return r;
  });
  applyIdealCosts(out);
  return out;
}
