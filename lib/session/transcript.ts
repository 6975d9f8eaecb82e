/**
 * rein's session store (the kernel's `sessions` service, kernel/session.ts): one append-only JSONL
 * transcript per session.
 *
 * Location: `<root>/<project>/<sessionId>.jsonl`, where `<root>` is the preset's `session.dir`, else
 * `$REIN_HOME/sessions`, else `~/.rein/sessions`, and `<project>` is the working directory with every
 * non-alphanumeric character replaced by `-` (so sessions of one project sit together and
 * `--continue` finds the newest). Files a session saves beside its transcript (large tool outputs)
 * go in the folder named like the transcript without `.jsonl`. A transcript opened by path keeps
 * that path: its entries are appended to the file that was opened. A copy put beside the original
 * under another id's name (`cp X.jsonl Y.jsonl`) goes on as session Y; a link there to X's file
 * (`ln -s` or a hard link) goes on as X, through X's path and lock. A hard link from elsewhere keeps
 * its path and takes the lock of the session's own name in the sessions folder; one whose own name
 * cannot be found there is refused a lock (lockNameOf says why).
 *
 * Every entry is written (synchronously) before the kernel acts on it, so a process killed at any
 * point leaves a transcript that resumes: `replayMessages()` rebuilds the history and the loop
 * closes any tool_use left without a tool_result. A write the file system refuses (full disk,
 * read-only file system) throws TranscriptWriteError, and so does every later one.
 *
 * One writer at a time: a kernel that appends holds the session's lock (./lock.ts). Damaged lines
 * are named and skipped, and tool calls that lost their results (or results that lost their call)
 * with them are dropped from the replayed history; a damaged compacted history is refused with
 * the command that repairs it.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SessionError, type ContentBlock, type DamagedLine, type Message, type SessionLog, type SessionStore, type TranscriptEntry } from '../../kernel/index.js';
import { acquireLock, releaseLock, SessionLockedError } from './lock.js';

export { SessionError, type DamagedLine, type TranscriptEntry };

/**
 * The lock file of the transcript at `file`: beside the file the path leads to once symbolic links
 * are followed (`<real path>.lock`), so a link to a transcript from anywhere (`ln -s`, a linked
 * folder) takes the same lock as the transcript itself, and two processes cannot append to one file
 * through two paths. A file not yet created: its folder's real path. A hard link is another name of
 * the same file that no path resolution leads back from: Transcript.lock finds the session's own
 * name for it (lockNameOf).
 */
function lockFileOf(file: string): string {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    try {
      real = join(realpathSync(dirname(file)), basename(file));
    } catch {
      real = file;
    }
  }
  return `${real}.lock`;
}

/**
 * The name whose lock (lockFileOf) a transcript at `file` takes: `file` itself while it is the only
 * name of its file (one hard link, `st_nlink` 1), else the first of `ownNames` (the session's own
 * names in the sessions folder: `<root>/<project>/<id>.jsonl`) that is the same file (device and
 * inode). Undefined when the file has other hard links and none of them is among `ownNames`: its
 * other names cannot be found (a directory holds names, a file does not know them), so neither can
 * the lock a process writing through one of them holds.
 *
 * Why not a lock named by device and inode instead: it would have to live in one folder every
 * writer of the file agrees on, and there is none (the sessions root depends on REIN_HOME and the
 * preset; a hard link can be anywhere on the file system); on a file system shared between hosts
 * the device number differs from host to host, and an inode number is given to a new file once the
 * old one is deleted. The lock beside the session's own name is the one every rein finds already,
 * on any host and whatever the path it was given; a hard link whose session name cannot be found is
 * refused (Transcript.lock), which fails closed.
 */
function lockNameOf(file: string, ownNames: readonly string[]): string | undefined {
  let links: number;
  try {
    links = statSync(file).nlink;
  } catch {
    return file; // not created yet: a single name
  }
  if (links <= 1) return file;
  return ownNames.find((name) => sameFile(name, file));
}

/** The root directory of session transcripts (see the module comment). */
export function sessionsRoot(dir?: string): string {
  if (dir) return resolve(dir);
  if (process.env.REIN_HOME) return join(resolve(process.env.REIN_HOME), 'sessions');
  return join(homedir(), '.rein', 'sessions');
}

