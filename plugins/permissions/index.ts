/**
 * `permissions`: the rules engine. Reads `permissions.allow`, `ask` and `deny` from the preset
 * (plus this plugin's options) and taps the `permission` hook at the rule stages:
 *
 *   DENY_RULES  a deny rule matches → deny
 *   SAFETY      a protected or outside-working-directory write → ask (no mode may allow it)
 *   ASK_RULES   an ask rule matches, or a shell command cannot be parsed → ask
 *   ALLOW_RULES allow rules cover the whole call → allow
 *
 * Calls no rule decides go on to the permission mode's plugin (`permissions/default`, …, or
 * `classifier` for auto). A bare tool name in `deny` also removes that tool from the request.
 */
import { PERMISSION_STAGE, definePlugin } from '../../kernel/index.js';
import { withExplicitBareRepositories } from '../../lib/index.js';
import { publishAnswerCheck } from './shared/callback.js';
import { buildPermissionContext, permissionContext, permissionsConfigSchema, readPermissionsConfig, setPermissionContext } from './shared/config.js';
import { allowDecision, askDecision, bareDeniedTools, denyDecision } from './shared/rules.js';
import { safetyDecision } from './shared/safety.js';
import { SAFETY_STAGE } from './shared/stages.js';
import { hardLinkNamed } from './shared/paths.js';

/** Options: the same keys as the preset's `permissions` (lists are appended to the preset's). */
export const permissionsOptions = permissionsConfigSchema.omit({ mode: true, allowBypassPermissions: true }).partial().strict();

export default definePlugin({
  name: 'permissions',
  description: 'Permission rules: deny, ask and allow lists (Bash, path, domain and MCP specifiers), protected paths.',
  options: permissionsOptions,
  apply(kernel, options) {
    const pc = buildPermissionContext(kernel, readPermissionsConfig(kernel, options));
    setPermissionContext(kernel, pc);
    publishAnswerCheck(kernel);
    const { rules, base } = pc;
    kernel.hooks.permission.tapPromise({ name: 'permissions', stage: PERMISSION_STAGE.DENY_RULES }, async (q) => denyDecision(rules, q, base));
    kernel.hooks.permission.tapPromise({ name: 'permissions', stage: SAFETY_STAGE }, async (q) => safetyDecision(pc, q));
    kernel.hooks.permission.tapPromise({ name: 'permissions', stage: PERMISSION_STAGE.ASK_RULES }, async (q) => askDecision(rules, q, base));
    kernel.hooks.permission.tapPromise({ name: 'permissions', stage: PERMISSION_STAGE.ALLOW_RULES }, async (q) => allowDecision(rules, q, base, pc.workingDirs));
    // Files met inside an allowed call (a Grep or Glob walk) obey the same deny rules, file by file.
    const readDeny = rules.deny.filter((r) => r.kind === 'path' && r.appliesTo('Read'));
    const writeDeny = rules.deny.filter((r) => r.kind === 'path' && r.appliesTo('Edit'));
    if (readDeny.length || writeDeny.length) {
      kernel.hooks.pathAccess.tap('permissions', (a) => {
        // A file read under another name (a hard link to a denied file) is denied as well.
        const hit = (a.access === 'read' ? readDeny : writeDeny).find((r) => r.kind === 'path' && (r.path.test(a.path) || (a.access === 'read' && hardLinkNamed(r.path, a.path) !== undefined)));
        return hit ? `the rule ${hit.text} denies it` : undefined;
      });
    }
    // Commands the model runs: git takes a bare repository only when it is named (git-repository.ts).
    kernel.hooks.subprocessEnv.tap('permissions', (env, child) => (child.kind === 'bash' && permissionContext(kernel).mode !== 'bypassPermissions' ? withExplicitBareRepositories(env) : env));
    const removed = bareDeniedTools(rules);
    if (removed.length) {
      kernel.hooks.toolDefinitions.tap('permissions', (tools) => tools.filter((t) => !removed.some((r) => r.appliesTo(t.name))));
    }
  },
});

export { answerWith, checkAnswer, type CanUseTool, type PermissionResult } from './shared/callback.js';
export { permissionContext, PERMISSION_MODES, permissionsConfigSchema, type PermissionContext, type PermissionMode, type PermissionsConfig } from './shared/config.js';
export { MODE_DECISIONS, readDecision, editDecision } from './shared/modes.js';
export { parseRule, formatRule, RuleSyntaxError, type PermissionRule } from './shared/rule.js';
export { parseCommand, type ParsedCommand, type ShellPart } from './shared/shell/parse.js';
export { SAFETY_STAGE, REQUEST_STAGE } from './shared/stages.js';
