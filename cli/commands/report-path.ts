/**
 * Report paths (`--json FILE`, `--html FILE`) checked before the work that fills them: a replay or
 * an agent run takes minutes, and its report would otherwise be lost at the end.
 */
import { open, stat, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InputError } from '../../lib/errors.js';
import { makeDirs } from '../../lib/fs/make-dirs.js';

/**
 * Checks before a replay that `--json` and `--html` name files rein can write: a replay takes
 * minutes, and its report would otherwise be lost to a path that is a folder or under one that
 * cannot be made or written. Creates the missing parent folders (makeDirs: Node's recursive mkdir
 * never returns under /proc). Whether the file can be written is tried, not asked of `access(2)`:
 * for root, access says yes to a folder of a read-only or immutable file system and to /sys, where
 * the write then fails. So an existing file is opened for writing without truncating it, and a new
 * one is created and removed again. `-` is stdout (one of the two at most). Throws InputError naming
 * the flag, the path and why.
 */
export async function checkOutputs(flags: { json?: string; html?: string }): Promise<void> {
  if (flags.json === '-' && flags.html === '-') throw new InputError('--json - and --html -: only one report can go to stdout; give the other a file name');
  for (const [flag, path] of [['--json', flags.json], ['--html', flags.html]] as const) {
    if (!path || path === '-') continue; // stdout
    const file = resolve(path);
    let st;
    try {
      st = await stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw cannotWrite(flag, path, err);
    }
    if (st?.isDirectory()) throw new InputError(`${flag} ${path}: a folder; give the report's file name`);
    try {
      await makeDirs(dirname(file));
      if (st) {
        await (await open(file, 'r+')).close();
      } else {
        await (await open(file, 'wx')).close();
        await unlink(file);
      }
    } catch (err) {
      throw cannotWrite(flag, path, err);
    }
  }
}

/** The one-line error for a report path that cannot be written: the flag, the path as given, and why. */
function cannotWrite(flag: string, path: string, err: unknown): InputError {
  const e = err as NodeJS.ErrnoException;
  const at = e.path && e.path !== resolve(path) ? ` (at ${e.path})` : '';
  const why = e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS' ? `permission denied${at}`
    : e.code === 'ENOTDIR' || e.code === 'EEXIST' ? 'a part of the path is a file, not a folder'
      : e.code === 'ENOENT' && e.syscall === 'mkdir' ? `the file system does not allow a new folder${at}`
        : e.code === 'ENOENT' ? `the file system does not allow a new file there`
          : e.message;
  return new InputError(`${flag} ${path}: cannot write the report there: ${why}`);
}