/** The per-project folder name for a working directory. */
export function projectSlug(cwd: string): string {
  return resolve(cwd).replace(/[^A-Za-z0-9]/g, '-');
}

/**
 * What a session id may be: 1 to 128 letters, digits and `-` (a UUID is one; the messages of
 * assertSessionId and Transcript.open name the 128). Anything else (`../x`, a path) is refused,
 * so an id can only name a transcript inside the sessions directory.
 */
export const SESSION_ID = /^[A-Za-z0-9-]{1,128}$/;

/** Bytes read at a time when only a transcript's first line (its header) is needed. */
const HEADER_READ_BYTES = 4_096;

/** What to do about a transcript rein cannot read: the end of its errors. */
const NOT_READABLE_HINT = 'move it out of the way, or resume another session with --resume ID';

/**
 * Whether two paths name the same file (after symbolic links; a hard link is the same file): same
 * device and inode. False when either cannot be stat'ed.
 */
function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** Throws SessionError unless `id` is a valid session id. */
export function assertSessionId(id: string, what = 'session id'): void {
  if (!SESSION_ID.test(id)) throw new SessionError(`${JSON.stringify(id)} is not a valid ${what}: use letters, digits and "-" only, at most 128 of them, or give the path of a .jsonl transcript`);
}

/**
 * The transcript stopped accepting writes (a full disk, a read-only file system, a size limit).
 * Once thrown, every later `append` throws it again: nothing is acted on that is not recorded.
 */
export class TranscriptWriteError extends Error {
  override name = 'TranscriptWriteError';
  constructor(readonly file: string, readonly code: string | undefined, cause: unknown) {
    super(`cannot write the session transcript ${file}: ${fsReason(cause)}`, { cause });
  }
}

/** Plain words for the file system errors a transcript write meets, with the code. */
export function fsReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const words: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'the disk quota is used up',
    EROFS: 'the file system is read-only',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EFBIG: 'the file would exceed the largest size allowed (ulimit -f)',
    EIO: 'an I/O error',
    ENOENT: 'the directory no longer exists',
    ENOTDIR: 'a part of the path is not a directory',
    ELOOP: 'a loop of symbolic links',
  };
  const w = e?.code ? words[e.code] : undefined;
  return w ? `${w} (${e.code})` : (e?.message ?? String(err));
}

const ENTRY_TYPES = new Set(['session', 'message', 'history', 'transition', 'response', 'plugin']);

function isBlock(b: unknown): b is ContentBlock {
  return !!b && typeof b === 'object' && typeof (b as { type?: unknown }).type === 'string';
}

function isMessage(m: unknown): m is Message {
  if (!m || typeof m !== 'object') return false;
  const { role, content } = m as { role?: unknown; content?: unknown };
  return (role === 'user' || role === 'assistant') && Array.isArray(content) && content.every(isBlock);
}

/** Why a parsed line is not an entry of the type it claims, or undefined when it is one. */
function shapeProblem(v: unknown): string | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return `a JSON ${v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v}, not an entry`;
  const e = v as Record<string, unknown>;
  if (typeof e.type !== 'string') return 'an object without a "type"';
  if (!ENTRY_TYPES.has(e.type)) return undefined; // a newer rein's entry: ignored
  switch (e.type) {
    case 'session': return typeof e.sessionId === 'string' ? undefined : 'a session header without a sessionId';
    case 'message': return isMessage(e.message) ? undefined : 'a message entry without a valid message (role and content blocks)';
    case 'history': return Array.isArray(e.messages) && e.messages.every(isMessage) ? undefined : 'a history entry whose messages are not valid';
    case 'transition': return e.transition && typeof e.transition === 'object' ? undefined : 'a transition entry without a transition';
    case 'response': return e.usage && typeof e.usage === 'object' ? undefined : 'a response entry without usage';
    case 'plugin': return typeof e.plugin === 'string' ? undefined : 'a plugin entry without a plugin name';
  }
  return undefined;
}

/** The transcript format this rein writes and reads (the header's `version`). */
const TRANSCRIPT_VERSION = 1;

