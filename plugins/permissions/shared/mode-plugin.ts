/**
 * Builds the plugin of one rule-based permission mode: it taps `permission` at PERMISSION_STAGE.MODE
 * and answers every call the earlier stages left open.
 */
import { PERMISSION_STAGE, definePlugin, type Plugin } from '../../../kernel/index.js';
import type { z } from 'zod';
import { publishAnswerCheck } from './callback.js';
import { permissionContext } from './config.js';
import { MODE_DECISIONS, type RuleMode } from './modes.js';

/** Plugin names of all permission modes; loading two of them is an error. */
export const MODE_PLUGINS: readonly string[] = Object.freeze([
  'permissions/default', 'permissions/acceptEdits', 'permissions/plan', 'permissions/dontAsk', 'permissions/bypassPermissions', 'classifier',
]);

/** The mode plugin for `mode`; `setup` may tap more hooks (dontAsk, bypassPermissions). */
export function defineModePlugin<S extends z.ZodType>(mode: RuleMode, description: string, options?: S, setup?: Plugin<S>['apply']): Plugin<S> {
  const name = `permissions/${mode}`;
  return definePlugin<S>({
    name,
    description,
    options,
    conflicts: MODE_PLUGINS.filter((n) => n !== name),
    async apply(kernel, opts) {
      const pc = permissionContext(kernel);
      pc.mode = mode;
      publishAnswerCheck(kernel);
      await setup?.(kernel, opts);
      const decide = MODE_DECISIONS[mode];
      kernel.hooks.permission.tapPromise({ name, stage: PERMISSION_STAGE.MODE }, async (q) => decide(pc, q));
    },
  });
}
