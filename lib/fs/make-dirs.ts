/**
 * `mkdir -p` that always ends. Node's `mkdir(dir, { recursive: true })` (v20, and v22 the same)
 * hangs forever under a file system that answers ENOENT to a mkdir whose parent exists, as procfs
 * does (`/proc/x/y`): the native walk reads ENOENT as "the parent is missing", makes the parent
 * (EEXIST, taken as success) and tries the child again, without end. Public reports of the loop:
 * https://github.com/Kewton/CommandMate/issues/1774 (Node 18 and 22, procfs), and the same walk in
 * another runtime, https://github.com/oven-sh/bun/pull/36162.
 *
 * Here the folders that are missing are found first by `stat`, going up, and then made one level at
 * a time with a plain `mkdir`, top down: each mkdir is tried once, so an ENOENT where the parent was
 * just seen to exist is the answer, thrown as is.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Makes the folder `dir` and every missing folder above it; does nothing when it already is a
 * folder. Throws the errno error of the first step that fails, with `path` set to the folder it was
 * about: ENOTDIR when a part of the path is a file; EACCES / EPERM / EROFS when a folder cannot be
 * made there; ENOENT when the file system refuses a new entry although its parent exists (procfs,
 * sysfs); EEXIST never (a folder made meanwhile by another process is taken as made).
 */
export async function makeDirs(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = resolve(dir); ; ) {
    let isDir: boolean;
    try {
      isDir = (await stat(d)).isDirectory();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.push(d);
      const up = dirname(d);
      // The root does not exist: nothing above it to make.
      if (up === d) throw err;
      d = up;
      continue;
    }
    if (!isDir) throw notDir(d);
    break;
  }
  for (const d of missing.reverse()) {
    try {
      await mkdir(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!(await stat(d)).isDirectory()) throw notDir(d);
    }
  }
}

/** The error mkdir gives where a part of the path is a file. */
function notDir(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path, syscall: 'mkdir' });
}