/**
 * A warning when a transcript was written by a newer rein: a header `version` above
 * TRANSCRIPT_VERSION, or entries of types this rein does not know. Those entries are skipped (a
 * resume goes on without them), so the user is told the history may be incomplete; undefined
 * when neither applies.
 */
function newerFormat(head: TranscriptEntry, entries: readonly TranscriptEntry[]): string | undefined {
  const version = (head as { version?: unknown }).version;
  const unknown = [...new Set(entries.map((e) => (e as { type: string }).type).filter((type) => !ENTRY_TYPES.has(type)))];
  const newerVersion = typeof version === 'number' && version > TRANSCRIPT_VERSION;
  if (!newerVersion && !unknown.length) return undefined;
  const by = newerVersion ? `written by a newer rein (transcript format ${version}; this rein reads format ${TRANSCRIPT_VERSION})` : 'written by a newer rein';
  const skipped = unknown.length ? `its entries of kinds this rein does not know (${unknown.slice(0, 5).join(', ')}) were skipped` : 'what this rein does not know in it is skipped';
  return `${by}: ${skipped}, so the resumed history may lack what they held; update rein to resume it whole`;
}

export interface OpenOptions {
  cwd: string;
  root?: string;
  /**
   * Take the session's lock (one writer per session): a kernel that will append does. Default
   * false, for readers (`rein cache explain`, a resume looking up the session's preset).
   */
  lock?: boolean;
}

export class Transcript implements SessionLog {
  /** Directory for files the session keeps beside its transcript. */
  readonly dir: string;
  /** Lines of the file that could not be used (skipped), in order. */
  readonly damaged: DamagedLine[];
  /** What `replayMessages()` had to drop because of damaged lines, one sentence each. */
  readonly repairs: string[] = [];
  /** Warnings about the file as a whole, for stderr (a newer rein's format). */
  readonly notices: string[] = [];
  private writeError: TranscriptWriteError | undefined;
  /** The file ends without a newline (a write cut by a crash): the next append starts a new line. */
  private tornTail: boolean;
  /** Bytes in the file as this process knows it, so a write the file system cut short can be undone. */
  private size: number;
  /** The lock file this transcript holds, while it holds one (lockFileOf). */
  private heldLock: string | undefined;
  /**
   * The file, opened for appending (O_APPEND) on the first append and kept until close(): one
   * write per entry. Opening and closing the file for every entry (appendFileSync by path) was
   * three system calls per entry, about 6% of a replay's CPU in `rein bench` (CPU profile of
   * `npm run bench:replay-cpu -- --profile F`).
   */
  private fd: number | undefined;
  /** The session's own names in the sessions folder, where a hard link's lock is found (lockNameOf). */
  private ownNames: readonly string[] = [];

  /** `data` of the `plugin` entries read at open, by plugin, in order. */
  private readonly byPlugin = new Map<string, unknown[]>();
  /**
   * `plugin` entries appended since open, by plugin: how many. Their data is read back from the
   * file when asked for (`pluginData`), not kept: a plugin that records every request (the cache
   * break detector) would otherwise hold a session's worth of records in memory.
   */
  private readonly appendedPlugins = new Map<string, number>();
  /** Bytes of the file when it was opened: what was appended since starts here. */
  private readonly openedSize: number;
  private headerEntry: Extract<TranscriptEntry, { type: 'session' }> | undefined;
  private mainTurns = 0;

  /**
   * @param entries The entries read from the file when it was opened (none for a created
   *   transcript). Entries appended later go to the file only, not to this list: a long session's
   *   memory does not grow with everything it has written.
   */
  private constructor(
    readonly sessionId: string,
    /** Absolute path of the JSONL file: the one that was opened, whatever its name. */
    readonly file: string,
    readonly entries: readonly TranscriptEntry[],
    damaged: DamagedLine[] = [],
    tornTail = false,
    size = 0,
  ) {
    this.dir = file.endsWith('.jsonl') ? file.slice(0, -'.jsonl'.length) : `${file}.d`;
    this.damaged = damaged;
    this.tornTail = tornTail;
    this.size = size;
    this.openedSize = size;
    for (const e of entries) this.index(e, false);
  }

