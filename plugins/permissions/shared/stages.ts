/**
 * Where rein's permission plugins tap, relative to the kernel's PERMISSION_STAGE constants.
 */
import { PERMISSION_REQUEST_STAGE, PERMISSION_STAGE } from '../../../kernel/index.js';

/**
 * Protected and outside-working-directory writes: after deny rules (a deny still denies), before
 * ask and allow rules and every mode (nothing later may allow them).
 */
export const SAFETY_STAGE = PERMISSION_STAGE.DENY_RULES + 25;

/**
 * `permissionRequest` stages: the kernel's, since answerers of other plugin families (shell and
 * SDK hooks) tap there too.
 */
export const REQUEST_STAGE = PERMISSION_REQUEST_STAGE;
