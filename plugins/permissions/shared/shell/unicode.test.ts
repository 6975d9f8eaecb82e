/**
 * Words with characters outside ASCII reach the rules as written: the parser's Go strings are
 * UTF-8 bytes, decoded here (ast.ts), so `é`, `ｘ` or a zero-width joiner in a command, a
 * redirection target or an argument is compared as the text the user wrote and bash runs.
 */
import { describe, expect, it } from 'vitest';
import { parseCommand } from './parse.js';

describe('non-ASCII words', () => {
  it.each([
    ["echo planted > '.g\u200cit/config'", 'echo planted', ['.g\u200cit/config'], []],
    ['cat données.txt', "cat 'données.txt'", [], ['données.txt']],
    ['echo é > "é"', "echo 'é'", ['é'], ['é']],
    ['sed -n p \uff0eenv', "sed -n p '\uff0eenv'", [], ['-n', 'p', '\uff0eenv']],
  ])('%j', (command, allow, writes, args) => {
    const p = parseCommand(command);
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    expect(p.parts[0]!.allow).toBe(allow);
    expect(p.parts[0]!.writes.map((w) => w.value)).toEqual(writes);
    if (args.length) expect(p.parts[0]!.args?.map((w) => w.value)).toEqual(args);
  });
});
