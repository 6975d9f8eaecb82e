/**
 * Property tests: for random rule sets and random compound commands built from simple commands
 * (lists, pipelines, subshells, groups, substitutions, conditionals, loops, wrappers, `bash -c`):
 * - no command is allowed when any of its simple commands matches a deny rule, in any mode, even
 *   bypassPermissions (and when the command parses, it is denied outright);
 * - a command allowed by rules has every simple command covered by an allow rule.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import permissions from '../../index.js';
import bypass from '../../bypassPermissions/index.js';
import defaultMode from '../../default/index.js';
import { decide, testKernel } from '../../../../testing/permissions.js';
import { compileShellSpec, matchShell } from './match.js';
import { parseCommand } from './parse.js';
import { DYNAMIC, quoteWord } from './words.js';

const NAMES = ['git', 'rm', 'ls', 'curl', 'npm', 'echo', 'cat', 'make', 'chmod', 'python'];
const ARGS = ['-rf', '/', 'status', 'test', 'x.txt', '--force', 'build', '-la', '.', 'origin'];

/** A generated command: its text and the simple commands inside it, as their canonical text. */
interface Gen { text: string; simples: string[] }

const words = fc.tuple(fc.constantFrom(...NAMES), fc.array(fc.constantFrom(...ARGS), { maxLength: 3 })).map(([n, a]) => [n, ...a]);
const simple: fc.Arbitrary<Gen> = words.map((w) => ({ text: w.join(' '), simples: [w.map(quoteWord).join(' ')] }));

const WRAPPERS = ['timeout 5', 'nice -n 2', 'nohup', 'env A=1', 'sudo -u root', 'time', 'xargs', 'command', 'exec'];
const wrapped: fc.Arbitrary<Gen> = fc.tuple(fc.constantFrom(...WRAPPERS), words).map(([w, ws]) => ({
  text: `${w} ${ws.join(' ')}`,
  // xargs appends the arguments it reads: the command it runs has one more, unknown, word.
  simples: [ws.map(quoteWord).join(' ') + (w === 'xargs' ? ` ${quoteWord(DYNAMIC)}` : '')],
}));

// Substitutions and subshells get inner spaces: `$((a))` and `((a))` would be arithmetic; `bash -c`
// is not nested inside another `bash -c` script's single quotes.
const { command } = fc.letrec<{ command: Gen }>((tie) => ({
  command: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    simple,
    wrapped,
    fc.tuple(tie('command'), fc.constantFrom('&&', '||', ';', '|', '\n'), tie('command')).map(([a, op, b]) => ({ text: op === '\n' ? `${a.text}\n${b.text}` : `${a.text} ${op} ${b.text}`, simples: [...a.simples, ...b.simples] })),
    tie('command').map((a) => ({ text: `( ${a.text} )`, simples: a.simples })),
    tie('command').map((a) => ({ text: `{ ${a.text}; }`, simples: a.simples })),
    tie('command').map((a) => ({ text: `echo "$( ${a.text} )"`, simples: a.simples })),
    simple.map((a) => ({ text: `echo \`${a.text}\``, simples: a.simples })),
    tie('command').map((a) => ({ text: `cat <( ${a.text} )`, simples: a.simples })),
    tie('command').filter((a) => !a.text.includes("'")).map((a) => ({ text: `bash -c '${a.text}'`, simples: a.simples })),
    fc.tuple(tie('command'), tie('command')).map(([a, b]) => ({ text: `if ${a.text}; then ${b.text}; fi`, simples: [...a.simples, ...b.simples] })),
    tie('command').map((a) => ({ text: `for i in 1 2; do ${a.text}; done`, simples: a.simples })),
    tie('command').map((a) => ({ text: `${a.text} 2>/dev/null`, simples: a.simples })),
  ),
}));

/** A Bash rule specifier built from vocabulary words: exact, legacy prefix, or wildcard. */
const spec = fc.tuple(words, fc.constantFrom('exact', 'prefix', 'wildcard'), fc.nat()).map(([w, kind, n]) => {
  const head = w.slice(0, 1 + (n % w.length)).join(' ');
  return kind === 'exact' ? w.join(' ') : kind === 'prefix' ? `${head}:*` : `${head} *`;
});
const ruleList = fc.array(spec, { maxLength: 4 });

const covered = (specs: string[], text: string) => specs.some((s) => matchShell(compileShellSpec(s), text));

describe('property: deny rules cannot be bypassed by composition', () => {
  it('no command with a denied part is allowed, even in bypassPermissions', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rein-prop-'));
    await fc.assert(fc.asyncProperty(command, ruleList, ruleList, fc.boolean(), fc.option(fc.nat()), async (cmd, randomDeny, allow, allowAllBash, pick) => {
      // Half the time, also deny the command name of one of the command's own parts.
      const deny = pick === null ? randomDeny : [...randomDeny, `${cmd.simples[pick % cmd.simples.length]!.split(' ')[0]}:*`];
      const k = await testKernel({
        cwd,
        preset: { permissions: { allowBypassPermissions: true, deny: deny.map((s) => `Bash(${s})`), allow: [...allow.map((s) => `Bash(${s})`), ...(allowAllBash ? ['Bash'] : [])] } },
        plugins: [{ plugin: permissions }, { plugin: bypass }],
      });
      const d = await decide(k, 'Bash', { command: cmd.text });
      const deniedPart = cmd.simples.some((s) => covered(deny, s));
      if (deniedPart) {
        expect(d?.behavior, `${JSON.stringify(cmd.text)} deny=${JSON.stringify(deny)} → ${JSON.stringify(d)}`).not.toBe('allow');
        if (parseCommand(cmd.text).ok) expect(d?.behavior).toBe('deny');
      }
    }), { numRuns: 400 });
  });

  it('a command allowed by rules has every simple command covered by an allow rule', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rein-prop-'));
    await fc.assert(fc.asyncProperty(command, ruleList, async (cmd, allow) => {
      const k = await testKernel({ cwd, preset: { permissions: { allow: allow.map((s) => `Bash(${s})`) } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
      const d = await decide(k, 'Bash', { command: cmd.text });
      if (d?.behavior === 'allow') {
        for (const s of cmd.simples) expect(covered(allow, s), `${JSON.stringify(cmd.text)}: ${JSON.stringify(s)} allowed by ${JSON.stringify(allow)}`).toBe(true);
      }
    }), { numRuns: 300 });
  });
});
