/**
 * `http` hooks (Claude Code's settings format): the event JSON is POSTed to `url`; a 2xx response's
 * body is the hook's answer, read exactly as a command hook's stdout (JSON when it starts with `{`).
 * A timeout, a connection error or any other status is a failure, which blocks guard events unless
 * the hook says `onFailure: continue`.
 */
import { PluginError } from '../../../kernel/index.js';
import type { HttpHook } from './config.js';
import { interpret, type HookOutcome } from './outcome.js';
import { MAX_HOOK_OUTPUT_BYTES } from './run.js';

const VAR = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * Throws PluginError (naming `where`) when a header uses an environment variable that
 * `allowedEnvVars` does not list: such a header would otherwise go out with the literal text, or
 * a secret the author did not mean to send.
 */
export function checkHttpHook(h: HttpHook, where: string): void {
  const allowed = new Set(h.allowedEnvVars ?? []);
  for (const [name, value] of Object.entries(h.headers ?? {})) {
    for (const m of value.matchAll(VAR)) {
      const v = m[1] ?? m[2]!;
      if (!allowed.has(v)) throw new PluginError('hooks/shell', `${where}.headers.${name}: uses $${v}, which allowedEnvVars does not list; add it there to send its value`);
    }
  }
}

/** The headers with allowed variables substituted from `env` (an unset one becomes empty). */
export function resolveHeaders(h: HttpHook, env: NodeJS.ProcessEnv): Record<string, string> {
  const allowed = new Set(h.allowedEnvVars ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(h.headers ?? {})) {
    out[name] = value.replace(VAR, (whole, a: string | undefined, b: string | undefined) => (allowed.has((a ?? b)!) ? env[(a ?? b)!] ?? '' : whole));
  }
  return out;
}

/** POSTs `input` to the hook's URL. Never throws. `timeoutS` in seconds. */
export async function runHttpHook(h: HttpHook, input: string, o: { env: NodeJS.ProcessEnv; timeoutS: number; signal?: AbortSignal }): Promise<HookOutcome> {
  const started = performance.now();
  const deadline = AbortSignal.timeout(o.timeoutS * 1000);
  const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline;
  let res: Response;
  let body: string;
  try {
    res = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json', ...resolveHeaders(h, o.env) }, body: input, signal, redirect: 'error' });
    body = (await res.text()).slice(0, MAX_HOOK_OUTPUT_BYTES);
  } catch (err) {
    if (deadline.aborted) return { kind: 'failure', message: `the hook timed out after ${o.timeoutS} s` };
    if (o.signal?.aborted) return { kind: 'failure', message: 'the hook was stopped because the run was aborted' };
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    return { kind: 'failure', message: `the request to ${h.url} failed: ${cause ?? (err as Error).message}` };
  }
  if (res.status < 200 || res.status > 299) return { kind: 'failure', message: `${h.url} answered with status ${res.status}${body.trim() ? `: ${body.trim().slice(0, 200)}` : ''}` };
  return interpret({ code: 0, signal: null, stdout: body, stderr: '', timedOut: false, aborted: false, durationMs: performance.now() - started }, o.timeoutS);
}
