/**
 * Sessions as the kernel sees them: an append-only record of one conversation, kept by a session
 * store the kernel is given (`services.sessions`). The kernel appends every message, transition and
 * response before it acts on it, replays a resumed history from it, and lets plugins keep their own
 * state in it (`plugin` entries). How the record is stored is the store's business: rein's is one
 * JSONL file per session with a lock for its one writer (lib/session/).
 */
import type { Message, Transition, Usage } from './types.js';

/** One entry of a session's record. */
export type TranscriptEntry =
  | {
      type: 'session'; version: 1; sessionId: string; cwd: string; createdAt: string; model: string;
      /** The preset's `name`. */
      preset?: string;
      /** How the preset was named: an absolute file path or a built-in name (reused by --resume / --continue). */
      presetRef?: string;
      /** The session this one was forked from (`--fork-session`). */
      forkedFrom?: string;
    }
  | { type: 'message'; message: Message }
  /** The whole history replaced (compaction, context strategies that rewrite old messages). */
  | { type: 'history'; messages: Message[]; reason: string }
  | { type: 'transition'; transition: Transition }
  /** A model response; `simulated` when rein's simulator answered (its usage is the simulation's). */
  | {
      type: 'response'; turn: number; model: string; usage: Usage; stopReason: string | null; requestId?: string; at: number; source: string;
      /** The model client's state after this response (`ModelClient.checkpoint()`), restored on resume. */
      client?: Record<string, unknown>;
      simulated?: true;
    }
  /** State a plugin needs back on resume (a frozen date, a chosen TTL, replaced tool results...). */
  | { type: 'plugin'; plugin: string; data: unknown };

/** A part of a stored record that could not be used, by 1-based line number. */
export interface DamagedLine {
  line: number;
  /** What is wrong with it, in a sentence. */
  problem: string;
}

/** The session cannot be created, opened or resumed (no such session, not a transcript, locked). */
export class SessionError extends Error {
  override name = 'SessionError';
}

/** One session's record, open for appending (`kernel.transcript`). */
export interface SessionLog {
  readonly sessionId: string;
  /** Where the record is kept (absolute path of rein's JSONL file), for messages and hook inputs. */
  readonly file: string;
  /** Directory for files the session keeps beside its record (saved large outputs); made on demand by `kernel.sessionDir()`. */
  readonly dir: string;
  /** Parts of the record that could not be used when it was opened (skipped), in order. */
  readonly damaged: readonly DamagedLine[];
  /** What `replayMessages()` had to drop because of damaged parts, one sentence each. */
  readonly repairs: readonly string[];
  /** Warnings about the record as a whole when it was opened (written by a newer version), one sentence each. */
  readonly notices?: readonly string[];
  /**
   * Records one entry durably before returning. Throws an error named `TranscriptWriteError` when
   * the store refuses, and keeps throwing it: nothing is acted on that is not recorded.
   */
  append(entry: TranscriptEntry): void;
  /** `data` of the `plugin` entries of `plugin`, in order (read at open and appended since): a new array. */
  pluginData<T = unknown>(plugin: string): T[];
  /** The history as of the record's end when it was opened, with unpaired tool calls of damaged parts dropped (`repairs`). */
  replayMessages(): Message[];
  /** Lets go of the session (its lock); the record can still be read. */
  close(): void;
}

/** Where sessions are kept: creates new ones and opens existing ones for a kernel. */
export interface SessionStore {
  /** Starts a new session and records its `session` header. Throws SessionError when `sessionId` is taken or invalid. */
  create(options: { cwd: string; model: string; preset?: string; presetRef?: string; root?: string; sessionId?: string }): SessionLog;
  /**
   * Opens an existing session (by id, or a store-specific reference such as a file path) to go on
   * with it; the kernel is then its one writer. Throws SessionError when there is none, it cannot
   * be used, or another writer holds it.
   */
  open(idOrPath: string, options: { cwd: string; root?: string }): SessionLog;
}

/** The store of a kernel given none: it keeps nothing, so a run fails closed with the reason. */
export const NO_SESSIONS: SessionStore = Object.freeze({
  create: (): SessionLog => { throw new SessionError('this kernel keeps no sessions: pass a `sessions` service to createKernel (the `rein` entry\'s createKernel does)'); },
  open: (): SessionLog => { throw new SessionError('this kernel keeps no sessions, so it cannot resume one: pass a `sessions` service to createKernel'); },
});
