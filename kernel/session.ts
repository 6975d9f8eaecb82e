/**
 * Sessions: an append-only record of one conversation, kept by `services.sessions` (rein's: JSONL
 * files, lib/session/). Everything is recorded before the loop acts on it.
 */
import type { Message, Transition, Usage } from './types.js';

/** One entry of a session's record. */
export type TranscriptEntry =
  | {
      type: 'session'; version: 1; sessionId: string; cwd: string; createdAt: string; model: string;
      /** The preset's `name`. */
      preset?: string;
      /** An absolute preset file or a built-in name (reused on resume). */
      presetRef?: string;
      /** The session this one was forked from (`--fork-session`). */
      forkedFrom?: string;
    }
  | { type: 'message'; message: Message }
  /** The whole history replaced (compaction, rewrites). */
  | { type: 'history'; messages: Message[]; reason: string }
  | { type: 'transition'; transition: Transition }
  /** A model response; `simulated` when rein's simulator answered. */
  | {
      type: 'response'; turn: number; model: string; usage: Usage; stopReason: string | null; requestId?: string; at: number; source: string;
      /** `ModelClient.checkpoint()` after it, restored on resume. */
      client?: Record<string, unknown>;
      simulated?: true;
    }
  /** State a plugin needs back on resume. */
  | { type: 'plugin'; plugin: string; data: unknown };

/** A part of a stored record that could not be used, by 1-based line number. */
export interface DamagedLine {
  line: number;
  /** What is wrong with it, in a sentence. */
  problem: string;
}

/** The session cannot be created, opened or resumed. */
export class SessionError extends Error {
  override name = 'SessionError';
}

/** One session's record, open for appending (`kernel.transcript`). */
export interface SessionLog {
  readonly sessionId: string;
  /** Where the record is kept (absolute path), for messages and hook inputs. */
  readonly file: string;
  /** Directory for files kept beside the record (made by `kernel.sessionDir()`). */
  readonly dir: string;
  /** Parts skipped when it was opened. */
  readonly damaged: readonly DamagedLine[];
  /** What `replayMessages()` dropped because of them, one sentence each. */
  readonly repairs: readonly string[];
  /** Warnings about the whole record (written by a newer version). */
  readonly notices?: readonly string[];
  /** Records one entry durably. Throws `TranscriptWriteError` once the store refuses, and from then on. */
  append(entry: TranscriptEntry): void;
  /** `data` of the `plugin` entries of `plugin`, in order: a new array. */
  pluginData<T = unknown>(plugin: string): T[];
  /** The history when it was opened (unpaired calls of damaged parts dropped). */
  replayMessages(): Message[];
  /** Lets go of the session (its lock). */
  close(): void;
}

/** Where sessions are kept: creates new ones and opens existing ones for a kernel. */
export interface SessionStore {
  /** Starts a session. Throws SessionError when `sessionId` is taken or invalid. */
  create(options: { cwd: string; model: string; preset?: string; presetRef?: string; root?: string; sessionId?: string }): SessionLog;
  /** Opens a session (an id or a file path) as its one writer. Throws SessionError. */
  open(idOrPath: string, options: { cwd: string; root?: string }): SessionLog;
}

/** The store of a kernel given none: a run fails closed. */
export const NO_SESSIONS: SessionStore = Object.freeze({
  create: (): SessionLog => { throw new SessionError('this kernel keeps no sessions: pass a `sessions` service to createKernel (the `rein` entry\'s createKernel does)'); },
  open: (): SessionLog => { throw new SessionError('this kernel keeps no sessions, so it cannot resume one: pass a `sessions` service to createKernel'); },
});
