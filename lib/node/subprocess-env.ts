import type { Kernel, SubprocessInfo } from '../../kernel/index.js';

/**
 * The environment for a child process rein starts: rein's own environment after the kernel's
 * `subprocessEnv` hook (which may remove credentials: `subprocess-env-scrub`), then the preset's
 * `env`, then `extra` (the caller's own variables, which are never removed). Strings only.
 */
export function subprocessEnv(kernel: Kernel, child: SubprocessInfo, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (typeof v === 'string') inherited[k] = v;
  const env = { ...kernel.hooks.subprocessEnv.call(inherited, child) };
  const own = kernel.preset.env;
  if (own && typeof own === 'object') for (const [k, v] of Object.entries(own as Record<string, unknown>)) if (typeof v === 'string') env[k] = v;
  for (const [k, v] of Object.entries(extra)) if (typeof v === 'string') env[k] = v;
  return env;
}
