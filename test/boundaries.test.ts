/**
 * The import boundaries between rein's layers (eslint.config.js), tried on scratch files: each
 * snippet is linted as if it were a file at the given path (ESLint's lintText; nothing is written),
 * and must fail or pass the lint as the rule says.
 */
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { REPO } from '../testing/index.js';

const eslint = new ESLint({ cwd: REPO });

/** The boundary messages ESLint gives `code` as the file `path` (other rules' messages left out). */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO}/${path}` });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('import boundaries', () => {
  it.each([
    ['kernel/loop/scratch.ts', "export { default } from '../../plugins/retry/index.js';", /kernel\/ imports nothing outside kernel/],
    ['kernel/scratch.ts', "export const load = () => import('../agent/agent.js');", /kernel\/ imports nothing outside kernel/],
    ['kernel/loop/scratch.test.ts', "import '../../simulator/index.js';", /but the harness in testing/],
    ['plugins/compaction/snip/scratch.ts', "import { Kernel } from '../../../kernel/kernel.js';\nexport { Kernel };", /public entry, kernel\/index\.js/],
    ['plugins/compaction/snip/scratch.ts', "import { sessionCache } from '../../cache/breakpoints/index.js';\nexport { sessionCache };", /never another plugin's module/],
    ['plugins/compaction/snip/scratch.ts', "export { summaryPrompt } from '../auto/prompt.js';", /never another plugin's module/],
    ['plugins/permissions/plan/scratch.ts', "export * from '../index.js';", /never another plugin's module/],
    ['plugins/retry/scratch.ts', "export const a = () => import('../../agent/plugins.js');", /assembly layer/],
    ['plugins/retry/scratch.test.ts', "import '../../bench/strategies/run.js';", /bench\/ is imported only by bench/],
    ['plugins/tools/read/scratch.test.ts', "import '../../../simulator/simulator.js';", /simulator's public entry/],
    ['cli/commands/scratch.ts', "import '../../bench/run.js';", /bench\/ is imported only by bench/],
    ['simulator/scratch.ts', "import '../plugins/retry/index.js';", /simulator\/ imports only the public entries of the kernel and lib/],
    ['examples/custom-tool/scratch.ts', "export { definePlugin } from '../../kernel/index.js';", /Examples import only the package entry/],
    ['kernel/loop/scratch.ts', "export { tokenCounter } from '../../lib/index.js';", /kernel\/ imports nothing outside kernel/],
    ['lib/tokens/scratch.ts', "export { runLoop } from '../../kernel/loop/run.js';", /public entry, kernel\/index\.js/],
    ['lib/scratch.ts', "export { default } from '../plugins/retry/index.js';", /lib\/ imports only the kernel's public entry/],
    ['plugins/compaction/snip/scratch.ts', "export { tokenCounter } from '../../../lib/tokens/accounting.js';", /public entry, lib\/index\.js/],
    ['simulator/scratch.ts', "export { costUsd } from '../lib/pricing.js';", /public entry, lib\/index\.js/],
    // A family's shared/ folder is its own: hooks answer permission asks through kernel state, not permissions' modules.
    ['plugins/hooks/shared/scratch.ts', "export { checkAnswer } from '../../permissions/shared/callback.js';", /never another plugin's module/],
    ['plugins/hooks/shared/scratch.ts', "export { sanitizeText } from '../../sanitize/index.js';", /never another plugin's module/],
    ['plugins/permissions/classifier/scratch.ts', "export { isDangerousAllow } from '../../hooks/shared/config.js';", /never another plugin's module/],
  ])('%s: %s fails', async (path, code, message) => {
    const errors = await boundaryErrors(path, code);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(message);
  });

  it.each([
    ['kernel/loop/scratch.ts', "export type { Message } from '../types.js';"],
    ['kernel/test/scratch.test.ts', "export { useTestEnv } from '../../testing/index.js';"],
    ['plugins/compaction/snip/scratch.ts', "export { definePlugin } from '../../../kernel/index.js';\nexport { groupByRound } from '../shared/history.js';"],
    ['plugins/compaction/snip/scratch.test.ts', "export { default } from '../../cache/breakpoints/index.js';\nexport { useTestEnv } from '../../../testing/index.js';\nexport { createSimulator } from '../../../simulator/index.js';"],
    ['plugins/retry/scratch.ts', "export const load = () => import('../../kernel/index.js');"],
    ['simulator/scratch.ts', "export { estimateTextTokens } from '../lib/index.js';\nexport { definePlugin } from '../kernel/index.js';"],
    ['lib/tokens/scratch.ts', "export { createKernelState } from '../../kernel/index.js';\nexport { estimateTextTokens } from './estimate.js';"],
    ['plugins/compaction/snip/scratch.ts', "export { tokenCounter } from '../../../lib/index.js';"],
    ['plugins/permissions/classifier/scratch.ts', "export { permissionContext } from '../shared/config.js';"],
    ['examples/custom-tool/scratch.ts', "export { createAgent } from '../../index.js';\nexport { useTestEnv } from '../../testing/index.js';"],
    ['cli/commands/bench.ts', "export const run = () => import('../../bench/run.js');"],
  ])('%s: %s passes', async (path, code) => {
    expect(await boundaryErrors(path, code)).toEqual([]);
  });
});
