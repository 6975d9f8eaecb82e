/**
 * Errors that mean "the input was wrong, nothing ran": printed as their message alone (one line per
 * problem) with exit code 2. Anything else is a bug and keeps its stack.
 */
const INPUT_ERRORS = new Set(['PresetError', 'PluginError', 'SessionError', 'ScenarioError', 'InputError']);

import { statusLine } from '../../lib/index.js';

export { InputError } from '../../lib/errors.js';

/** True for errors that describe bad input rather than a fault in rein. */
export function isInputError(err: unknown): err is Error {
  return err instanceof Error && INPUT_ERRORS.has(err.name);
}

/** Writes an input error to stderr, each line prefixed with `rein: `. */
export function printInputError(err: Error): void {
  const lines = err.message.split('\n').filter(Boolean);
  // Messages can quote what a file or transcript holds: control characters are escaped.
  process.stderr.write(lines.map((l) => `rein: ${statusLine(l)}`).join('\n') + '\n');
}
