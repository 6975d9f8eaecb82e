/**
 * Errors that mean the caller's input was wrong (a file that does not exist, a flag out of range),
 * as opposed to a fault in rein. The CLI prints their message alone and exits 2.
 */
export class InputError extends Error {
  override name = 'InputError';
}
