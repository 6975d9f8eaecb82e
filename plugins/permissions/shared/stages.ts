/**
 * Where rein's permission plugins tap, relative to the kernel's PERMISSION_STAGE constants.
 */
import { PERMISSION_STAGE } from '../../../kernel/index.js';

/**
 * Protected and outside-working-directory writes: after deny rules (a deny still denies), before
 * ask and allow rules and every mode (nothing later may allow them).
 */
export const SAFETY_STAGE = PERMISSION_STAGE.DENY_RULES + 25;

/**
 * `permissionRequest` stages. dontAsk answers every ask with a deny before anyone is asked; shell
 * PermissionRequest hooks come next (Claude Code runs them before its dialog); host callbacks and
 * the prompt tool last.
 */
export const REQUEST_STAGE = Object.freeze({
  DONT_ASK: -1000,
  HOOKS: -100,
  HOST: 0,
});
