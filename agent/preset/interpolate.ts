/**
 * `${VAR}` and `${VAR:-default}` in preset strings, read from the environment at load time.
 *
 * - `${VAR}`: the variable's value; an error when it is unset.
 * - `${VAR:-default}`: the value, or `default` when VAR is unset or empty (shell semantics).
 * - `$${...}`: a literal `${...}`.
 * - A `$` not followed by `{` is kept as is (`Bash(echo $HOME)` stays a rule about `$HOME`).
 *
 * The result is always a string: interpolation never turns text into a number or a boolean.
 */

/** One problem found while interpolating a string. `index` is the offset of `${` in the input. */
export interface InterpolationProblem {
  index: number;
  message: string;
  /** The variable name, when the problem is an unset variable. */
  variable?: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Interpolates one string. Returns the new string and the problems (unset variables, bad syntax);
 * with problems, the returned string has the offending references left as written.
 */
export function interpolateString(input: string, env: Record<string, string | undefined>): { value: string; problems: InterpolationProblem[] } {
  if (!input.includes('${')) return { value: input, problems: [] };
  const problems: InterpolationProblem[] = [];
  let out = '';
  let i = 0;
  while (i < input.length) {
    const at = input.indexOf('$', i);
    if (at < 0) {
      out += input.slice(i);
      break;
    }
    out += input.slice(i, at);
    if (input.startsWith('$${', at)) {
      // Escape: `$${` is a literal `${`.
      out += '${';
      i = at + 3;
      continue;
    }
    if (input[at + 1] !== '{') {
      out += '$';
      i = at + 1;
      continue;
    }
    const close = input.indexOf('}', at + 2);
    if (close < 0) {
      problems.push({ index: at, message: `unterminated "\${" (write "$\${" for a literal "\${")` });
      out += input.slice(at);
      break;
    }
    const body = input.slice(at + 2, close);
    const sep = body.indexOf(':-');
    const name = sep < 0 ? body : body.slice(0, sep);
    if (!NAME.test(name)) {
      problems.push({ index: at, message: `"\${${body}}" is not a variable reference: expected \${NAME} or \${NAME:-default}, NAME made of letters, digits and _` });
      out += input.slice(at, close + 1);
    } else {
      const value = env[name];
      if (sep >= 0) {
        out += value === undefined || value === '' ? body.slice(sep + 2) : value;
      } else if (value === undefined) {
        problems.push({ index: at, variable: name, message: `environment variable ${name} is not set and has no default (set it, or write \${${name}:-default})` });
        out += input.slice(at, close + 1);
      } else {
        out += value;
      }
    }
    i = close + 1;
  }
  return { value: out, problems };
}
