/**
 * Which files the model has seen, and as they were then. Read records a file; Write and Edit refuse
 * a file that exists but was never read in this session (so the model never overwrites what it has
 * not seen), and refuse one that changed on disk since it was read (a formatter, the user, another
 * process), because the model's view of it is stale (Claude Code's
 * read-before-edit rule). A successful write records the new state, so consecutive edits need no re-read.
 *
 * The state is per kernel (a subagent has its own) and survives `--resume`: every change is
 * appended to the transcript as a `tools/file-state` plugin entry and replayed on first use.
 * Compaction strategies use `snapshot()` and `clear()`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { Kernel } from '../../../kernel/index.js';

/** Transcript plugin name of the entries this store writes. */
export const FILE_STATE_ENTRY = 'tools/file-state';

/** Files larger than this are not hashed; their freshness is judged by mtime and size alone, bytes. */
export const MAX_HASHED_BYTES = 32 * 1024 * 1024;

export interface FileRecord {
  /** Absolute path. */
  path: string;
  /** mtime when read or written, ms since the epoch (sub-ms precision where the file system has it). */
  mtimeMs: number;
  /** Size then, bytes. */
  size: number;
  /** sha256 of the content then (hex), when the file was small enough to hash. */
  hash?: string;
  /** When it was read or written, ms since the epoch. */
  at: number;
  /** True when only a range of lines was read. */
  partial?: boolean;
}

/**
 * A transcript entry of the store. `seen` is a file read again unchanged (same mtime, size, hash and
 * range as its record): only the new time is written, so a session that keeps re-reading a file
 * adds ~80 bytes per read instead of a whole record.
 */
export type FileStateEntry = { op: 'set'; record: FileRecord } | { op: 'seen'; path: string; at: number } | { op: 'clear' };
type Entry = FileStateEntry;

/** sha256 of `data`, hex. */
export function hashContent(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Why a file may not be written: never read, or changed since. */
export type Freshness = { ok: true; record: FileRecord } | { ok: false; reason: 'unread' } | { ok: false; reason: 'stale'; record: FileRecord };

export class FileStateStore {
  private readonly files = new Map<string, FileRecord>();

  constructor(private readonly persist?: (entry: Entry) => void) {}

  /** Replays entries written by an earlier process of this session. */
  restore(entries: readonly Entry[]): void {
    for (const e of entries) {
      if (e.op === 'clear') this.files.clear();
      else if (e.op === 'set') this.files.set(e.record.path, e.record);
      else if (e.op === 'seen') {
        const rec = this.files.get(e.path);
        if (rec) this.files.set(e.path, { ...rec, at: e.at });
      }
    }
  }

  /** Records `path` as seen now with the given content (or its current size/mtime when no content is given). */
  record(path: string, opts: { content?: string | Uint8Array; partial?: boolean; stat?: { mtimeMs: number; size: number } } = {}): FileRecord {
    const st = opts.stat ?? statSync(path);
    const rec: FileRecord = { path, mtimeMs: st.mtimeMs, size: st.size, at: Date.now() };
    if (opts.content !== undefined) rec.hash = hashContent(opts.content);
    if (opts.partial) rec.partial = true;
    const prev = this.files.get(path);
    this.files.set(path, rec);
    if (prev && prev.mtimeMs === rec.mtimeMs && prev.size === rec.size && prev.hash === rec.hash && prev.partial === rec.partial) {
      this.persist?.({ op: 'seen', path, at: rec.at });
    } else {
      this.persist?.({ op: 'set', record: rec });
    }
    return rec;
  }

  get(path: string): FileRecord | undefined {
    return this.files.get(path);
  }

  /**
   * Whether `path` may be written now: it was read (or written) in this session and is unchanged
   * since. A changed mtime alone is forgiven when the content hash is the same (a `touch`).
   */
  check(path: string): Freshness {
    const rec = this.files.get(path);
    if (!rec) return { ok: false, reason: 'unread' };
    const st = statSync(path);
    if (st.mtimeMs === rec.mtimeMs && st.size === rec.size) return { ok: true, record: rec };
    if (rec.hash && st.size === rec.size && st.size <= MAX_HASHED_BYTES && hashContent(readFileSync(path)) === rec.hash) {
      return { ok: true, record: rec };
    }
    return { ok: false, reason: 'stale', record: rec };
  }

  /**
   * Records whose file changed on disk (other mtime or size, or removed) since they were read or
   * written, checked at most `limit` records (newest first). Used to tell the model after a shell
   * command that its view of those files is stale (Claude Code's staleReadFileStateHint).
   */
  changedSince(limit = 500): FileRecord[] {
    const out: FileRecord[] = [];
    for (const rec of this.snapshot().slice(0, limit)) {
      try {
        const st = statSync(rec.path);
        if (st.mtimeMs !== rec.mtimeMs || st.size !== rec.size) out.push(rec);
      } catch {
        out.push(rec);
      }
    }
    return out;
  }

  /** All records, newest first (what compaction restores from). */
  snapshot(): FileRecord[] {
    return [...this.files.values()].sort((a, b) => b.at - a.at);
  }

  /** Forgets every file (after a compaction the model no longer holds their contents). */
  clear(): void {
    this.files.clear();
    this.persist?.({ op: 'clear' });
  }

  get size(): number {
    return this.files.size;
  }
}

const stores = new WeakMap<Kernel, FileStateStore>();

/** The kernel's file-state store, restored from its transcript on first use. */
export function getFileState(kernel: Kernel): FileStateStore {
  let store = stores.get(kernel);
  if (!store) {
    store = new FileStateStore((entry) => kernel.transcript.append({ type: 'plugin', plugin: FILE_STATE_ENTRY, data: entry }));
    store.restore(kernel.transcript.pluginData<Entry>(FILE_STATE_ENTRY));
    stores.set(kernel, store);
  }
  return store;
}