  /** Notes what `entry` adds to the session's state; `appended`: written by this process since open. */
  private index(entry: TranscriptEntry, appended: boolean): void {
    if (entry.type === 'plugin') {
      if (appended) {
        this.appendedPlugins.set(entry.plugin, (this.appendedPlugins.get(entry.plugin) ?? 0) + 1);
        return;
      }
      let list = this.byPlugin.get(entry.plugin);
      if (!list) this.byPlugin.set(entry.plugin, (list = []));
      list.push(entry.data);
    } else if (entry.type === 'response' && entry.source === 'main_loop') this.mainTurns++;
    else if (entry.type === 'session' && !this.headerEntry) this.headerEntry = entry;
  }

  /** The folder of the transcript (the project folder for transcripts rein named). */
  get projectDir(): string {
    return dirname(this.file);
  }

  /**
   * Starts a new transcript, takes its lock and writes its `session` header. Throws
   * TranscriptWriteError when the sessions folder or the file cannot be written; the lock and the
   * file's descriptor are let go of then.
   */
  static create(opts: { cwd: string; model: string; preset?: string; presetRef?: string; root?: string; sessionId?: string }): Transcript {
    if (opts.sessionId !== undefined) assertSessionId(opts.sessionId);
    const projectDir = join(sessionsRoot(opts.root), projectSlug(opts.cwd));
    const sessionId = opts.sessionId ?? randomUUID();
    const t = new Transcript(sessionId, join(projectDir, `${sessionId}.jsonl`), []);
    try {
      mkdirSync(projectDir, { recursive: true });
    } catch (err) {
      throw new TranscriptWriteError(t.file, (err as NodeJS.ErrnoException).code, err);
    }
    if (existsSync(t.file)) throw new SessionError(`session ${t.sessionId} already exists at ${t.file}; --resume ${t.sessionId} goes on with it, or leave out --session-id for a new session`);
    t.lock();
    try {
      t.append({ type: 'session', version: TRANSCRIPT_VERSION, sessionId: t.sessionId, cwd: resolve(opts.cwd), createdAt: new Date().toISOString(), model: opts.model, preset: opts.preset, ...(opts.presetRef ? { presetRef: opts.presetRef } : {}) });
    } catch (err) {
      t.close(); // nobody gets this transcript to close: a held lock would refuse the session to every later rein
      throw err;
    }
    return t;
  }

