/**
 * Permission decision latency for a 50-rule preset (20 deny, 10 ask, 20 allow: Bash prefix, exact
 * and wildcard specifiers, path, domain and tool rules), through the kernel's `permission` hook
 * with the `permissions` and `permissions/default` plugins, the classifier excluded. Each iteration
 * gets a fresh input object, so the shell parse is measured every time (the engine caches one
 * parse per input object).
 *
 * Baseline: a one-word command. Then compound commands: 6 allowed parts; substitutions, wrappers
 * and redirections; a denied part nested in `bash -c`; a command over 20 parts. Also the parse
 * alone for the 6-part command, and a path-rule decision for Write.
 *
 * `REIN_BENCH_BASELINE=/path/to/another/checkout` (a `git worktree` of main, say) adds the same
 * compound-command tasks run by that checkout's plugins, in the same process, so before and after
 * are measured side by side.
 */
import { existsSync} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Bench } from 'tinybench';
import type { Kernel } from '../../kernel/kernel.js';
import permissions from '../../plugins/permissions/index.js';
import defaultMode from '../../plugins/permissions/default/index.js';
import { parseCommand } from '../../plugins/permissions/shared/shell/parse.js';
import { decide, testKernel } from '../../testing/permissions.js';
import { benchTempDir } from './harness.js';

/** The 50 rules. */
export const BENCH_RULES = {
  deny: [
    'Bash(rm -rf:*)', 'Bash(sudo:*)', 'Bash(curl:*)', 'Bash(wget:*)', 'Bash(ssh:*)', 'Bash(scp:*)', 'Bash(dd:*)',
    'Bash(mkfs:*)', 'Bash(chmod 777 *)', 'Bash(chown:*)', 'Bash(git push --force:*)', 'Bash(npm publish:*)',
    'Bash(docker run --privileged *)', 'Bash(kubectl delete:*)', 'Read(./.env)', 'Read(~/.ssh/**)', 'Edit(//etc/**)',
    'WebFetch(domain:*.internal.example)', 'Bash(nc:*)', 'Bash(python -c:*)',
  ],
  ask: [
    'Bash(git push:*)', 'Bash(npm install:*)', 'Bash(pip install:*)', 'Bash(docker:*)', 'Bash(make deploy)',
    'Edit(./package.json)', 'Edit(./.github/**)', 'Bash(git rebase:*)', 'Bash(git reset --hard:*)', 'Bash(terraform *)',
  ],
  allow: [
    'Bash(git status:*)', 'Bash(git diff:*)', 'Bash(git log *)', 'Bash(git add:*)', 'Bash(git commit -m:*)',
    'Bash(npm test)', 'Bash(npm run lint:*)', 'Bash(npm run build)', 'Bash(ls:*)', 'Bash(cat:*)', 'Bash(head:*)',
    'Bash(tail:*)', 'Bash(wc:*)', 'Bash(grep:*)', 'Bash(find . -name *)', 'Bash(echo:*)', 'Edit(./src/**)',
    'Read', 'WebFetch(domain:docs.example.com)', 'Bash(sort:*)',
  ],
};

const COMMANDS = {
  simple: 'ls',
  sixParts: 'git status && git diff --stat | head -20; npm test && npm run lint -- --fix || echo failed',
  tricky: 'timeout 60 env NODE_ENV=test npm test 2>&1 | tee out.log; echo "$(git log -n 1 --format=%H)" > /dev/null; grep -r TODO src | wc -l',
  nestedDeny: `bash -c 'git status; for f in $(ls); do cat "$f"; done; rm -rf build'`,
  twentyParts: Array.from({ length: 22 }, (_, i) => `echo step${i}`).join(' && '),
};

let kernel: Kernel | undefined;

async function setup(): Promise<Kernel> {
  kernel ??= await testKernel({
    cwd: benchTempDir('rein-perm-bench-'),
    preset: { permissions: BENCH_RULES },
    plugins: [{ plugin: permissions }, { plugin: defaultMode }],
  });
  return kernel;
}

