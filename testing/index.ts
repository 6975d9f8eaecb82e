/**
 * `rein/testing`: the harness rein's own tests use, for testing plugins and presets the same way.
 * Everything runs for real: the real `@anthropic-ai/sdk` against rein's simulator on loopback, real
 * files in temp folders, the real tool pipeline of the kernel.
 *
 * - {@link useTestEnv}: a temp working folder and `REIN_HOME` per test (vitest hooks);
 * - {@link serveScenario} / {@link simKernel} / {@link httpClient}: the simulator on 127.0.0.1 and
 *   kernels talking to it through the SDK; {@link plannedResponder} plays planned turns;
 * - {@link toolKernel} / {@link callTool}: one tool call through the kernel's tool pipeline
 *   (validation, permission, hooks, result caps) with no model; {@link testTool} and
 *   {@link toolsPlugin} make small tools for it;
 * - {@link collect}, {@link transitions}, {@link notices}, {@link loggedRequests}: what a run did;
 * - {@link runCli}: the `rein` command as a real process.
 */
export { useTestEnv, type TestEnv, type TestEnvOptions } from './env.js';
export * from './support.js';
export { unusedClient, useTempReinHome, toolKernel, use, runCalls, callTool, textOf, testTool, testToolInput, toolsPlugin, type TestToolInput } from './tools.js';
export * from './strategy.js';
export { embeddedSimulator } from '../agent/select.js';
/** rein's `createKernel` (the kernel's, with lib/'s services), for tests that build a kernel by hand. */
export { createKernel } from '../agent/kernel.js';
export { createSimulator, parseScenario, type Simulator } from '../simulator/index.js';