  /**
   * Opens an existing transcript by id, or by the path of a `.jsonl` file (appends then go to that
   * file, whatever its name). Throws SessionError when it does not exist, is not a rein transcript,
   * has a damaged compacted history (the message says how to repair it), or is locked by a live
   * process (`opts.lock`). Other damaged lines are skipped and listed in `damaged`.
   */
  static open(idOrPath: string, opts: OpenOptions): Transcript {
    const file = Transcript.fileOf(idOrPath, opts);
    const text = Transcript.readText(idOrPath, file);
    const entries: TranscriptEntry[] = [];
    const damaged: DamagedLine[] = [];
    const lines = text.split('\n');
    const tornTail = text.length > 0 && !text.endsWith('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!line.trim()) continue;
      const n = i + 1;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        if (/^\{"type":"history"/.test(line)) throw historyDamaged(file, n);
        const last = i === lines.length - 1 && tornTail;
        damaged.push({ line: n, problem: last ? 'the last line was cut off (the run that wrote it stopped mid-write)' : 'not valid JSON' });
        continue;
      }
      const problem = shapeProblem(value);
      if (problem) {
        if ((value as { type?: unknown })?.type === 'history') throw historyDamaged(file, n);
        damaged.push({ line: n, problem });
        continue;
      }
      entries.push(value as TranscriptEntry);
    }
    const head = entries[0];
    if (!head || head.type !== 'session' || damaged.some((d) => d.line === 1)) {
      throw new SessionError(`${file} is not a rein transcript (its first line is no session header); ${NOT_READABLE_HINT}`);
    }
    // The id names the session's lock and may name files beside it: it must not point elsewhere.
    if (typeof head.sessionId !== 'string' || !SESSION_ID.test(head.sessionId)) throw new SessionError(`${file} is not a rein transcript (its session id ${JSON.stringify(head.sessionId)} is not 1 to 128 letters, digits and "-")`);
    // A copy beside the original (`cp X.jsonl Y.jsonl` in the project's folder) goes on as session
    // Y: `rein -r Y` finds it, while `rein -r X` still finds X, so the id the run reports must be
    // Y's. A file elsewhere (a backup opened by path) keeps its header's id.
    // A link to the original (`ln -s X.jsonl Y.jsonl`, or a hard link) is not a copy: its appends
    // land in X's file, so it goes on as X, through X's path, under X's lock (one writer per file).
    const named = basename(file, '.jsonl');
    const projectDir = join(sessionsRoot(opts.root), projectSlug(opts.cwd));
    const beside = file === join(projectDir, `${named}.jsonl`);
    const original = join(projectDir, `${head.sessionId}.jsonl`);
    const linked = named !== head.sessionId && beside && sameFile(file, original);
    const copied = !linked && named !== head.sessionId && SESSION_ID.test(named) && beside;
    const t = new Transcript(copied ? named : head.sessionId, linked ? original : file, entries, damaged, tornTail, Buffer.byteLength(text));
    if (copied) t.notices.push(`its header names session ${head.sessionId}, so it is a copy of that session; it goes on as session ${named}, its file's name`);
    // Notices are printed after the transcript's path, which is now the original's: name the link.
    if (linked) t.notices.push(`${named}.jsonl is a link to this transcript, not a copy, so it goes on as session ${head.sessionId} (cp makes a copy that goes on as a session of its own)`);
    const newer = newerFormat(head, entries);
    if (newer) t.notices.push(newer);
    // Where the session was created (its header's cwd) and where it is resumed from.
    const root = sessionsRoot(opts.root);
    t.ownNames = [...new Set([join(projectDir, `${t.sessionId}.jsonl`), ...(typeof head.cwd === 'string' ? [join(root, projectSlug(head.cwd), `${t.sessionId}.jsonl`)] : [])])];
    if (opts.lock) t.lock();
    return t;
  }

  /** Absolute path of the file `idOrPath` names: a session id under the sessions root, or a `.jsonl` path. Throws SessionError for an id that is not one. */
  private static fileOf(idOrPath: string, opts: { cwd: string; root?: string }): string {
    if (!idOrPath.endsWith('.jsonl')) assertSessionId(idOrPath);
    return idOrPath.endsWith('.jsonl') ? resolve(opts.cwd, idOrPath) : join(sessionsRoot(opts.root), projectSlug(opts.cwd), `${idOrPath}.jsonl`);
  }

  /** The whole file as text. Throws SessionError when it is missing, not a file, or unreadable. */
  private static readText(idOrPath: string, file: string): string {
    try {
      if (!statSync(file).isFile()) throw new SessionError(`${file} is not a file (a directory, a FIFO or a device); ${NOT_READABLE_HINT}`);
      return readFileSync(file, 'utf8');
    } catch (err) {
      if (err instanceof SessionError) throw err;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new SessionError(`no session ${idOrPath} (looked for ${file})`);
      throw new SessionError(`cannot read the session transcript ${file}: ${fsReason(err)}; ${NOT_READABLE_HINT}`);
    }
  }