/** The same kernel built from another checkout's plugins (REIN_BENCH_BASELINE), or undefined. */
async function baselineDecide(): Promise<((command: string) => Promise<unknown>) | undefined> {
  const dir = process.env.REIN_BENCH_BASELINE;
  if (!dir) return undefined;
  const load = async (p: string) => (await import(pathToFileURL(join(dir, p)).href)) as Record<string, any>;
  // The test harness is testing/permissions.ts since the folder reorganisation, plugins/permissions/testing.ts before.
  const harness = existsSync(join(dir, 'testing/permissions.ts')) ? 'testing/permissions.ts' : 'plugins/permissions/testing.ts';
  // One at a time: loading a checkout's modules concurrently can meet one half-initialised.
  const testing = await load(harness);
  const perm = await load('plugins/permissions/index.ts');
  const mode = await load('plugins/permissions/default/index.ts');
  const k = await testing.testKernel({ cwd: benchTempDir('rein-perm-bench-base-'), preset: { permissions: BENCH_RULES }, plugins: [{ plugin: perm.default }, { plugin: mode.default }] });
  return (command) => testing.decide(k, 'Bash', { command });
}

export async function run(bench: Bench): Promise<void> {
  const k = await setup();
  const rules = BENCH_RULES.deny.length + BENCH_RULES.ask.length + BENCH_RULES.allow.length;
  if (rules !== 50) throw new Error(`the benchmark preset has ${rules} rules, not 50`);
  // Sanity: the decisions the tasks measure are the ones the names say.
  const expect = async (command: string, behavior: string) => {
    const d = await decide(k, 'Bash', { command });
    if (d?.behavior !== behavior) throw new Error(`${command}: expected ${behavior}, got ${JSON.stringify(d)}`);
  };
  await expect(COMMANDS.simple, 'allow');
  await expect(COMMANDS.sixParts, 'allow');
  await expect(COMMANDS.tricky, 'ask');
  await expect(COMMANDS.nestedDeny, 'deny');
  await expect(COMMANDS.twentyParts, 'allow');

  bench
    .add('permission: 1-part command (ls), allowed', async () => { await decide(k, 'Bash', { command: COMMANDS.simple }); })
    .add('permission: 6-part compound, allowed', async () => { await decide(k, 'Bash', { command: COMMANDS.sixParts }); })
    .add('permission: wrappers, substitution, redirections, asked', async () => { await decide(k, 'Bash', { command: COMMANDS.tricky }); })
    .add('permission: denied part inside bash -c, denied', async () => { await decide(k, 'Bash', { command: COMMANDS.nestedDeny }); })
    .add('permission: 22-part compound, allowed', async () => { await decide(k, 'Bash', { command: COMMANDS.twentyParts }); })
    .add('permission: Write with path rules, allowed', async () => { await decide(k, 'Write', { file_path: 'src/a.ts', content: 'x' }); })
    .add('shell parse only: 6-part compound', () => { parseCommand(COMMANDS.sixParts); });
  const base = await baselineDecide();
  if (base) {
    const d = (await base(COMMANDS.sixParts)) as { behavior?: string } | undefined;
    if (d?.behavior !== 'allow') throw new Error(`baseline: the 6-part command is not allowed: ${JSON.stringify(d)}`);
    bench
      .add('baseline checkout: 6-part compound, allowed', async () => { await base(COMMANDS.sixParts); })
      .add('this checkout: 6-part compound, allowed (again, after the baseline)', async () => { await decide(k, 'Bash', { command: COMMANDS.sixParts }); })
      .add('baseline checkout: wrappers, substitution, redirections, asked', async () => { await base(COMMANDS.tricky); })
      .add('baseline checkout: 22-part compound, allowed', async () => { await base(COMMANDS.twentyParts); });
  }
}
