/** `${VAR}` interpolation: values, defaults, escapes, and the errors with their offsets. */
import { describe, expect, it } from 'vitest';
import { interpolateString } from '../interpolate.js';

describe('interpolateString', () => {
  const env = { NAME: 'rein', EMPTY: '', PATH_PART: '/usr/bin' };

  it('substitutes set variables, anywhere in the string', () => {
    expect(interpolateString('hello ${NAME}!', env)).toEqual({ value: 'hello rein!', problems: [] });
    expect(interpolateString('${NAME}${NAME}', env).value).toBe('reinrein');
  });

  it('uses the default when the variable is unset or empty (shell :- semantics)', () => {
    expect(interpolateString('${MISSING:-fallback}', env).value).toBe('fallback');
    expect(interpolateString('${EMPTY:-fallback}', env).value).toBe('fallback');
    expect(interpolateString('${NAME:-fallback}', env).value).toBe('rein');
    expect(interpolateString('${MISSING:-}', env).value).toBe('');
  });

  it('keeps $$ escapes and a lone $ literal', () => {
    expect(interpolateString('$${NAME} costs $5', env).value).toBe('${NAME} costs $5');
    expect(interpolateString('Bash(echo $HOME)', env).value).toBe('Bash(echo $HOME)');
  });

  it('reports an unset variable without a default, with the offset of its ${', () => {
    const r = interpolateString('a ${NOPE} b', env);
    expect(r.value).toBe('a ${NOPE} b');
    expect(r.problems).toEqual([{ index: 2, variable: 'NOPE', message: 'environment variable NOPE is not set and has no default (set it, or write ${NOPE:-default})' }]);
  });

  it('reports malformed references', () => {
    expect(interpolateString('${1X}', env).problems[0]?.message).toMatch(/is not a variable reference/);
    expect(interpolateString('${}', env).problems[0]?.message).toMatch(/is not a variable reference/);
    expect(interpolateString('x ${NAME', env).problems).toEqual([{ index: 2, message: 'unterminated "${" (write "$${" for a literal "${")' }]);
  });

  it('never changes the type: the result is a string', () => {
    expect(typeof interpolateString('${N:-42}', {}).value).toBe('string');
  });
});