  /**
   * The `session` header of a transcript, from its first line only: what a resume needs to know
   * before the history is read (the preset it was started with), without parsing the history.
   * Falls back to a full `open` (and its errors) when the first line is not a whole, valid header.
   * Takes no lock. Throws SessionError as `open` does.
   */
  static readHeader(idOrPath: string, opts: { cwd: string; root?: string }): Extract<TranscriptEntry, { type: 'session' }> {
    const file = Transcript.fileOf(idOrPath, opts);
    let first: string | undefined;
    try {
      // Only a regular file is opened here: opening a FIFO would block until a writer comes, with
      // no way to stop rein (not even a signal). open() names what else it is.
      if (!statSync(file).isFile()) throw new SessionError(`${file} is not a file`);
      const fd = openSync(file, 'r');
      try {
        // Headers are a few hundred bytes; read on until the first newline in case one is longer.
        const chunks: Buffer[] = [];
        const buf = Buffer.alloc(HEADER_READ_BYTES);
        for (let n: number; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) {
          const nl = buf.subarray(0, n).indexOf(0x0a);
          chunks.push(Buffer.from(buf.subarray(0, nl === -1 ? n : nl)));
          if (nl !== -1) { first = Buffer.concat(chunks).toString('utf8'); break; }
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      // open() names what is wrong with the file
    }
    if (first !== undefined) {
      try {
        const head = JSON.parse(first) as TranscriptEntry;
        if (!shapeProblem(head) && head.type === 'session' && typeof head.sessionId === 'string' && SESSION_ID.test(head.sessionId)) return head;
      } catch {
        // a damaged first line: open() says so
      }
    }
    return Transcript.open(idOrPath, opts).header;
  }

  /**
   * The newest entry `pick` accepts (its value), parsing the file's lines from the end and stopping
   * at the first hit, so a resume can read the last checkpoint without parsing the whole history.
   * Lines that are not valid JSON are skipped. Takes no lock. Returns undefined when no entry
   * matches. Throws SessionError when the file is missing or unreadable.
   */
  static findLast<T>(idOrPath: string, opts: { cwd: string; root?: string }, pick: (entry: TranscriptEntry) => T | undefined): T | undefined {
    const file = Transcript.fileOf(idOrPath, opts);
    const text = Transcript.readText(idOrPath, file);
    for (let end = text.length; end > 0;) {
      const start = text.lastIndexOf('\n', end - 1) + 1;
      const line = text.slice(start, end);
      end = start - 1;
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (shapeProblem(value)) continue;
      const hit = pick(value as TranscriptEntry);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }

  /**
   * A new session that goes on from an existing one (`--fork-session`): a new id (or `sessionId`),
   * and every entry of the old transcript after its header, so the fork replays the same history
   * and plugin state. The old transcript is not changed. `forkedFrom` is the session as opened (a
   * copy beside its original is its own session: the copy's id, not the id its header names).
   */
  static fork(idOrPath: string, opts: { cwd: string; root?: string; sessionId?: string }): Transcript {
    if (opts.sessionId !== undefined) assertSessionId(opts.sessionId);
    const from = Transcript.open(idOrPath, opts);
    const head = from.header;
    const sessionId = opts.sessionId ?? randomUUID();
    const t = new Transcript(sessionId, join(sessionsRoot(opts.root), projectSlug(opts.cwd), `${sessionId}.jsonl`), []);
    mkdirSync(t.projectDir, { recursive: true });
    if (existsSync(t.file)) throw new SessionError(`session ${t.sessionId} already exists at ${t.file}`);
    try {
      t.append({ ...head, sessionId: t.sessionId, cwd: resolve(opts.cwd), createdAt: new Date().toISOString(), forkedFrom: from.sessionId });
      for (const e of from.entries.slice(1)) t.append(e);
    } finally {
      t.close(); // the caller opens the fork as a session of its own; a later append here opens the file again
    }
    return t;
  }

  /**
   * The id of the newest session for `cwd`, or undefined. An empty file (0 bytes: a run that could
   * not write even its header, on a full disk, or was killed before it) holds no session and is
   * passed over for the newest one that has content, so `--continue` goes on with the last
   * conversation; when every file is empty, the newest is returned and opening it says what to do.
   */
  static latest(opts: { cwd: string; root?: string }): string | undefined {
    const dir = join(sessionsRoot(opts.root), projectSlug(opts.cwd));
    if (!existsSync(dir)) return undefined;
    let best: { id: string; mtime: number } | undefined;
    let bestEmpty: { id: string; mtime: number } | undefined;
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.jsonl') || !SESSION_ID.test(name.slice(0, -6))) continue;
      const file = join(dir, name);
      let mtime: number;
      let empty: boolean;
      try {
        const st = statSync(file);
        mtime = st.mtimeMs;
        empty = st.isFile() && st.size === 0;
      } catch (err) {
        // A symbolic link to nothing (or to itself) is named, not taken for a bug in rein.
        throw new SessionError(`cannot read the session transcript ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'it is a symbolic link to a file that does not exist (ENOENT)' : fsReason(err)}; ${NOT_READABLE_HINT}`);
      }
      if (empty) {
        if (!bestEmpty || mtime > bestEmpty.mtime) bestEmpty = { id: name.slice(0, -6), mtime };
      } else if (!best || mtime > best.mtime) best = { id: name.slice(0, -6), mtime };
    }
    return (best ?? bestEmpty)?.id;
  }

  /**
   * Appends one entry, written to the file (not fsync-ed) before returning. Throws TranscriptWriteError when the
   * file system refuses; from then on every append throws it. Entries go to the file opened at the
   * first append (and kept open until close()): a transcript file removed or replaced while the
   * session runs is not re-created, the session keeps writing to the file it opened.
   */
  append(entry: TranscriptEntry): void {
    if (this.writeError) throw this.writeError;
    // Encoded once here (appendFileSync would encode a string itself), so its length is known.
    const line = Buffer.from((this.tornTail ? '\n' : '') + JSON.stringify(entry) + '\n');
    try {
      this.fd ??= openSync(this.file, 'a');
      writeFileSync(this.fd, line);
    } catch (err) {
      // A full disk may have taken part of the line: cut it off, so the file ends with whole entries.
      try { truncateSync(this.file, this.size); } catch { /* nothing was written, or nothing can be */ }
      this.writeError = new TranscriptWriteError(this.file, (err as NodeJS.ErrnoException).code, err);
      throw this.writeError;
    }
    this.size += line.length;
    this.tornTail = false;
    this.index(entry, true);
  }

  /** Closes the file and releases the session's lock (the transcript can still be read; a later append opens the file again). */
  close(): void {
    if (this.fd !== undefined) {
      try { closeSync(this.fd); } catch { /* already closed: nothing is lost, every entry was written when appended */ }
      this.fd = undefined;
    }
    if (!this.heldLock) return;
    releaseLock(this.heldLock);
    this.heldLock = undefined;
  }

  private lock(): void {
    const name = lockNameOf(this.file, this.ownNames);
    if (name === undefined) {
      const links = statSync(this.file).nlink;
      throw new SessionError(`session ${this.sessionId}: ${this.file} has ${links} hard links, and none of the others is this session's transcript in the sessions folder (${this.ownNames.join(' or ')}), so rein cannot find the lock a rein writing through another name holds; resume it by that name, or copy it (cp) to go on as a session of its own`);
    }
    const file = lockFileOf(name);
    try {
      acquireLock(file, `session ${this.sessionId}`);
    } catch (err) {
      if (err instanceof SessionLockedError) throw new SessionError(err.message);
      throw new TranscriptWriteError(this.file, (err as NodeJS.ErrnoException).code, err);
    }
    this.heldLock = file;
  }

  /** The `session` header. */
  get header(): Extract<TranscriptEntry, { type: 'session' }> {
    return this.headerEntry!;
  }

  /**
   * Entries a plugin wrote with `type: 'plugin'`, in order (read at open and appended since): a new
   * array. Those appended since open are read back from the file (as JSON gives them back), so a
   * call after appends costs a read of what was appended. Throws SessionError when the file can no
   * longer be read.
   */
  pluginData<T = unknown>(plugin: string): T[] {
    const read = this.byPlugin.get(plugin) ?? [];
    if (!this.appendedPlugins.get(plugin)) return read.slice() as T[];
    return [...read, ...this.appendedData(plugin)] as T[];
  }

  /** `data` of the `plugin` entries of `plugin` appended since open, read back from the file. */
  private appendedData(plugin: string): unknown[] {
    let text: string;
    try {
      const fd = openSync(this.file, 'r');
      try {
        const buf = Buffer.alloc(this.size - this.openedSize);
        let got = 0;
        while (got < buf.length) {
          const n = readSync(fd, buf, got, buf.length - got, this.openedSize + got);
          if (n === 0) break;
          got += n;
        }
        text = buf.subarray(0, got).toString('utf8');
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      throw new SessionError(`cannot read back the session transcript ${this.file}: ${fsReason(err)}`);
    }
    // Only lines that name the plugin are parsed (a name inside other data is filtered out below).
    const mark = `"plugin":${JSON.stringify(plugin)}`;
    const out: unknown[] = [];
    for (const line of text.split('\n')) {
      if (!line.includes(mark)) continue;
      const e = JSON.parse(line) as TranscriptEntry;
      if (e.type === 'plugin' && e.plugin === plugin) out.push(e.data);
    }
    return out;
  }

  /**
   * The history as of the last entry read when the transcript was opened (what a resume starts
   * from). Messages are returned exactly as written (same bytes when re-serialised), so a resumed
   * session rebuilds the same request prefix. When lines were damaged, tool calls and results that
   * lost their other half are dropped together (see `repairs`), so the history is one the API
   * accepts.
   */
  replayMessages(): Message[] {
    let messages: Message[] = [];
    for (const e of this.entries) {
      if (e.type === 'message') messages.push(e.message);
      else if (e.type === 'history') messages = [...e.messages];
    }
    if (!this.damaged.length) return messages;
    const repaired = pairToolCalls(messages);
    this.repairs.splice(0, this.repairs.length, ...repaired.dropped);
    return repaired.messages;
  }

  /** Number of main-loop model responses recorded. */
  get turns(): number {
    return this.mainTurns;
  }
}

function historyDamaged(file: string, line: number): SessionError {
  const kept = file.replace(/\.jsonl$/, '') + '.repaired.jsonl';
  return new SessionError([
    `${file}:${line}: the compacted history on this line is damaged, so the conversation after it cannot be rebuilt.`,
    `To resume from before it, keep the lines above it: head -n ${line - 1} ${file} > ${kept}; then rein run --resume ${kept}`,
  ].join('\n'));
}

const toolUseIds = (m: Message | undefined): string[] =>
  m?.role === 'assistant' ? m.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id) : [];

/**
 * Drops what a damaged line left unpaired: an assistant message whose tool calls have no results
 * right after it (but for the last message, which the loop closes itself), and tool results whose
 * call is not in the assistant message before them. The API rejects either.
 */
export function pairToolCalls(messages: readonly Message[]): { messages: Message[]; dropped: string[] } {
  const out: Message[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      const uses = toolUseIds(m);
      const next = messages[i + 1];
      if (uses.length && next) {
        const answered = new Set(next.role === 'user' ? next.content.filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id) : []);
        if (!uses.every((id) => answered.has(id))) {
          dropped.push(`dropped the assistant message with tool call${uses.length > 1 ? 's' : ''} ${uses.join(', ')}: ${uses.length > 1 ? 'their' : 'its'} results were on a damaged line`);
          continue;
        }
      }
      out.push(m);
      continue;
    }
    const calls = new Set(toolUseIds(out[out.length - 1]));
    const orphans = m.content.filter((b) => b.type === 'tool_result' && !calls.has((b as { tool_use_id: string }).tool_use_id));
    if (!orphans.length) { out.push(m); continue; }
    dropped.push(`dropped the result${orphans.length > 1 ? 's' : ''} of tool call${orphans.length > 1 ? 's' : ''} ${orphans.map((b) => (b as { tool_use_id: string }).tool_use_id).join(', ')}: the call was on a damaged line`);
    const kept = m.content.filter((b) => !orphans.includes(b));
    if (kept.length) out.push({ ...m, content: kept });
  }
  return { messages: out, dropped };
}

/**
 * Tool_use blocks of the last assistant message that have no tool_result after them (a crash between
 * the model's reply and the tool results). Returns their ids.
 */
export function danglingToolUses(messages: readonly Message[]): string[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant') return [];
  return last.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
}

/**
 * rein's session store, given to the kernel as its `sessions` service (`libServices`): a new
 * session is a new transcript, and an opened one is locked for the kernel, its one writer. Throws
 * as `Transcript.create` and `Transcript.open` do.
 */
export const jsonlSessions: SessionStore = Object.freeze({
  create: (options: Parameters<SessionStore['create']>[0]) => Transcript.create(options),
  open: (idOrPath: string, options: { cwd: string; root?: string }) => Transcript.open(idOrPath, { ...options, lock: true }),
});
