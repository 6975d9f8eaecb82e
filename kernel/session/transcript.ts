/**
 * Sessions: one append-only JSONL transcript per session.
 *
 * Location: `<root>/<project>/<sessionId>.jsonl`, where `<root>` is the preset's `session.dir`, else
 * `$REIN_HOME/sessions`, else `~/.rein/sessions`, and `<project>` is the working directory with every
 * non-alphanumeric character replaced by `-` (so sessions of one project sit together and
 * `--continue` finds the newest). Files a session saves beside its transcript (large tool outputs)
 * go in `<root>/<project>/<sessionId>/`.
 *
 * Every entry is written (synchronously) before the kernel acts on it, so a process killed at any
 * point leaves a transcript that resumes: `replay()` rebuilds the history and closes any tool_use
 * left without a tool_result.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Message, Transition, Usage } from '../types.js';

/** One line of a transcript. */
export type TranscriptEntry =
  | {
      type: 'session'; version: 1; sessionId: string; cwd: string; createdAt: string; model: string;
      /** The preset's `name`. */
      preset?: string;
      /** How the preset was named: an absolute file path or a built-in name (reused by --resume / --continue). */
      presetRef?: string;
    }
  | { type: 'message'; message: Message }
  /** The whole history replaced (compaction, context strategies that rewrite old messages). */
  | { type: 'history'; messages: Message[]; reason: string }
  | { type: 'transition'; transition: Transition }
  | { type: 'response'; turn: number; model: string; usage: Usage; stopReason: string | null; requestId?: string; at: number; source: string }
  /** State a plugin needs back on resume (a frozen date, a chosen TTL, replaced tool results...). */
  | { type: 'plugin'; plugin: string; data: unknown };

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

export class SessionError extends Error {
  override name = 'SessionError';
}

export class Transcript {
  /** Absolute path of the JSONL file. */
  readonly file: string;
  /** Directory for files the session keeps beside its transcript. */
  readonly dir: string;

  /** `data` of the `plugin` entries, by plugin, in order: read at open, then appended. */
  private readonly byPlugin = new Map<string, unknown[]>();
  private headerEntry: Extract<TranscriptEntry, { type: 'session' }> | undefined;
  private mainTurns = 0;

  /**
   * @param entries The entries read from the file when it was opened (none for a created
   *   transcript). Entries appended later go to the file and to the per-plugin index only, not to
   *   this list: a long session's memory does not grow with everything it has written.
   */
  private constructor(readonly sessionId: string, readonly projectDir: string, readonly entries: readonly TranscriptEntry[]) {
    this.file = join(projectDir, `${sessionId}.jsonl`);
    this.dir = join(projectDir, sessionId);
    for (const e of entries) this.index(e);
  }

  private index(entry: TranscriptEntry): void {
    if (entry.type === 'plugin') {
      let list = this.byPlugin.get(entry.plugin);
      if (!list) this.byPlugin.set(entry.plugin, (list = []));
      list.push(entry.data);
    } else if (entry.type === 'response' && entry.source === 'main_loop') this.mainTurns++;
    else if (entry.type === 'session' && !this.headerEntry) this.headerEntry = entry;
  }

  /** Starts a new transcript and writes its `session` header. */
  static create(opts: { cwd: string; model: string; preset?: string; presetRef?: string; root?: string; sessionId?: string }): Transcript {
    const projectDir = join(sessionsRoot(opts.root), projectSlug(opts.cwd));
    mkdirSync(projectDir, { recursive: true });
    const t = new Transcript(opts.sessionId ?? randomUUID(), projectDir, []);
    if (existsSync(t.file)) throw new SessionError(`session ${t.sessionId} already exists at ${t.file}`);
    t.append({ type: 'session', version: 1, sessionId: t.sessionId, cwd: resolve(opts.cwd), createdAt: new Date().toISOString(), model: opts.model, preset: opts.preset, ...(opts.presetRef ? { presetRef: opts.presetRef } : {}) });
    return t;
  }

  /**
   * Opens an existing transcript by id (or by path to the .jsonl). Throws SessionError when it does
   * not exist. Lines that do not parse (a write cut by a crash) are skipped and counted.
   */
  static open(idOrPath: string, opts: { cwd: string; root?: string }): Transcript {
    const file = idOrPath.endsWith('.jsonl') ? resolve(opts.cwd, idOrPath) : join(sessionsRoot(opts.root), projectSlug(opts.cwd), `${idOrPath}.jsonl`);
    if (!existsSync(file)) throw new SessionError(`no session ${idOrPath} (looked for ${file})`);
    const entries: TranscriptEntry[] = [];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        entries.push(JSON.parse(line) as TranscriptEntry);
      } catch {
        // A torn last line from a crash: skipped; the entries before it are intact.
      }
    }
    const head = entries[0];
    if (!head || head.type !== 'session') throw new SessionError(`${file} is not a rein transcript (no session header)`);
    const projectDir = file.slice(0, file.length - `${head.sessionId}.jsonl`.length - 1);
    return new Transcript(head.sessionId, projectDir, entries);
  }

  /** The id of the newest session for `cwd`, or undefined. */
  static latest(opts: { cwd: string; root?: string }): string | undefined {
    const dir = join(sessionsRoot(opts.root), projectSlug(opts.cwd));
    if (!existsSync(dir)) return undefined;
    let best: { id: string; mtime: number } | undefined;
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const mtime = statSync(join(dir, name)).mtimeMs;
      if (!best || mtime > best.mtime) best = { id: name.slice(0, -6), mtime };
    }
    return best?.id;
  }

  /** Appends one entry and flushes it to disk before returning. */
  append(entry: TranscriptEntry): void {
    appendFileSync(this.file, JSON.stringify(entry) + '\n');
    this.index(entry);
  }

  /** The `session` header. */
  get header(): Extract<TranscriptEntry, { type: 'session' }> {
    return this.headerEntry!;
  }

  /** Entries a plugin wrote with `type: 'plugin'`, in order (read at open and appended since): a new array. */
  pluginData<T = unknown>(plugin: string): T[] {
    return (this.byPlugin.get(plugin)?.slice() ?? []) as T[];
  }

  /**
   * The history as of the last entry read when the transcript was opened (what a resume starts
   * from). Messages are returned exactly as written (same bytes when re-serialised), so a resumed
   * session rebuilds the same request prefix.
   */
  replayMessages(): Message[] {
    let messages: Message[] = [];
    for (const e of this.entries) {
      if (e.type === 'message') messages.push(e.message);
      else if (e.type === 'history') messages = [...e.messages];
    }
    return messages;
  }

  /** Number of main-loop model responses recorded. */
  get turns(): number {
    return this.mainTurns;
  }
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
