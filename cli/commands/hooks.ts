/**
 * `rein hooks`: every hook of a kernel built from the preset, in loop order, with the taps in the
 * order they run and their stages; then the guard shell hooks and whether each fails open.
 */
import * as tapable from 'tapable';
import { createAgent } from '../../agent/agent.js';
import { HOOK_NAMES } from '../../kernel/hooks.js';
import type { Kernel } from '../../kernel/kernel.js';
import { guardFailures, type GuardFailure, type ShellHooksConfig } from '../../plugins/hooks/shell/config.js';
import { isInputError, printInputError } from './errors.js';
import { EXIT } from '../main.js';

export interface HookTapInfo { name: string; stage: number; type: string }

/**
 * tapable's hook classes by their exported names. A hook's kind is looked up here rather than read
 * from `constructor.name`: the built command is minified without kept names (scripts/bundle.mjs).
 */
const HOOK_KINDS = new Map<unknown, string>(Object.entries(tapable).filter(([, v]) => typeof v === 'function').map(([k, v]) => [v, k]));

/** Each hook's taps in call order (tapable keeps `taps` sorted by stage, then registration). */
export function describeHooks(kernel: Kernel): { hook: string; kind: string; taps: HookTapInfo[] }[] {
  return HOOK_NAMES.map((name) => {
    const hook = kernel.hooks[name] as unknown as { constructor: { name: string }; taps: { name: string; stage?: number; type: string }[] };
    return { hook: name, kind: HOOK_KINDS.get(hook.constructor) ?? hook.constructor.name, taps: hook.taps.map((t) => ({ name: t.name, stage: t.stage ?? 0, type: t.type })) };
  });
}

/** The guard shell hooks of a kernel (PreToolUse, PermissionRequest, UserPromptSubmit) and how each fails. */
export function describeGuards(kernel: Kernel): GuardFailure[] {
  const shell = kernel.plugins.find((p) => p.plugin.name === 'hooks/shell');
  return shell ? guardFailures(shell.options as ShellHooksConfig) : [];
}

const FAILS: Record<GuardFailure['fails'], string> = {
  closed: 'fails closed: a crash, a timeout or any exit code but 0 and 2 blocks',
  'open on exit codes': 'fails open on exit codes: a crash or timeout blocks, but exit 1 (any code but 0 and 2) lets the call run; set onFailure: block to block it',
  open: 'fails open (onFailure: continue): only exit 2 blocks',
};

export async function hooksCommand(opts: { preset?: string; cwd?: string; layers: boolean; json?: boolean }, out: (text: string) => void = (t) => { process.stdout.write(t); }): Promise<number> {
  let agent;
  try {
    agent = await createAgent({ preset: opts.preset, cwd: opts.cwd, layers: opts.layers, client: noClient });
    const table = describeHooks(agent.kernel);
    if (opts.json) {
      out(JSON.stringify(table, null, 2) + '\n');
      return EXIT.OK;
    }
    const guards = describeGuards(agent.kernel);
    const lines: string[] = [];
    for (const h of table) {
      lines.push(`${h.hook}  (${h.kind})`);
      if (!h.taps.length) lines.push('    (no taps)');
      for (const t of h.taps) lines.push(`    ${t.name}${t.stage ? `  stage ${t.stage}` : ''}`);
    }
    if (guards.length) {
      lines.push('', 'guard shell hooks (hooks/shell):');
      for (const g of guards) lines.push(`    ${g.event}${g.matcher ? ` [${g.matcher}]` : ''}  ${g.command}`, `        ${FAILS[g.fails]}`);
    }
    out(lines.join('\n') + '\n');
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
