/**
 * Where a path really leads. A check that looks at the path as written, or that resolves only the
 * part of it that exists, is fooled by symbolic links: a link whose target does not exist yet (a
 * "dangling" link, which a cloned repository can contain) passes as a plain new file, and the
 * write then follows it (Linux `open(2)` with O_CREAT creates the target). So a path is resolved
 * here the way the kernel resolves it when a file is opened (path_resolution(7)): component by
 * component from the root, every symbolic link read with `readlink` and followed, including the
 * last component and a dangling one, and `..` taken from where the walk really is (after a link,
 * that is the parent of the link's target, not of the link).
 *
 * Components that do not exist are kept as written: that is where a create would put them.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { ResolvedPath } from '../../kernel/index.js';

export type { ResolvedPath };

/**
 * Most symbolic links one resolution follows before giving up, as Linux does (MAXSYMLINKS = 40,
 * path_resolution(7)); past it the path is reported as a loop.
 */
export const MAX_SYMLINK_HOPS = 40;


/**
 * Makes `p` absolute without normalising it: `~` and `~/` are the home directory, a relative path
 * is joined to `cwd`. `..` is left in place for resolvePath, which must take it after links.
 */
export function joinPath(p: string, cwd: string, home = homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return `${home}/${p.slice(2)}`;
  return isAbsolute(p) ? p : `${cwd}${sep}${p}`;
}

/**
 * Resolves `path` (absolute, or relative to `cwd`; `~/` for the home directory) with lstat and
 * readlink on every component. Never throws: a component that cannot be examined ends the walk,
 * with `error` set.
 */
export function resolvePath(path: string, cwd = process.cwd(), home = homedir()): ResolvedPath {
  const raw = joinPath(path, cwd, home);
  const written = resolve(raw);
  const links: string[] = [];
  let todo = raw.split(sep);
  let at: string = sep;
  let missing = false;
  let hops = 0;
  let last: { dev: number; ino: number } | undefined;
  while (todo.length) {
    const c = todo.shift()!;
    if (c === '' || c === '.') continue;
    if (c === '..') { at = dirname(at); last = undefined; continue; }
    const next = join(at, c);
    if (missing) { at = next; continue; }
    let st;
    try {
      st = lstatSync(next);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') { missing = true; at = next; continue; }
      return { written, links, real: join(next, ...todo), exists: false, error: `cannot examine ${next}: ${code ?? (err as Error).message}` };
    }
    if (!st.isSymbolicLink()) {
      at = next;
      last = st;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) {
      return { written, links, real: join(next, ...todo), exists: false, error: `more than ${MAX_SYMLINK_HOPS} symbolic links (a loop?) at ${next}` };
    }
    let target: string;
    try {
      target = readlinkSync(next);
    } catch (err) {
      return { written, links, real: join(next, ...todo), exists: false, error: `cannot read the link ${next}: ${(err as Error).message}` };
    }
    links.push(next);
    last = undefined;
    if (isAbsolute(target)) at = sep;
    todo = [...target.split(sep), ...todo];
  }
  const exists = !missing;
  return exists && last && at !== sep ? { written, links, real: at, exists, identity: { dev: last.dev, ino: last.ino } } : { written, links, real: at, exists };
}

/** The distinct paths a check must judge for `r`: as written, every link on the way, and the real target. */
export function pathForms(r: ResolvedPath): string[] {
  const out = [r.written];
  for (const p of [...r.links, r.real]) if (!out.includes(p)) out.push(p);
  return out;
}
