/**
 * A hook's answer, whoever ran it: the JSON object Claude Code's hooks print (or an SDK hook
 * callback returns), and what a finished hook means for rein.
 */
import { z } from 'zod';

export const hookJsonSchema = z.object({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z.object({
    hookEventName: z.string().optional(),
    /** `defer` (Agent SDK): no decision from this hook. */
    permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
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

/**
 * Reads a JSON answer. Returns the outcome: `ok` with the fields rein acts on, or a `failure`
 * naming each invalid field.
 */
export function parseHookJson(raw: unknown, stdout = ''): HookOutcome {
  const parsed = hookJsonSchema.safeParse(raw);
  if (!parsed.success) {
    return { kind: 'failure', message: `the hook's JSON answer is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`).join('; ')}` };
  }
  return { kind: 'ok', stdout, json: parsed.data };
}
