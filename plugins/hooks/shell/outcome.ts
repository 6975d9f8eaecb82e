/**
 * What a finished hook process means (Claude Code's protocol):
 * - exit 0: success; stdout that starts with `{` is the JSON answer, other stdout is plain text;
 * - exit 2: a blocking error, stderr is the reason given to the model;
 * - any other exit: a non-blocking error, reported and ignored;
 * - killed, timed out, not started, exit 126/127 (cannot run, not found) or unreadable JSON: a
 *   failure, which blocks guard events unless the hook says `onFailure: continue`.
 */
import { z } from 'zod';
import type { HookProcessResult } from './run.js';

const hookJsonSchema = z.object({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z.object({
    hookEventName: z.string().optional(),
    permissionDecision: z.enum(['allow', 'deny', 'ask']).optional(),
    permissionDecisionReason: z.string().optional(),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    additionalContext: z.string().optional(),
    decision: z.union([
      z.object({ behavior: z.literal('allow'), updatedInput: z.record(z.string(), z.unknown()).optional() }).loose(),
      z.object({ behavior: z.literal('deny'), message: z.string().optional(), interrupt: z.boolean().optional() }).loose(),
    ]).optional(),
  }).loose().optional(),
}).loose();

/** A hook's JSON answer (fields rein acts on; others are ignored). */
export type HookJson = z.output<typeof hookJsonSchema>;

export type HookOutcome =
  | { kind: 'ok'; stdout: string; json?: HookJson }
  | { kind: 'block'; message: string }
  | { kind: 'error'; message: string }
  | { kind: 'failure'; message: string };

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
  const parsed = hookJsonSchema.safeParse(raw);
  if (!parsed.success) {
    return { kind: 'failure', message: `the hook's JSON answer is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`).join('; ')}` };
  }
  return { kind: 'ok', stdout, json: parsed.data };
}
