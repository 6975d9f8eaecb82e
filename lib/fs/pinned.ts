/**
 * Opening exactly the file a permission decision judged. Between the check and the open, a path
 * can change under the tool (a symlink swapped in by a concurrent command or a slow hook): a tool
 * that opens the path again follows whatever is there now. So a file tool opens the *resolved*
 * path it was allowed (`ResolvedPath.real`) once, makes sure the descriptor is that file, and then
 * reads and writes only through the descriptor:
 *
 * - the last component is opened with O_NOFOLLOW, so a symlink put there is refused (ELOOP);
 * - the directories on the way are checked through the descriptor itself: on Linux,
 *   `/proc/self/fd/N` names the file a descriptor really refers to (proc(5)), and it must be the
 *   judged path;
 * - a write never creates or truncates anything before that check: the parent directory is opened
 *   and checked first, and the file is opened inside it through `/proc/self/fd/<dir>/<name>`, which
 *   resolves to the checked directory even if its path is swapped afterwards (the effect of
 *   `openat(2)`, which Node does not offer). Missing parent directories are created the same way,
 *   one level at a time.
 *
 * Where `/proc/self/fd` is missing (not Linux), the checks fall back to comparing the opened file's
 * device and inode with the judged path's, which narrows the window but cannot close it.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, type Stats } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { ResolvedPath } from './resolve.js';

/** The opened file is not the one the permission decision was about (it changed in between), or is not a plain file. */
export class PathChangedError extends Error {
  constructor(readonly path: string, why: string) {
    super(`${path} changed after the permission check (${why}), so it was not opened. Check the path and try again.`);
    this.name = 'PathChangedError';
  }
}

const PROC_FD = '/proc/self/fd';
let procFd: boolean | undefined;
/** True when `/proc/self/fd` names descriptors (Linux). */
function hasProcFd(): boolean {
  return (procFd ??= existsSync(PROC_FD));
}

function fdPath(fd: number): string {
  return `${PROC_FD}/${fd}`;
}

/** What the descriptor really refers to (Linux), or undefined when that cannot be told. */
export function descriptorPath(fd: number): string | undefined {
  if (!hasProcFd()) return undefined;
  try {
    return readlinkSync(fdPath(fd));
  } catch {
    return undefined;
  }
}

/** Throws PathChangedError unless `fd` is the file at `expected`. */
function verify(fd: number, expected: string, st: Stats): void {
  if (hasProcFd()) {
    const actual = descriptorPath(fd);
    if (actual !== expected) throw new PathChangedError(expected, `it now leads to ${actual ?? 'an unknown file'}`);
    return;
  }
  let now: Stats;
  try {
    now = lstatSync(expected);
  } catch {
    throw new PathChangedError(expected, 'it is gone');
  }
  if (now.dev !== st.dev || now.ino !== st.ino) throw new PathChangedError(expected, 'another file is there now');
}

