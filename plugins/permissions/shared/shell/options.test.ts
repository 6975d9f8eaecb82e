/**
 * Risky options under prefix rules (options.ts): `Bash(npm test:*)` must not allow
 * `npm test --script-shell=./evil.sh`. One test per option of the table (each spelling, long
 * and short), generated from the table so none is left out, plus the cases users write:
 * abbreviations, clusters, `=value` and separate values, values inside and outside the project,
 * options written into the rule itself, and arguments known only at run time.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../../kernel/index.js';
import permissions from '../../index.js';
import defaultMode from '../../default/index.js';
import { decide, testKernel } from '../../../../testing/permissions.js';
import { RISKY_OPTIONS } from './options.js';

const cwd = mkdtempSync(join(tmpdir(), 'rein-options-'));
mkdirSync(join(cwd, 'packages/a'), { recursive: true });

async function kernelWith(allow: string[]): Promise<Kernel> {
  return testKernel({ cwd, preset: { permissions: { allow } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
}
async function behavior(k: Kernel, command: string): Promise<string | undefined> {
  return (await decide(k, 'Bash', { command }))?.behavior;
}

/** One command per spelling of every option in the table, with the rule prefix it sits under. */
function everyOption(): { tool: string; option: string; prefix: string; command: string }[] {
  const out: { tool: string; option: string; prefix: string; command: string }[] = [];
  for (const [tool, spec] of Object.entries(RISKY_OPTIONS)) {
    for (const o of spec.options) {
      const sub = o.subcommands?.length ? o.subcommands[0] : undefined;
      const global = o.subcommands?.length === 0;
      // Global options come before the subcommand; the others after it.
      const prefix = sub ? `${tool} ${sub}` : tool;
      const value = o.value === false ? '' : o.path ? ' ../elsewhere' : ' ./evil';
      const longDash = spec.singleDashLong ? '-' : '--';
      for (const l of o.long ?? []) out.push({ tool, option: `${longDash}${l}`, prefix, command: global ? `${tool} ${longDash}${l}${value} status` : `${prefix} ${longDash}${l}${value}` });
      for (const s of o.short ?? []) out.push({ tool, option: s, prefix, command: global ? `${tool} ${s}${value} status` : `${prefix} ${s}${value}` });
    }
  }
  return out;
}

describe('risky options are not covered by a rule tail', () => {
  const cases = everyOption();
  it('covers every option of the table', () => {
    const options = Object.values(RISKY_OPTIONS).reduce((n, t) => n + t.options.reduce((m, o) => m + (o.long?.length ?? 0) + (o.short?.length ?? 0), 0), 0);
    expect(cases.length).toBe(options);
    expect(cases.length).toBeGreaterThan(100);
  });

  it.each(cases.map((c) => [c.command, c.prefix, c.option]))('%j is not allowed by Bash(%s:*) (option %s)', async (command, prefix) => {
    const k = await kernelWith([`Bash(${prefix}:*)`]);
    expect(await behavior(k, command)).toBe('ask');
  });

  it.each(cases.map((c) => [c.command]))('%j is allowed by a rule that writes it out', async (command) => {
    // A file the option writes (`sort -o ./evil`) is a write like `> ./evil`: it needs an Edit rule too.
    const k = await kernelWith([`Bash(${command})`, 'Edit(./**)']);
    expect(await behavior(k, command)).toBe('allow');
  });
});

