/**
 * `permissions/plan`: plan mode. Read-only calls inside the working directories run; every other
 * call is denied with a message pointing at `ExitPlanMode`, before allow rules are consulted (an
 * allow rule such as `Bash(npm install:*)` must not change anything while planning; shell
 * commands are denied too, since rein does not judge a command read-only). The `ExitPlanMode` tool (Claude Code's
 * name) presents the plan: it is an `ask` (the host approves the plan), or allowed outright with
 * `onExit: allow`. Once the plan is approved, calls are judged by the `afterApproval` mode.
 */
import { z } from 'zod';
import { PERMISSION_STAGE, definePlugin, defineTool } from '../../../kernel/index.js';
import { permissionContext } from '../shared/config.js';
import { MODE_PLUGINS } from '../shared/mode-plugin.js';
import { MODE_DECISIONS } from '../shared/modes.js';
import { isReadOnlyCall } from '../shared/tools.js';

/** Where plan mode denies changes: after deny, ask and hook stages, before allow rules. */
export const PLAN_STAGE = PERMISSION_STAGE.ALLOW_RULES - 10;

/** The tool's name, as Claude Code calls it, so rules and hook matchers carry over. */
export const EXIT_PLAN_MODE = 'ExitPlanMode';

export const planOptions = z.object({
  /** `ask`: the plan needs the host's approval (headless with no host: denied). `allow`: approved at once. */
  onExit: z.enum(['ask', 'allow']).default('ask').register(z.globalRegistry, { description: 'How the plan the model presents with `ExitPlanMode` is approved: `ask`, by the host (headless with no host: denied); `allow`, at once.' }),
  /** The mode in force after the plan is approved. */
  afterApproval: z.enum(['default', 'acceptEdits', 'dontAsk', 'bypassPermissions']).default('default').register(z.globalRegistry, { description: 'The permission mode in force after the plan is approved.' }),
}).strict();

/** Our own words: what the model is told while plan mode is on. */
export const PLAN_MODE_SECTION = [
  'Plan mode is on. Investigate with read-only tools only: nothing may be changed yet.',
  `When you know what to do, call ${EXIT_PLAN_MODE} with the complete plan as markdown. Editing files and running commands become possible only after the plan is approved.`,
].join('\n');

const exitInput = z.object({
  /** The plan, as markdown. */
  plan: z.string().min(1).register(z.globalRegistry, { description: 'The plan to carry out, as markdown: the steps, the files involved, how the result will be checked.' }),
}).strict();

export default definePlugin({
  name: 'permissions/plan',
  description: 'Permission mode plan: read-only until the ExitPlanMode tool is approved, then another mode.',
  options: planOptions,
  conflicts: MODE_PLUGINS.filter((n) => n !== 'permissions/plan'),
  check(options, { preset }) {
    const optedIn = (preset.permissions as { allowBypassPermissions?: unknown } | undefined)?.allowBypassPermissions === true;
    return options.afterApproval === 'bypassPermissions' && !optedIn
      ? [{ path: ['afterApproval'], message: 'bypassPermissions needs the explicit opt-in `permissions.allowBypassPermissions: true` in the preset' }]
      : [];
  },
  apply(kernel, options) {
    const pc = permissionContext(kernel);
    pc.mode = 'plan';
    let approved = false;
    kernel.tools.register(defineTool({
      name: EXIT_PLAN_MODE,
      description: 'Leave plan mode by presenting your plan for approval. Call it once you have investigated enough to know what to change; pass the whole plan in `plan`. After approval you may edit files and run commands.',
      inputSchema: exitInput,
      async call() {
        approved = true;
        pc.mode = options.afterApproval;
        return `The plan was approved. Plan mode is over (mode ${options.afterApproval} now): carry out the plan.`;
      },
    }), 'permissions/plan');
    kernel.hooks.permission.tapPromise({ name: 'permissions/plan', stage: PLAN_STAGE }, async (q) => {
      if (approved) return undefined;
      if (q.toolName === EXIT_PLAN_MODE) {
        if (options.onExit === 'allow') return { behavior: 'allow', reason: 'plan approved by the preset (onExit: allow)', source: 'permissions/plan' };
        return { behavior: 'ask', message: 'The plan needs approval.', reason: 'the plan needs approval', source: 'permissions/plan' };
      }
      return isReadOnlyCall(q) ? undefined : MODE_DECISIONS.plan(pc, q);
    });
    kernel.hooks.permission.tapPromise({ name: 'permissions/plan', stage: PERMISSION_STAGE.MODE }, async (q) =>
      (approved ? MODE_DECISIONS[options.afterApproval](pc, q) : MODE_DECISIONS.plan(pc, q)));
    kernel.hooks.systemPrompt.tapPromise('permissions/plan', async (sections) =>
      approved ? sections : [...sections, { name: 'plan-mode', text: PLAN_MODE_SECTION, kind: 'dynamic' as const }]);
  },
});
