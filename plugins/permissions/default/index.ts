/**
 * `permissions/default`: reads inside the working directories run; every other call no rule
 * allowed is an `ask`, answered by the host (a `canUseTool` callback, a permission prompt tool, a
 * PermissionRequest hook) or, with nobody to answer, denied.
 */
import { defineModePlugin } from '../shared/mode-plugin.js';

export default defineModePlugin('default', 'Permission mode default: reads in the project run, everything else not allowed by a rule asks.');