describe('options as users write them', () => {
  let k: Kernel;
  beforeAll(async () => {
    k = await kernelWith(['Bash(npm test:*)', 'Bash(npm run build:*)', 'Bash(git status:*)', 'Bash(git:*)', 'Bash(make test:*)', 'Bash(tar:*)',
      'Bash(curl:*)', 'Bash(wget:*)', 'Bash(cat:*)', 'Bash(echo:*)', 'Bash(git merge-base:*)', 'Bash(export:*)', 'Bash(go test:*)', 'Bash(sort:*)']);
  });
  const denied: string[] = [
    // the issue's own
    'npm test --script-shell=./evil.sh',
    'npm test --prefix=../other',
    // spellings npm accepts
    'npm test --script-shell ./evil.sh',
    'npm test --script-sh=./evil.sh',
    'npm test --script_shell=./evil.sh',
    'npm test -C ../other',
    'npm test --workspace=../other',
    'npm test -w /tmp/elsewhere',
    'npm test --node-options=--require=./evil.js',
    'npm test --userconfig ./evil.npmrc',
    'npm run build --script-shell=./evil.sh',
    // git
    'git -c core.pager=./evil.sh status',
    'git -c alias.status=!./evil.sh status',
    'git --exec-path=/tmp/evil status',
    'git -C ../other status',
    'git fetch --upload-pack=./evil.sh origin',
    'git fetch --upload-p=./evil.sh origin',
    'git clone -u ./evil.sh ../x',
    'git push --receive-pack=./evil.sh origin',
    'git rebase --exec ./evil.sh main',
    'git rebase -x ./evil.sh main',
    'git grep -O./evil.sh TODO',
    'git log --output=.git/hooks/pre-commit',
    'git config core.fsmonitor ./evil.sh',
    'git submodule foreach ./evil.sh',
    'git bisect run ./evil.sh',
    // make, tar, curl, sort, go
    'make test SHELL=./evil.sh',
    'make test -f evil.mk',
    'make test --eval=all:;./evil.sh',
    'tar -cf out.tar --checkpoint=1 --checkpoint-action=exec=./evil.sh .',
    'tar -cf out.tar --use-compress-program=./evil.sh .',
    'tar -xzvC /tmp -f a.tgz',
    'curl -sSo out.txt https://example.com',
    'curl -K evil.cfg https://example.com',
    'wget -e use_proxy=yes https://example.com',
    'sort --compress-program=./evil.sh big.txt',
    'go test -exec=./evil.sh ./...',
    'go test -toolexec ./evil.sh ./...',
    // arguments known only at run time, and file names a glob may produce
    'npm test $(cat args.txt)',
    'git diff $(cat notes.txt)',
    'tar -cf out.tar *',
    'for o in --output=x; do git diff "$o"; done',
    // exports that change what later commands run
    'export PATH=./evil:$PATH',
    'export GIT_SSH_COMMAND=./evil.sh',
  ];
  it.each(denied.map((c) => [c]))('%j is not allowed', async (command) => {
    const d = await decide(k, 'Bash', { command });
    expect(d?.behavior, JSON.stringify(d)).toBe('ask');
  });

  const allowed: string[] = [
    'npm test',
    'npm test -- --script-shell=./x',
    'npm test --prefix=./packages/a',
    'npm test --silent',
    'npm run build -- --watch',
    'git status --porcelain',
    'git -C packages/a status',
    'git config --get user.name',
    'git config user.name',
    'git diff $(git merge-base HEAD main)',
    'for f in a.ts b.ts; do git diff "$f"; done',
    'curl -s -o /dev/null https://example.com',
    'wget -qO- https://example.com',
    'make test',
    'tar -czf out.tgz src',
    'go test -v ./...',
    'go test -run TestX ./...',
    'sort -o - big.txt',
    'export NODE_ENV=test',
  ];
  it.each(allowed.map((c) => [c]))('%j stays allowed', async (command) => {
    const d = await decide(k, 'Bash', { command });
    expect(d?.behavior, JSON.stringify(d)).toBe('allow');
  });

  it('says which option and how to allow it', async () => {
    const d = await decide(k, 'Bash', { command: 'npm test --script-shell=./evil.sh' });
    expect(d?.reason).toBe('in "npm test --script-shell=./evil.sh", "--script-shell=./evil.sh" runs scripts through another program; the rule Bash(npm test:*) covers that only when the rule itself writes it out (mode default)');
  });
});
