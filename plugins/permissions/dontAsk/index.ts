/**
 * `permissions/dontAsk`: what no rule allows is denied, and nobody is asked: an `ask` from an ask
 * rule or a safety check becomes a deny before any host, hook or prompt tool sees it
 * (Claude Code's dontAsk mode). For CI and other runs where a question would only wait.
 */
import { defineModePlugin } from '../shared/mode-plugin.js';
import { REQUEST_STAGE } from '../shared/stages.js';

export default defineModePlugin('dontAsk', 'Permission mode dontAsk: anything not allowed by a rule (or a read in the project) is denied; nobody is asked.', undefined, (kernel) => {
  kernel.hooks.permissionRequest.tapPromise({ name: 'permissions/dontAsk', stage: REQUEST_STAGE.DONT_ASK }, async (a) => {
    const why = a.decision.reason ?? a.decision.message ?? 'approval required';
    return { behavior: 'deny', message: `Permission to use ${a.toolName} was denied: ${why}, and this run does not ask (mode dontAsk).`, reason: `${why} (mode dontAsk: asks are denied)`, source: 'permissions/dontAsk' };
  });
});
