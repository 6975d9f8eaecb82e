/**
 * A plugin with hooks of its own: the `Deploy` tool, and `beforeDeploy` / `afterDeploy` hooks other
 * plugins tap to refuse or watch deploys.
 *
 * The kernel's hook table is frozen; a plugin adds hooks beside it with `createHooksGetter`, which
 * keeps one hook object per kernel in a WeakMap (webpack 5's `getHooks(compilation)` pattern). Other
 * plugins import `getDeployHooks` from this module and tap what it returns for their kernel.
 *
 * "Deploying" here appends a line to deployments.log in the working directory, so a run has an
 * effect a test can check.
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AsyncSeriesBailHook, AsyncSeriesHook } from 'tapable';
import { z } from 'zod';
import { createHooksGetter, definePlugin, defineTool, ToolError, type Kernel } from '../../index.js';

export const PLUGIN_NAME = 'deploy';

/** A deploy about to happen. */
export interface DeployRequest {
  target: string;
  version: string;
}

/** A deploy that happened. */
export interface DeployRecord extends DeployRequest {
  /** ms since the epoch */
  at: number;
}

/** This plugin's hooks, one set per kernel. */
export const getDeployHooks = createHooksGetter<Kernel, {
  beforeDeploy: AsyncSeriesBailHook<[DeployRequest], string | undefined>;
  afterDeploy: AsyncSeriesHook<[DeployRecord]>;
}>(() => ({
  /** A deploy is about to run. Bail: return a reason to refuse it; the first reason wins. */
  beforeDeploy: new AsyncSeriesBailHook<[DeployRequest], string | undefined>(['deploy']),
  /** A deploy was recorded. Observe. */
  afterDeploy: new AsyncSeriesHook<[DeployRecord]>(['deploy']),
}));

const options = z.object({
  targets: z.array(z.string().min(1)).min(1).default(['staging', 'production']).describe('Targets the Deploy tool accepts.'),
}).strict();

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'The Deploy tool, with beforeDeploy / afterDeploy hooks for other plugins.',
  options,
  apply(kernel, { targets }) {
    const hooks = getDeployHooks(kernel);
    kernel.tools.register(defineTool({
      name: 'Deploy',
      description: `Deploys a version to a target (${targets.join(', ')}).`,
      inputSchema: z.object({
        target: z.enum(targets as [string, ...string[]]),
        version: z.string().regex(/^\d+\.\d+\.\d+$/, 'a version like 1.4.0'),
      }).strict(),
      // isReadOnly and isConcurrencySafe are left to their defaults (false): a deploy changes
      // the world, and two at once should not race.
      async call(input, ctx) {
        const refusal = await hooks.beforeDeploy.promise(input);
        if (refusal) throw new ToolError(`Deploy of ${input.version} to ${input.target} refused: ${refusal}`);
        const record: DeployRecord = { ...input, at: Date.now() };
        await appendFile(join(ctx.cwd, 'deployments.log'), `${input.target} ${input.version}\n`);
        await hooks.afterDeploy.promise(record);
        return `Deployed ${input.version} to ${input.target}.`;
      },
    }), PLUGIN_NAME);
  },
});
