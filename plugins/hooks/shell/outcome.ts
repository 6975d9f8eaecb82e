/**
 * What a finished hook process means (Claude Code's protocol):
 * - exit 0: success; stdout that starts with `{` is the JSON answer, other stdout is plain text;
 * - exit 2: a blocking error, stderr is the reason given to the model;
 * - any other exit: a non-blocking error, reported and ignored;
 * - killed, timed out, not started, exit 126/127 (cannot run, not found) or unreadable JSON: a
 *   failure, which blocks guard events unless the hook says `onFailure: continue`.
 */
import { parseHookJson, type HookOutcome } from '../shared/outcome.js';
import type { HookProcessResult } from './run.js';

export type { HookJson, HookOutcome } from '../shared/outcome.js';

/** Interprets a finished hook process. */
export function interpret(r: HookProcessResult, timeoutS: number): HookOutcome {
  if (r.spawnError) return { kind: 'failure', message: `the hook could not be started: ${r.spawnError}` };
  if (r.timedOut) return { kind: 'failure', message: `the hook timed out after ${timeoutS} s` };
  if (r.aborted) return { kind: 'failure', message: 'the hook was stopped because the run was aborted' };
  if (r.code === null) return { kind: 'failure', message: `the hook was killed by ${r.signal ?? 'a signal'}` };
  const stderr = r.stderr.trim();
  if (r.code === 2) return { kind: 'block', message: stderr || 'blocked by a hook (exit 2, no message)' };
  if (r.code === 126 || r.code === 127) return { kind: 'failure', message: `the hook could not run its command (exit ${r.code})${stderr ? `: ${stderr}` : ''}` };
  if (r.code !== 0) return { kind: 'error', message: `the hook exited with ${r.code}${stderr ? `: ${stderr}` : ''}` };
  const stdout = r.stdout.trim();
  if (!stdout.startsWith('{')) return { kind: 'ok', stdout };
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch (e) {
    return { kind: 'failure', message: `the hook printed JSON that cannot be read: ${(e as Error).message}` };
  }
  return parseHookJson(raw, stdout);
}
