/**
 * Path handling shared by the file tools: a path from the model is resolved against the session's
 * working directory (`~` means the home directory), and paths shown back to the model are relative
 * to that directory when they lie inside it (shorter, and what Grep and Glob print).
 */
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** The absolute, normalised path for `p` (absolute, `~/...`, or relative to `cwd`). */
export function resolveToolPath(cwd: string, p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return resolve(homedir(), p.slice(2));
  return isAbsolute(p) ? resolve(p) : resolve(cwd, p);
}

/** `abs` relative to `cwd` when it lies inside it, else `abs` itself. */
export function displayPath(cwd: string, abs: string): string {
  const prefix = cwd.endsWith(sep) ? cwd : cwd + sep;
  if (abs.startsWith(prefix) && abs.length > prefix.length && !abs.includes(`${sep}..`) && sep === '/') return abs.slice(prefix.length);
  const rel = relative(cwd, abs);
  if (rel === '') return '.';
  if (rel.startsWith('..') || isAbsolute(rel)) return abs;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/** Node's errno code of an error, if any (`ENOENT`, `EACCES`, ...). */
export function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}
