/** Parsers for option values shared by the commands in this folder (commander's argParser). */
import { InvalidArgumentError } from 'commander';

/** A whole number ≥ 1; commander prints the error with the usage. */
export function positiveInt(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer.`);
  return n;
}