function openChecked(path: string, flags: number, expected: string, mode?: number): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new PathChangedError(expected, 'it is a symbolic link now');
    // O_DIRECTORY with O_NOFOLLOW on a link fails with ENOTDIR.
    if (code === 'ENOTDIR' && flags & constants.O_DIRECTORY) throw new PathChangedError(expected, 'it is no longer a directory (a symbolic link?)');
    throw err;
  }
  try {
    verify(fd, expected, fstatSync(fd));
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** `target` as a path and the file it must still be (when it existed at resolution). */
function parts(target: ResolvedPath | string): { real: string; identity?: { dev: number; ino: number }; absent: boolean } {
  return typeof target === 'string' ? { real: target, absent: false } : { real: target.real, identity: target.identity, absent: !target.exists };
}

/** Throws PathChangedError when the opened file is not the one resolved (another inode: replaced, or a hard link put there). */
function sameFile(fd: number, real: string, identity: { dev: number; ino: number } | undefined, absent: boolean): void {
  const st = fstatSync(fd);
  if (identity && (st.dev !== identity.dev || st.ino !== identity.ino)) throw new PathChangedError(real, 'another file was put in its place');
  if (absent && st.isFile()) throw new PathChangedError(real, 'it did not exist when the permission was checked');
}

/**
 * Opens `target` (a ResolvedPath, or an absolute fully resolved path) for reading and checks that
 * the descriptor is that file: the same path and, when it existed at resolution, the same inode.
 * Non-blocking, so a FIFO swapped in cannot hang the call. Throws PathChangedError, or the open's
 * own error (ENOENT, EACCES, ...). The caller closes the descriptor.
 */
export function openResolvedForRead(target: ResolvedPath | string): number {
  const { real, identity, absent } = parts(target);
  const fd = openChecked(real, constants.O_RDONLY | constants.O_NONBLOCK, real);
  try {
    sameFile(fd, real, identity, absent);
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** Opens the directory `dir` (absolute, resolved, existing) and checks it is that directory. */
function openDir(path: string, expected: string): number {
  return openChecked(path, constants.O_RDONLY | constants.O_DIRECTORY, expected);
}

export interface WriteOpen {
  /** The descriptor, open for writing (and reading with `read: true`). */
  fd: number;
  /** True when the file did not exist and was created. */
  created: boolean;
  /** The file's state once opened (before anything was written). */
  stat: Stats;
}

/**
 * Opens `target` (a ResolvedPath, or an absolute fully resolved path) for writing without
 * following any link that appeared since it was resolved, and, when the file existed then, only
 * if it is still the same file: its deepest existing ancestor is opened and checked, missing
 * directories are created inside it one at a time, and the file is opened in the checked
 * directory with O_NOFOLLOW. Nothing is created or truncated before the checks pass; the file is
 * not truncated at all (the caller truncates through the descriptor).
 *
 * `create`: `false` to require an existing file, `'new'` to require that it does not exist yet,
 * `true` for either. `mkdirs`: create missing parent directories. A file with more than one hard
 * link is refused: writing it would change the same bytes under another name, possibly outside
 * the working directories.
 *
 * Throws PathChangedError, or the open's own error (ENOENT without `create`, EEXIST with `'new'`).
 */
export function openResolvedForWrite(target: ResolvedPath | string, opts: { create: boolean | 'new'; mkdirs?: boolean; read?: boolean }): WriteOpen {
  const { real, identity } = parts(target);
  const parent = dirname(real);
  const name = basename(real);
  // The deepest existing ancestor, and the directories to create below it.
  const missing: string[] = [];
  let anchor = parent;
  while (!existsSync(anchor)) {
    if (!opts.mkdirs) throw Object.assign(new Error(`ENOENT: no such directory, '${parent}'`), { code: 'ENOENT' });
    missing.unshift(basename(anchor));
    const up = dirname(anchor);
    if (up === anchor) break;
    anchor = up;
  }
  const access = opts.read ? constants.O_RDWR : constants.O_WRONLY;
  if (!hasProcFd()) return writeWithoutProc(real, parent, access, opts, identity);
  let dir = openDir(anchor, anchor);
  try {
    let dirPath = anchor;
    for (const c of missing) {
      const p = join(fdPath(dir), c);
      try {
        mkdirSync(p);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      dirPath = dirPath === sep ? `${sep}${c}` : `${dirPath}${sep}${c}`;
      const next = openDir(p, dirPath);
      closeSync(dir);
      dir = next;
    }
    const { fd, created } = openFile(join(fdPath(dir), name), access, real, opts.create);
    return finish(fd, real, created, identity);
  } finally {
    closeSync(dir);
  }
}

/** Opens (or creates, as `create` says) the file at `path` with O_NOFOLLOW, checked to be `real`. */
function openFile(path: string, access: number, real: string, create: boolean | 'new'): { fd: number; created: boolean } {
  if (create === false) return { fd: openChecked(path, access, real), created: false };
  try {
    return { fd: openChecked(path, access | constants.O_CREAT | constants.O_EXCL, real, 0o666), created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || create === 'new') throw err;
    return { fd: openChecked(path, access, real), created: false };
  }
}

function finish(fd: number, real: string, created: boolean, identity: { dev: number; ino: number } | undefined): WriteOpen {
  const stat = fstatSync(fd);
  const replaced = !created && identity && (stat.dev !== identity.dev || stat.ino !== identity.ino);
  const why = !stat.isFile() ? 'it is not a regular file'
    : stat.nlink > 1 ? `it has ${stat.nlink} hard links, so writing it would change another name too`
      : replaced ? 'another file was put in its place' : undefined;
  if (why) {
    closeSync(fd);
    throw new PathChangedError(real, why);
  }
  return { fd, created, stat };
}

/** The fallback where descriptors cannot be named: create parents, open with O_NOFOLLOW, compare inodes. */
function writeWithoutProc(real: string, parent: string, access: number, opts: { create: boolean | 'new'; mkdirs?: boolean }, identity: { dev: number; ino: number } | undefined): WriteOpen {
  if (opts.mkdirs) mkdirSync(parent, { recursive: true });
  const { fd, created } = openFile(real, access, real, opts.create);
  return finish(fd, real, created, identity);
}
