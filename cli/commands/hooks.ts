/**
 * `rein hooks`: every hook of a kernel built from the preset, in loop order, with the taps in the
 * order they run and their stages.
 */
import { createAgent } from '../../agent/agent.js';
import { HOOK_NAMES } from '../../kernel/hooks.js';
import type { Kernel } from '../../kernel/kernel.js';
import { isInputError, printInputError } from './errors.js';
import { EXIT } from '../main.js';

export interface HookTapInfo { name: string; stage: number; type: string }

/** Each hook's taps in call order (tapable keeps `taps` sorted by stage, then registration). */
export function describeHooks(kernel: Kernel): { hook: string; kind: string; taps: HookTapInfo[] }[] {
  return HOOK_NAMES.map((name) => {
    const hook = kernel.hooks[name] as unknown as { constructor: { name: string }; taps: { name: string; stage?: number; type: string }[] };
    return { hook: name, kind: hook.constructor.name, taps: hook.taps.map((t) => ({ name: t.name, stage: t.stage ?? 0, type: t.type })) };
  });
}

export async function hooksCommand(opts: { preset?: string; cwd?: string; layers: boolean; json?: boolean }): Promise<number> {
  let agent;
  try {
    agent = await createAgent({ preset: opts.preset, cwd: opts.cwd, layers: opts.layers, client: noClient });
    const table = describeHooks(agent.kernel);
    if (opts.json) {
      process.stdout.write(JSON.stringify(table, null, 2) + '\n');
      return EXIT.OK;
    }
    const lines: string[] = [];
    for (const h of table) {
      lines.push(`${h.hook}  (${h.kind})`);
      if (!h.taps.length) lines.push('    (no taps)');
      for (const t of h.taps) lines.push(`    ${t.name}${t.stage ? `  stage ${t.stage}` : ''}`);
    }
    process.stdout.write(lines.join('\n') + '\n');
    return EXIT.OK;
  } catch (err) {
    if (isInputError(err)) {
      printInputError(err);
      return EXIT.BAD_INPUT;
    }
    throw err;
  } finally {
    await agent?.close();
  }
}

/** `rein hooks` never calls a model. */
const noClient = {
  kind: 'simulator' as const,
  baseURL: 'none',
  send: async () => { throw new Error('rein hooks does not send requests'); },
  countTokens: async () => 0,
  close: async () => undefined,
};
