/**
 * One writer per session: a lock file beside the transcript (`<transcript>.lock`), created with
 * O_EXCL and holding who owns it (`{ pid, host, startedAt, procStart, nonce }`).
 *
 * A lock whose holder is gone does not block anyone: on the same host the holder's pid is checked
 * (`kill(pid, 0)`; on Linux also the process's start time from `/proc/<pid>/stat`, so a reused pid
 * is not taken for the holder), and a lock of a dead holder is moved aside and replaced. A holder
 * on another host (a shared file system) cannot be checked, so its lock is respected and the error
 * says how to remove it.
 *
 * Within one process a lock is re-entrant (counted): two kernels of one program may open the same
 * session, as a program that resumes a session it just ran does. Locks still held when the process
 * exits are removed by an `exit` handler.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

/** What a lock file holds. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  startedAt: string;
  /** The holder's start time in clock ticks since boot (`/proc/<pid>/stat` field 22), when known. */
  procStart?: string;
  /** Tells one lock file from another with the same pid. */
  nonce: string;
}

/** The lock is held by a live process. */
export class SessionLockedError extends Error {
  override name = 'SessionLockedError';
  constructor(message: string, readonly holder: LockHolder | undefined, readonly lockFile: string) {
    super(message);
  }
}

/** Locks this process holds: lock file → count and content. */
const held = new Map<string, { count: number; holder: LockHolder }>();
let exitHandler = false;

/** The start time of a process (Linux), or undefined where /proc is not there. */
function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count from its end.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    return typeof v?.pid === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** True when the holder is a running process, or cannot be checked (another host). */
function alive(h: LockHolder): boolean {
  if (h.host !== hostname()) return true;
  // This process holds none but what `held` lists: a lock with its pid is an earlier process's.
  if (h.pid === process.pid) return false;
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (h.procStart !== undefined) {
    const now = procStart(h.pid);
    if (now !== undefined && now !== h.procStart) return false; // the pid was reused
  }
  return true;
}

/** One line naming the holder, for errors. */
export function describeHolder(h: LockHolder | undefined): string {
  if (!h) return 'another rein process';
  // A lock file written by hand (or by another tool) may lack what rein writes.
  const host = typeof h.host === 'string' && h.host !== hostname() ? ` on ${h.host}` : '';
  return `rein process ${h.pid}${host}${typeof h.startedAt === 'string' ? ` (since ${h.startedAt})` : ''}`;
}

/**
 * Takes the lock `file` for this process. Throws SessionLockedError when a live process holds it,
 * and the file system's error when the lock cannot be created (a read-only directory, say).
 */
export function acquireLock(file: string, what: string): void {
  const mine = held.get(file);
  if (mine) { mine.count++; return; }
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), procStart: procStart(process.pid), nonce: randomUUID() };
  const body = JSON.stringify(holder) + '\n';
  let unreadable = 0;
  for (let attempt = 0; attempt < 10; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const other = readHolder(file);
      if (other && alive(other)) {
        // A lock that names no host was not written by rein: it cannot say whose the pid is.
        const how = typeof other.host !== 'string'
          ? `; if pid ${other.pid} is no rein process, delete ${file}`
          : other.host !== hostname()
            ? `; if no rein runs there any more, delete ${file}`
            : `; wait for it to end, or stop it (kill ${other.pid})`;
        throw new SessionLockedError(`${what} is in use by ${describeHolder(other)}${how}`, other, file);
      }
      // Unreadable: being written this instant (wait a little), or left half-written by a crash.
      if (!other && ++unreadable < 4) { sleepMs(20); continue; }
      breakStale(file, other);
      continue;
    }
    try {
      writeSync(fd, body);
    } finally {
      closeSync(fd);
    }
    held.set(file, { count: 1, holder });
    if (!exitHandler) {
      exitHandler = true;
      process.on('exit', () => { for (const f of held.keys()) removeIfOurs(f); held.clear(); });
    }
    return;
  }
  throw new SessionLockedError(`${what} is in use by another rein process (its lock ${file} keeps changing)`, undefined, file);
}

/** Releases one hold of `file`; the file goes with the last one. */
export function releaseLock(file: string): void {
  const mine = held.get(file);
  if (!mine) return;
  if (--mine.count > 0) return;
  held.delete(file);
  removeIfOurs(file, mine.holder);
}

function removeIfOurs(file: string, holder?: LockHolder): void {
  const h = holder ?? readHolder(file);
  const now = readHolder(file);
  if (!now || !h || now.nonce !== h.nonce) return;
  try { unlinkSync(file); } catch { /* already gone */ }
}

/**
 * Removes the lock of a dead holder. It is renamed aside first (atomic): of several processes
 * breaking the same lock, one renames it; if what was renamed is not the stale lock (a new holder
 * took it meanwhile), it is put back.
 */
function breakStale(file: string, stale: LockHolder | undefined): void {
  const aside = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.stale`;
  try {
    renameSync(file, aside);
  } catch {
    return; // gone already: someone else broke it
  }
  const moved = readHolder(aside);
  if (moved && moved.nonce !== stale?.nonce && alive(moved)) {
    try { linkSync(aside, file); } catch { /* a third process holds it now */ }
  }
  try { unlinkSync(aside); } catch { /* removed */ }
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
