/**
 * A plugin that taps another plugin's hooks: during a change freeze it refuses deploys to the frozen
 * targets through `deploy`'s `beforeDeploy` hook, and reports every deploy that went out.
 */
import { z } from 'zod';
import { definePlugin } from '../../index.js';
import { getDeployHooks, PLUGIN_NAME as DEPLOY } from './deploy.js';

export const PLUGIN_NAME = 'deploy-freeze';

const options = z.object({
  targets: z.array(z.string().min(1)).default(['production']).describe('Targets that are frozen.'),
  reason: z.string().min(1).default('a change freeze is in effect').describe('Told to the model when a deploy is refused.'),
}).strict();

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'Refuses deploys to frozen targets (taps the deploy plugin\'s beforeDeploy hook).',
  options,
  // Checked once every plugin is loaded: without `deploy` there is nothing to guard.
  requires: [DEPLOY],
  apply(kernel, { targets, reason }) {
    const hooks = getDeployHooks(kernel);
    hooks.beforeDeploy.tapPromise(PLUGIN_NAME, async ({ target }) => (targets.includes(target) ? `${target} is frozen: ${reason}` : undefined));
    hooks.afterDeploy.tap(PLUGIN_NAME, ({ target, version }) => {
      kernel.emit({ type: 'notice', level: 'info', source: PLUGIN_NAME, message: `deployed ${version} to ${target} (not frozen)` });
    });
  },
});
